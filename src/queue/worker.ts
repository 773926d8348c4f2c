import { randomBytes } from "node:crypto";
import os from "node:os";
import { DelayedError, Queue, UnrecoverableError, Worker, type Job } from "bullmq";
import type { Redis } from "ioredis";
import { GitGoodError, toGitGoodError } from "../errors.js";
import type { ErrorCode } from "../errors/codes.js";
import { connectionOptions, connectRedis } from "./connection.js";
import { DEFAULT_SPILL_BYTES, checkJob, packResult, type JobData, type JobResult, type Settled } from "./jobs.js";
import type { QueueSecret } from "./secret.js";
import { liveWorkerNames } from "./live.js";
import { queueKeys } from "./keys.js";
import type { QueueAddress } from "./url.js";

/** How long a job stays a worker's without its lock being renewed before another worker may take it (ms). */
export const DEFAULT_LOCK_MS = 30_000;
/** Times a job that failed on a worker is handed back by it while another live worker may run it (a bound, not a wait). */
const MAX_DEFERRALS = 50;
/** Times a job may be found stalled (its worker gone) and run again before it counts as failed. */
const MAX_STALLED = 3;
/**
 * The codes of a job refused for what it is, not for this worker's state: not signed with the queue's
 * secret, or asking for more than the worker's policy. Such a job fails at once, on no other worker.
 */
export const REFUSED_CODES: readonly ErrorCode[] = ["BAD_SIGNATURE", "BAD_TICKET", "POLICY_REFUSED"];

/** One worker's line in the queue's worker table. */
export interface WorkerEntry {
  host: string;
  pid: number;
  /** When it started and last finished a job (ms since the epoch). */
  started: number;
  last: number | null;
  done: number;
}

export interface WorkerOptions {
  address: QueueAddress;
  /** The secret shared with the producer: jobs not signed with it are refused, and results are signed with it. */
  secret: QueueSecret;
  /** Jobs at once (default 1). */
  concurrency?: number;
  /** Runs one job: the settled attempt. A throw is an infrastructure failure (retried, elsewhere if it can be). */
  run: (data: JobData) => Promise<Settled>;
  /** Where trajectories larger than `spillBytes` (compressed) go instead of Redis; null keeps them all in Redis. */
  spillDir?: string | null;
  spillBytes?: number;
  /** See DEFAULT_LOCK_MS; the stalled-job check runs at half of it. */
  lockMs?: number;
  /** A delay before a handed-back job is offered again (ms). */
  deferMs?: number;
  /** One line per event (a job taken, done, failed). */
  log?: (line: string) => void;
}

export interface RunningWorker {
  id: string;
  /** Stops taking jobs, waits for the ones running, disconnects. */
  close(): Promise<void>;
}

/**
 * A queue worker: takes jobs of whatever run the queue holds, runs each through `run`, and returns the
 * record with its trajectory compressed (or spilled, by file name) as the job's result. A failure of `run`
 * itself (no clone, no commit, isolation that cannot run) fails the try: BullMQ retries it with backoff,
 * and the worker it failed on hands it back while other workers may take it.
 */
export async function startWorker(opts: WorkerOptions): Promise<RunningWorker> {
  const { address } = opts;
  const redis: Redis = await connectRedis(address);
  // Host and process, and a few random characters: two workers of one process (tests, a library user) differ.
  const id = `${os.hostname()}.${process.pid}.${randomBytes(2).toString("hex")}`;
  const keys = queueKeys(address);
  const log = opts.log ?? (() => undefined);
  const entry: WorkerEntry = { host: os.hostname(), pid: process.pid, started: Date.now(), last: null, done: 0 };
  await redis.hset(keys.workers, id, JSON.stringify(entry));
  const lockMs = opts.lockMs ?? DEFAULT_LOCK_MS;
  const spill = { dir: opts.spillDir ?? null, bytes: opts.spillBytes ?? DEFAULT_SPILL_BYTES };

  const queue = new Queue(address.name, { connection: connectionOptions(address) });
  queue.on("error", () => undefined);
  /** Whether a live worker of the queue other than this one, and than those the job failed on, is there to take it. */
  const othersFor = async (avoid: readonly string[]): Promise<boolean> => {
    const live = await liveWorkerNames(queue);
    return [...live].some((name) => name !== id && !avoid.includes(name));
  };

  /** The last write of this worker's line in the worker table, which closing waits for. */
  let table: Promise<unknown> = Promise.resolve();
  /** A job refused for what it is: one line, and the job fails everywhere at once. */
  const refuse = (key: string, e: GitGoodError): never => {
    const line = `${e.code}: ${e.message.split("\n")[0]}`;
    log(`refused ${key}: ${line}`);
    throw new UnrecoverableError(`${line} (on ${id})`);
  };
  const processor = async (job: Job, token?: string): Promise<JobResult> => {
    let data: JobData;
    try {
      data = checkJob(opts.secret, job.data);
    } catch (err) {
      return refuse(String(job.id ?? "?").slice(0, 200), toGitGoodError(err));
    }
    const avoid = data.avoid ?? [];
    if (avoid.includes(id) && (data.deferred ?? 0) < MAX_DEFERRALS && (await othersFor(avoid))) {
      await job.updateData({ ...data, deferred: (data.deferred ?? 0) + 1 });
      await job.moveToDelayed(Date.now() + (opts.deferMs ?? 500), token);
      throw new DelayedError();
    }
    log(`took ${data.key}`);
    let settled: Settled;
    try {
      settled = await opts.run(data);
    } catch (err) {
      const e = toGitGoodError(err);
      if ((REFUSED_CODES as readonly string[]).includes(e.code)) return refuse(data.key, e);
      await job.updateData({ ...data, avoid: [...new Set([...avoid, id])] });
      log(`failed ${data.key}: ${e.code}: ${e.message.split("\n")[0]}`);
      throw new Error(`${e.code}: ${e.message.split("\n")[0]} (on ${id})`);
    }
    const result = packResult(settled, data, id, spill, opts.secret);
    entry.done++;
    entry.last = Date.now();
    // The worker table is for `gitgood status`: the job's result does not wait for it.
    table = redis.hset(keys.workers, id, JSON.stringify(entry)).catch(() => undefined);
    log(`done ${data.key} ${settled.record.status} ${settled.record.verdict}`);
    return result;
  };

  const worker = new Worker(address.name, processor, {
    connection: connectionOptions(address),
    concurrency: opts.concurrency ?? 1,
    lockDuration: lockMs,
    stalledInterval: Math.max(100, Math.floor(lockMs / 2)),
    maxStalledCount: MAX_STALLED,
    name: id,
  });
  worker.on("error", () => undefined);
  await worker.waitUntilReady();
  return {
    id,
    close: async () => {
      await worker.close();
      await queue.close().catch(() => undefined);
      await table;
      redis.disconnect();
    },
  };
}
