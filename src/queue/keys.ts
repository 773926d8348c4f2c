import type { QueueAddress } from "./url.js";

/** Redis keys gitgood keeps beside BullMQ's own (`bull:NAME:…`), all under `gitgood:NAME:`. */
export function queueKeys(address: QueueAddress): { run: string; workers: string; connections: string } {
  const base = `gitgood:${address.name}`;
  return {
    /** The identity of the run whose jobs the queue holds (JSON: hash and identity). */
    run: `${base}:run`,
    /** Per worker: host, pid, when it started, jobs done, when it last finished one (JSON per field). */
    workers: `${base}:workers`,
    /** The shared `--max-connections` leases. */
    connections: `${base}:connections`,
  };
}
