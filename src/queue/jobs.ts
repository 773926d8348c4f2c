import { createHash } from "node:crypto";
import { gunzipSync, gzipSync } from "node:zlib";
import { z } from "zod";
import { GitGoodError } from "../errors.js";
import { ResultRecordSchema, type ResultRecord } from "../runs/record.js";
import { safeFileName } from "../util/file-names.js";
import { readSpilled, spilledFile, writeSpilled } from "./spill.js";
import { TrajectorySchema, type Trajectory } from "../runs/trajectory.js";

/** Compressed trajectories larger than this go to the spill directory by path instead of into Redis (bytes). */
export const DEFAULT_SPILL_BYTES = 256 * 1024;

/** JSON with the keys of every object sorted: the same value always gives the same text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

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
export const JobDataSchema = z.object({
  run: z.string(),
  key: z.string(),
  ticket: z.unknown(),
  /** Workers on which the job failed for an infrastructure reason: they leave it to others while others are there. */
  avoid: z.array(z.string()).optional(),
  /** How many times a worker has handed the job back unrun (bounded, so a lone worker still runs it). */
  deferred: z.number().int().optional(),
});
export type JobData = z.infer<typeof JobDataSchema>;

/** What a worker returns for a job: the settled record, and its trajectory compressed inline or by path. */
export const JobResultSchema = z.object({
  key: z.string(),
  worker: z.string(),
  record: ResultRecordSchema,
  /** The trajectory gzip-compressed (base64), or the name of the file it was spilled to in the spill directory. */
  trajectory: z.union([z.object({ gzip: z.string() }).strict(), z.object({ spilled: z.string() }).strict()]),
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
export function packResult(settled: Settled, worker: string, spill: { dir: string | null; bytes: number }): JobResult {
  const gz = gzipSync(Buffer.from(JSON.stringify(settled.trajectory), "utf8"));
  const base = { key: settled.record.key, worker, record: settled.record };
  if (spill.dir !== null && gz.length > spill.bytes) {
    return { ...base, trajectory: { spilled: writeSpilled(spill.dir, settled.record.key, worker, gz) } };
  }
  return { ...base, trajectory: { gzip: gz.toString("base64") } };
}

/**
 * Unpacks a worker's result for job `key`: one of another job, a damaged one, or a spilled file the
 * producer's spill directory (`spillDir`) does not hold as `spilledFile` requires, is BAD_RESULT in one
 * line. Returns the spilled file to delete once written.
 */
export function unpackResult(value: unknown, key: string, spillDir: string | null): Settled & { spilled: string | null } {
  const parsed = JobResultSchema.safeParse(value);
  if (!parsed.success) throw new GitGoodError("BAD_RESULT", `the result of ${key} on the queue is not a gitgood job result`);
  const r = parsed.data;
  if (r.key !== key || r.record.key !== key) throw new GitGoodError("BAD_RESULT", `the result of ${key} on the queue is the record of another job (${r.record.key})`);
  const spilled = "spilled" in r.trajectory ? spilledFile(spillDir, key, r.trajectory.spilled) : null;
  const gz = spilled !== null ? readSpilled(spilled, key) : Buffer.from("gzip" in r.trajectory ? r.trajectory.gzip : "", "base64");
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
