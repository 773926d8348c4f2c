import { Queue, QueueEvents, type Job } from "bullmq";
import type { Redis } from "ioredis";
import { z } from "zod";
import { GitGoodError, toGitGoodError } from "../errors.js";
import { connectionOptions, connectRedis } from "./connection.js";
import { checkJob, identityHash, jobIdOf, signJob, unpackResult, type JobData, type Settled } from "./jobs.js";
import type { QueueSecret } from "./secret.js";
import { REFUSED_CODES } from "./worker.js";
import { removeSpilled } from "./spill.js";
import { queueKeys } from "./keys.js";
import type { QueueAddress } from "./url.js";

/** Tries of a job before it counts as failed (only infrastructure failures are retried: an attempt's own failure is its record). */
export const DEFAULT_ATTEMPTS = 3;
/** The first retry's delay; each further retry waits twice as long (ms). */
const DEFAULT_BACKOFF_MS = 2000;

const RunMarkSchema = z.object({ hash: z.string(), identity: z.unknown() });

/** A queued job of the run: its result key and the executor's ticket. */
export interface QueuedJob {
  key: string;
  ticket: unknown;
}

/** What the producer does with finished jobs. */
export interface Sink {
  /** Writes a settled attempt to the run directory (the run's single writer). */
  write(settled: Settled): void;
  /** Records a job whose every try failed on the workers (an infrastructure error): its error record. */
  failed(data: JobData, error: GitGoodError): void | Promise<void>;
  /** Told of each job written (progress). */
  onWritten?: (key: string) => void;
}

export interface EnqueueResult {
  /** Jobs added now. */
  added: number;
  /** Jobs that were on the queue already (a producer that ran before). */
  present: number;
}

/**
 * A run's side of a BullMQ queue: it enqueues the run's jobs under ids made of the run's identity and
 * the result key (enqueuing again adds only what is missing), and takes finished jobs off the queue
 * into the run directory through the given sink. A queue holds one run at a time: one holding another
 * run's jobs is refused.
 */
export class RunQueue {
  private constructor(
    readonly address: QueueAddress,
    readonly run: string,
    private readonly identity: unknown,
    private readonly redis: Redis,
    private readonly queue: Queue,
    private readonly attempts: number,
    private readonly backoffMs: number,
    private readonly spillDir: string | null,
    private readonly secret: QueueSecret,
  ) {}

  /**
   * Connects (an unreachable server is one line) and checks that the queue is free or holds this run.
   * Nothing is written to Redis until `claim`. `spillDir` is where this machine sees the workers' spill
   * directory (`--spill-dir`): the only place a spilled trajectory is read from (none: no result may spill).
   * `secret` signs the jobs and checks the results: it is shared with the workers, never put in Redis.
   */
  static async open(
    address: QueueAddress,
    identity: unknown,
    opts: { secret: QueueSecret; attempts?: number; backoffMs?: number; spillDir?: string | null },
  ): Promise<RunQueue> {
    const redis = await connectRedis(address);
    const run = identityHash(identity);
    try {
      const held = await heldRun(redis, address);
      if (held !== null && held !== run) {
        throw new GitGoodError(
          "QUEUE_MISMATCH",
          `the queue ${address.name} at ${address.shown} holds the jobs of another run (${held}, this one is ${run}); use another --queue-name, or collect that run first`,
          { held, run },
        );
      }
    } catch (err) {
      redis.disconnect();
      throw err;
    }
    const queue = new Queue(address.name, { connection: connectionOptions(address) });
    queue.on("error", () => undefined);
    return new RunQueue(address, run, identity, redis, queue, opts.attempts ?? DEFAULT_ATTEMPTS, opts.backoffMs ?? DEFAULT_BACKOFF_MS, opts.spillDir ?? null, opts.secret);
  }

  /** Marks the queue as this run's (again, after a Redis that lost it). */
  async claim(): Promise<void> {
    await this.redis.set(queueKeys(this.address).run, JSON.stringify({ hash: this.run, identity: this.identity }));
  }

  /** Adds the jobs not on the queue yet (by id); returns how many were added and how many were there. */
  async enqueue(jobs: readonly QueuedJob[]): Promise<EnqueueResult> {
    await this.claim();
    let added = 0;
    for (let i = 0; i < jobs.length; i += 500) {
      const batch = jobs.slice(i, i + 500);
      const ids = batch.map((j) => jobIdOf(this.run, j.key));
      const before = await Promise.all(ids.map((id) => this.queue.getJob(id)));
      const missing = batch.filter((_, n) => before[n] === undefined);
      if (missing.length === 0) continue;
      await this.queue.addBulk(
        missing.map((j) => ({
          name: j.key,
          data: signJob(this.secret, { run: this.run, key: j.key, ticket: j.ticket }),
          opts: {
            jobId: jobIdOf(this.run, j.key),
            attempts: this.attempts,
            backoff: { type: "exponential", delay: this.backoffMs },
            removeOnComplete: false,
            removeOnFail: false,
          },
        })),
      );
      added += missing.length;
    }
    return { added, present: jobs.length - added };
  }

  /**
   * Takes finished jobs of this run off the queue into the sink: completed ones as their records,
   * failed ones (every try failed) as error records. Returns the keys taken.
   */
  async collect(sink: Sink): Promise<string[]> {
    const taken: string[] = [];
    for (;;) {
      let found = 0;
      for (const state of ["completed", "failed"] as const) {
        const finished = (await this.queue.getJobs([state], 0, 199, true)) as Job[];
        const ours = finished.filter((j) => (j.data as { run?: unknown } | undefined)?.run === this.run);
        found += ours.length;
        for (const job of ours) {
          const key = await this.take(job, state, sink);
          if (key !== null) taken.push(key);
        }
      }
      if (found === 0) return taken;
    }
  }

  /** Writes one finished job through the sink and removes it from the queue; returns its key (null: not a job of this producer's). */
  private async take(job: Job, state: "completed" | "failed", sink: Sink): Promise<string | null> {
    let data: JobData;
    try {
      data = checkJob(this.secret, job.data);
    } catch {
      // Not a job a producer of this queue enqueued (whoever writes to the queue's Redis put it there): dropped.
      await job.remove();
      return null;
    }
    if (state === "completed") {
      let settled: ReturnType<typeof unpackResult> | null = null;
      try {
        const agent = (this.identity as { agent?: unknown } | null)?.agent;
        settled = unpackResult(job.returnvalue, data.key, { secret: this.secret, run: this.run, agent: typeof agent === "string" ? agent : null, spillDir: this.spillDir });
      } catch (err) {
        await sink.failed(data, toGitGoodError(err));
      }
      if (settled !== null) {
        sink.write(settled);
        removeSpilled(settled.spilled);
      }
    } else {
      const reason = job.failedReason?.split("\n")[0] ?? "the workers failed it";
      // A job a worker refused for what it is (its policy, its signature) keeps that code: it ran nowhere.
      const refused = REFUSED_CODES.find((code) => reason.startsWith(`${code}: `));
      await sink.failed(
        data,
        refused !== undefined
          ? new GitGoodError(refused, `a worker refused the job: ${reason.slice(refused.length + 2)}`, { tries: job.attemptsMade })
          : new GitGoodError("WORKER_FAILED", `every try on the workers failed: ${reason}`, { tries: job.attemptsMade }),
      );
    }
    await job.remove();
    sink.onWritten?.(data.key);
    return data.key;
  }

  /**
   * Waits until every job in `jobs` is written, taking finished jobs off the queue as they come: the
   * queue's events (a job completed or failed) wake it at once, and it also looks every `poll` ms at
   * most, since events are not kept over a restarted Redis. Jobs the queue lost (a Redis restarted
   * without persistence) are enqueued again.
   */
  async drain(jobs: readonly QueuedJob[], sink: Sink, opts: { poll?: number; signal?: AbortSignal } = {}): Promise<void> {
    const outstanding = new Map(jobs.map((j) => [j.key, j]));
    const longest = opts.poll ?? 1000;
    let wake: (() => void) | null = null;
    let finishedSince = false;
    const events = new QueueEvents(this.address.name, { connection: connectionOptions(this.address) });
    events.on("error", () => undefined);
    const finished = (): void => {
      finishedSince = true;
      wake?.();
    };
    events.on("completed", finished);
    events.on("failed", finished);
    try {
      // From here on no finish goes unheard: one before this point is found by the first look.
      await events.waitUntilReady();
      let lastCheck = Date.now();
      while (outstanding.size > 0) {
        if (opts.signal?.aborted) throw new GitGoodError("ABORTED", "stopped while waiting for the queue's workers");
        finishedSince = false;
        const taken = await this.collect(sink);
        for (const key of taken) outstanding.delete(key);
        if (outstanding.size === 0) break;
        if (Date.now() - lastCheck > 2000) {
          lastCheck = Date.now();
          await this.restoreLost([...outstanding.values()]);
        }
        if (finishedSince) continue;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(done, longest);
          opts.signal?.addEventListener("abort", done, { once: true });
          wake = done;
          function done(): void {
            clearTimeout(timer);
            opts.signal?.removeEventListener("abort", done);
            wake = null;
            resolve();
          }
        });
      }
    } finally {
      await events.close().catch(() => undefined);
    }
  }

  /** Enqueues again the outstanding jobs the queue no longer has (a restarted Redis), once it is back. */
  private async restoreLost(outstanding: readonly QueuedJob[]): Promise<void> {
    const counts = await this.queue.getJobCounts("waiting", "active", "delayed", "prioritized", "completed", "failed", "waiting-children");
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    if (total >= outstanding.length) return;
    await this.enqueue(outstanding);
  }

  /** Empties the queue of this run once everything is written, so that the queue can take another run. */
  async release(): Promise<void> {
    const counts = await this.queue.getJobCounts("waiting", "active", "delayed", "prioritized", "completed", "failed", "waiting-children");
    if (Object.values(counts).some((n) => n > 0)) return;
    const keys = queueKeys(this.address);
    await this.redis.del(keys.run);
  }

  async close(): Promise<void> {
    await this.queue.close().catch(() => undefined);
    this.redis.disconnect();
  }
}

/** The identity hash of the run the queue holds, or null when it holds none. */
export async function heldRun(redis: Redis, address: QueueAddress): Promise<string | null> {
  const text = await redis.get(queueKeys(address).run);
  if (text === null) return null;
  try {
    return RunMarkSchema.parse(JSON.parse(text)).hash;
  } catch {
    throw new GitGoodError("QUEUE_MISMATCH", `the queue ${address.name} at ${address.shown} holds something gitgood did not write; use another --queue-name`);
  }
}
