import { createHash } from "node:crypto";
import { gunzipSync, gzipSync } from "node:zlib";
import { z } from "zod";
import { GitGoodError } from "../errors.js";
import { ResultRecordSchema, type ResultRecord } from "../runs/record.js";
import { safeFileName } from "../util/file-names.js";
import { canonicalJson } from "./canonical.js";
import { signedBy, signValue, type QueueSecret } from "./secret.js";
import { readSpilled, spilledFile, writeSpilled } from "./spill.js";
import { TrajectorySchema, type Trajectory } from "../runs/trajectory.js";

/** Compressed trajectories larger than this go to the spill directory by path instead of into Redis (bytes). */
export const DEFAULT_SPILL_BYTES = 256 * 1024;

export { canonicalJson };

/**
 * The part of run.json's identity a queue tells runs apart by: all of it but where the repositories are
 * (each worker has its own clones, and a run resumed against another clone is the same run).
 */
export function queueIdentity(identity: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(identity).filter(([k]) => k !== "where"));
}

/** A short, stable name of a run's identity (run.json's `identity`): jobs of one run carry it in their ids. */
export function identityHash(identity: unknown): string {
  return createHash("sha256").update(canonicalJson(identity)).digest("hex").slice(0, 16);
}

/** The BullMQ job id of a run's attempt: the same run and key always give the same id, so enqueuing again adds nothing. */
export function jobIdOf(run: string, key: string): string {
  // Result keys hold no ':' (BullMQ's separator); a key that did would be hashed into a safe form.
  return `${run}.${key.includes(":") ? safeFileName(key) : key}`;
}

/** What a queued job carries: the run it belongs to, its result key and the executor's ticket. */
const JobDataSchema = z.object({
  run: z.string(),
  key: z.string(),
  ticket: z.unknown(),
  /** Workers on which the job failed for an infrastructure reason: they leave it to others while others are there. */
  avoid: z.array(z.string()).optional(),
  /** How many times a worker has handed the job back unrun (bounded, so a lone worker still runs it). */
  deferred: z.number().int().optional(),
  /** The producer's signature of the job (`signJob`): workers run only jobs it verifies. Optional here so that an unsigned job is refused by name. */
  sig: z.string().optional(),
});
export type JobData = z.infer<typeof JobDataSchema>;

function badSignature(what: string): GitGoodError {
  return new GitGoodError("BAD_SIGNATURE", `${what} is not signed with this queue's secret (forged on Redis, or the producer and workers were given different secrets)`);
}

/** What a job's signature covers: its id (so that a signed ticket is not taken under another run or key), run, key and ticket. */
function jobSigned(data: Pick<JobData, "run" | "key" | "ticket">): unknown {
  return { id: jobIdOf(data.run, data.key), run: data.run, key: data.key, ticket: data.ticket };
}

/** A job of run `run` as the producer puts it on the queue: signed with the queue's secret. */
export function signJob(secret: QueueSecret, job: Pick<JobData, "run" | "key" | "ticket">): JobData {
  return { run: job.run, key: job.key, ticket: job.ticket, sig: signValue(secret, "job", jobSigned(job)) };
}

/** A job read off the queue, checked: not a gitgood job (BAD_TICKET) or not signed by a holder of the secret (BAD_SIGNATURE) is refused in one line. */
export function checkJob(secret: QueueSecret, value: unknown): JobData {
  const parsed = JobDataSchema.safeParse(value);
  if (!parsed.success) throw new GitGoodError("BAD_TICKET", "the job on the queue is not a gitgood job");
  const data = parsed.data;
  if (!signedBy(secret, "job", jobSigned(data), data.sig)) throw badSignature(`the job ${data.key.slice(0, 200)}`);
  return data;
}

/** What a worker returns for a job: the settled record, and its trajectory compressed inline or by path. */
const JobResultSchema = z.object({
  key: z.string(),
  worker: z.string(),
  record: ResultRecordSchema,
  /** The trajectory gzip-compressed (base64), or the name of the file it was spilled to in the spill directory. */
  trajectory: z.union([z.object({ gzip: z.string() }).strict(), z.object({ spilled: z.string() }).strict()]),
  /** The worker's signature of the result (`packResult`): the producer writes only results it verifies. */
  sig: z.string().optional(),
});
export type JobResult = z.infer<typeof JobResultSchema>;

export interface Settled {
  record: ResultRecord;
  trajectory: Trajectory;
}

/**
 * Packs a settled attempt for Redis: the trajectory gzip-compressed (base64), or, when that is larger
 * than `spillBytes` and a spill directory is given, written there and named by its file name.
 */
export function packResult(settled: Settled, job: Pick<JobData, "run" | "key">, worker: string, spill: { dir: string | null; bytes: number }, secret: QueueSecret): JobResult {
  const gz = gzipSync(Buffer.from(JSON.stringify(settled.trajectory), "utf8"));
  const base = { key: settled.record.key, worker, record: settled.record };
  const sig = signResult(secret, job.run, base, gz);
  if (spill.dir !== null && gz.length > spill.bytes) {
    return { ...base, trajectory: { spilled: writeSpilled(spill.dir, settled.record.key, worker, gz) }, sig };
  }
  return { ...base, trajectory: { gzip: gz.toString("base64") }, sig };
}

/** The signature of a result of run `run` whose compressed trajectory is `gz`. */
export function signResult(secret: QueueSecret, run: string, result: Pick<JobResult, "key" | "worker" | "record">, gz: Buffer): string {
  return signValue(secret, "result", resultSigned(run, result, gz));
}

/**
 * What a result's signature covers: the job's id (its run and key), the worker, the record and the
 * digest of the compressed trajectory (however it travels, inline or spilled).
 */
function resultSigned(run: string, result: Pick<JobResult, "key" | "worker" | "record">, gz: Buffer): unknown {
  return { id: jobIdOf(run, result.key), run, key: result.key, worker: result.worker, record: result.record, trajectory: createHash("sha256").update(gz).digest("hex") };
}

/** What the producer checks a result against: the queue's secret, its run (identity hash) and agent, and where spilled trajectories may be. */
export interface ResultCheck {
  secret: QueueSecret;
  run: string;
  /** The run's agent (run.json's identity): a record of another agent is not this run's. */
  agent: string | null;
  spillDir: string | null;
}

/**
 * Unpacks a worker's result for job `key`: one not signed with the queue's secret for this run's job is
 * BAD_SIGNATURE; one of another job or agent, a damaged one, or a spilled file the producer's spill
 * directory does not hold as `spilledFile` requires, is BAD_RESULT in one line. Returns the spilled file
 * to delete once written.
 */
export function unpackResult(value: unknown, key: string, check: ResultCheck): Settled & { spilled: string | null } {
  const parsed = JobResultSchema.safeParse(value);
  if (!parsed.success) throw new GitGoodError("BAD_RESULT", `the result of ${key} on the queue is not a gitgood job result`);
  const r = parsed.data;
  if (r.key !== key || r.record.key !== key) throw new GitGoodError("BAD_RESULT", `the result of ${key} on the queue is the record of another job (${r.record.key})`);
  const spilled = "spilled" in r.trajectory ? spilledFile(check.spillDir, key, r.trajectory.spilled) : null;
  const gz = spilled !== null ? readSpilled(spilled, key) : Buffer.from("gzip" in r.trajectory ? r.trajectory.gzip : "", "base64");
  if (!signedBy(check.secret, "result", resultSigned(check.run, r, gz), r.sig)) throw badSignature(`the result of ${key} on the queue`);
  if (check.agent !== null && r.record.agent !== check.agent) {
    throw new GitGoodError("BAD_RESULT", `the result of ${key} on the queue is a record of agent ${r.record.agent.slice(0, 100)}, this run's is ${check.agent}`);
  }
  let trajectory: unknown;
  try {
    trajectory = JSON.parse(gunzipSync(gz).toString("utf8"));
  } catch {
    throw new GitGoodError("BAD_RESULT", `the trajectory of ${key} on the queue is damaged`);
  }
  const t = TrajectorySchema.safeParse(trajectory);
  if (!t.success) throw new GitGoodError("BAD_RESULT", `the trajectory of ${key} on the queue is not a gitgood trajectory`);
  return { record: r.record, trajectory: t.data, spilled };
}
