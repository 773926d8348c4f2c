import type { IsolationBackend, LimitEnforcement } from "./types.js";

const NOT_ENFORCED: LimitEnforcement = { how: "none (no isolation)", weak: false };

/** No isolation: programs run as the user, with the user's files and the network. Only ever used when asked for by name. */
export const noneBackend: IsolationBackend = {
  name: "none",
  summary: "no isolation: agent programs can read and write whatever your user can (only when asked for)",
  usesImage: false,
  isolates: false,
  unavailable: () => null,
  enforcement: () => ({
    processes: NOT_ENFORCED,
    memory: NOT_ENFORCED,
    disk: NOT_ENFORCED,
    cpu: NOT_ENFORCED,
  }),
  command: (_iso, jail, [file, ...args]) => ({ file, args, env: jail.env }),
  node: () => process.execPath,
};
