import { Queue } from "bullmq";
import { connectionOptions, connectRedis } from "./connection.js";
import { liveWorkerNames } from "./live.js";
import { heldRun } from "./producer.js";
import { queueKeys } from "./keys.js";
import type { QueueAddress } from "./url.js";
import type { WorkerEntry } from "./worker.js";

export interface WorkerRate {
  id: string;
  host: string;
  done: number;
  /** Jobs per minute from its start to its last finished job (null before its first). */
  per_minute: number | null;
  /** Seconds since its last finished job (null before its first); never below 0, whatever the worker's clock says. */
  idle_s: number | null;
  /** Whether it is connected to the queue now (false: stopped or killed; its jobs go to other workers). */
  live: boolean;
}

export interface QueueStatus {
  queue: string;
  url: string;
  /** The identity hash of the run the queue holds (null: none). */
  run: string | null;
  waiting: number;
  active: number;
  delayed: number;
  completed: number;
  failed: number;
  workers: WorkerRate[];
}

/** The counts of a queue's jobs by state and each worker's rate. */
export async function queueStatus(address: QueueAddress, now = Date.now()): Promise<QueueStatus> {
  const redis = await connectRedis(address);
  const queue = new Queue(address.name, { connection: connectionOptions(address) });
  queue.on("error", () => undefined);
  try {
    const counts = await queue.getJobCounts("waiting", "prioritized", "active", "delayed", "completed", "failed");
    const table = await redis.hgetall(queueKeys(address).workers);
    const live = await liveWorkerNames(queue);
    const workers: WorkerRate[] = [];
    for (const [id, text] of Object.entries(table)) {
      let e: WorkerEntry;
      try {
        e = JSON.parse(text) as WorkerEntry;
      } catch {
        continue;
      }
      const span = e.last === null ? 0 : (e.last - e.started) / 60_000;
      workers.push({
        id,
        host: e.host,
        done: e.done,
        per_minute: e.last === null || span <= 0 ? null : Math.round((e.done / span) * 10) / 10,
        idle_s: e.last === null ? null : Math.max(0, Math.round((now - e.last) / 1000)),
        live: live.has(id),
      });
    }
    workers.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return {
      queue: address.name,
      url: address.shown,
      run: await heldRun(redis, address),
      waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0),
      active: counts.active ?? 0,
      delayed: counts.delayed ?? 0,
      completed: counts.completed ?? 0,
      failed: counts.failed ?? 0,
      workers,
    };
  } finally {
    await queue.close().catch(() => undefined);
    redis.disconnect();
  }
}

/** The status as lines for people. */
export function formatStatus(s: QueueStatus, recorded: number | null): string {
  const lines = [
    `queue ${s.queue} at ${s.url}${s.run === null ? " (holds no run)" : ` (run ${s.run})`}`,
    `waiting ${s.waiting}  active ${s.active}  delayed ${s.delayed}  completed ${s.completed}  failed ${s.failed}${recorded === null ? "" : `  recorded ${recorded}`}`,
  ];
  for (const w of s.workers) {
    const last = w.idle_s === null || w.idle_s === 0 ? "just now" : `${w.idle_s} s ago`;
    const rate = w.per_minute === null ? "no job finished yet" : `${w.per_minute} jobs/min, last ${last}`;
    lines.push(`  worker ${w.id}: ${w.live ? "" : "gone (not connected), "}${w.done} done, ${rate}`);
  }
  if (s.workers.length === 0) lines.push("  no worker has started on this queue");
  else if (!s.workers.some((w) => w.live)) lines.push("  no worker is connected: the queue's jobs wait for one");
  return lines.join("\n");
}
