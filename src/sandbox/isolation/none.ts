import type { IsolationBackend } from "./types.js";

/** No isolation: programs run as the user, with the user's files and the network. Only ever used when asked for by name. */
export const noneBackend: IsolationBackend = {
  name: "none",
  summary: "no isolation: agent programs can read and write whatever your user can (only when asked for)",
  usesImage: false,
  isolates: false,
  unavailable: () => null,
  command: (_iso, jail, [file, ...args]) => ({ file, args, env: jail.env }),
  node: () => process.execPath,
};
