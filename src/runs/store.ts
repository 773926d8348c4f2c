import { appendFileSync, existsSync, mkdirSync, readFileSync, truncateSync } from "node:fs";
import path from "node:path";
import { GitGoodError } from "../errors.js";
import { writeOutputFile } from "../util/output.js";
import { RunConfigSchema, type RunConfig, type RunIdentity } from "./config.js";
import { RESULTS_SCHEMA_VERSION, ResultRecordSchema, type ResultRecord } from "./record.js";
import { JUDGES } from "./spec.js";
import { safeFileName } from "../util/file-names.js";
import { fsReason } from "../util/errno.js";

export const RESULTS_FILE = "results.jsonl";
export const RUN_FILE = "run.json";
const TRAJECTORY_DIR = "trajectories";

/** What to do about a damaged run.json: the results survive it, and the same command writes it again. */
const RECREATE = "delete it and run the same gitgood run command again to resume (the results are kept), or use another --out";

/**
 * Writes JSON whole or not at all: a temporary file in the same directory renamed into place, so a
 * failed write (a full disk) leaves the previous file as it was (a link or device is written through).
 */
function writeJsonAtomic(file: string, value: unknown): void {
  writeOutputFile(file, `${JSON.stringify(value, null, 2)}\n`);
}

/**
 * The fields in which two runs' identities differ. Where the repositories are is not what the run is
 * (its samples name their repositories and commits): a run made against the wrong clone is finished with
 * the right one, and shards of one run may each have their own clones. Nor is where the samples were read
 * from, when both sides know what the samples are (their digest); a run made before digests were recorded
 * is compared by its samples' path, as it was then.
 */
export function identityDifferences(a: RunIdentity, b: RunIdentity): string[] {
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const digests = a.samples_digest !== undefined && b.samples_digest !== undefined;
  const skipped = new Set(["where", digests ? "samples" : "samples_digest"]);
  return Object.keys({ ...ra, ...rb }).filter((k) => !skipped.has(k) && JSON.stringify(ra[k]) !== JSON.stringify(rb[k]));
}

/** A value of an identity as a refusal shows it: JSON, cut to a readable length ("none" when absent). */
function shown(value: unknown): string {
  if (value === undefined) return "none";
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** `name: saved -> new` for a value that differs; for two objects, one such entry for each of their fields that differs. */
function differenceOf(name: string, saved: unknown, wanted: unknown): string[] {
  // An object one side lacks (an identity's spec with every setting at its default) is an empty one: the entries name its fields.
  if (saved === undefined && isObject(wanted)) return differenceOf(name, {}, wanted);
  if (wanted === undefined && isObject(saved)) return differenceOf(name, saved, {});
  if (!isObject(saved) || !isObject(wanted)) return [`${name}: ${shown(saved)} -> ${shown(wanted)}`];
  return Object.keys({ ...saved, ...wanted })
    .filter((k) => JSON.stringify(saved[k]) !== JSON.stringify(wanted[k]))
    .flatMap((k) => differenceOf(`${name}.${k}`, saved[k], wanted[k]));
}

/** How two identities differ, for a one-line refusal: `field: saved -> new` for each field that differs. */
export function describeDifferences(saved: RunIdentity, wanted: RunIdentity, fields: readonly string[]): string {
  const rs = saved as Record<string, unknown>;
  const rw = wanted as Record<string, unknown>;
  return fields.flatMap((k) => differenceOf(k, rs[k], rw[k])).join("; ");
}

/**
 * The first of DIR, DIR-2, DIR-3, … that holds no run yet or the run this identity describes: a command that
 * keeps one directory per set of samples and settings (`gitgood bench`) resumes the same work and starts
 * new work beside it, never inside another run. A directory whose run.json cannot be read is returned, so
 * opening it says what is wrong with it.
 */
export function runDirFor(dir: string, identity: RunIdentity): string {
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? dir : `${dir}-${n}`;
    if (!existsSync(path.join(candidate, RUN_FILE))) return candidate;
    let saved: RunConfig;
    try {
      saved = RunStore.readConfig(candidate);
    } catch {
      return candidate;
    }
    if (identityDifferences(saved.identity, identity).length === 0) return candidate;
  }
}

/**
 * Where the trajectory of a key goes, relative to the run directory: `trajectories/NAME.json`, NAME the
 * key's safe file name (the key itself when it is a plain name, else a readable prefix and a digest).
 */
export function trajectoryPath(key: string): string {
  return path.join(TRAJECTORY_DIR, `${safeFileName(key)}.json`);
}

/**
 * A run directory: `run.json` (settings), `results.jsonl` (one record per finished sample × scenario,
 * appended as each finishes) and `trajectories/KEY.json`. A record is written only when its sample has
 * finished, in a single append, so a kill loses at most the samples in flight; a torn last line from a
 * kill mid-write is cut off when the run is opened again. The file holds one record per key: a record
 * of a key already there (a retry, a later result after a client disconnected) rewrites the file whole
 * with it in the earlier one's place, so that a reader counting lines counts each attempt once.
 */
export class RunStore {
  private readonly records = new Map<string, ResultRecord>();

  /**
   * Refuses to replace a record: an append of a key recorded before (in this session or an earlier one)
   * fails with RECORD_EXISTS and leaves the file as it was. `gitgood mcp` opens its run so when it
   * evaluates (one attempt per sample, never a better later one in its place); `run` and the queue do not,
   * since their retries of failed attempts replace the failure.
   */
  private appendOnly = false;

  private constructor(readonly dir: string) {}

  /**
   * Opens (or creates) a run directory for `config`; refuses one whose identity differs (other samples,
   * agent, model, limits that change results) or that another gitgood version made. Judges, where the
   * repositories are and other settings are updated in run.json.
   */
  static open(dir: string, config: Omit<RunConfig, "created_at">, opts: { appendOnly?: boolean } = {}): RunStore {
    mkdirSync(path.join(dir, TRAJECTORY_DIR), { recursive: true });
    const runFile = path.join(dir, RUN_FILE);
    let createdAt = new Date().toISOString();
    if (existsSync(runFile)) {
      const saved = RunStore.readConfig(dir);
      const differs = identityDifferences(saved.identity, config.identity);
      if (differs.length > 0) {
        throw new GitGoodError(
          "RUN_MISMATCH",
          `${dir} holds a run with other settings (${describeDifferences(saved.identity, config.identity, differs)}); use another --out or the same settings to resume`,
          { differs },
        );
      }
      createdAt = saved.created_at;
    }
    writeJsonAtomic(runFile, { ...config, created_at: createdAt });
    const store = new RunStore(dir);
    store.load();
    store.appendOnly = opts.appendOnly ?? false;
    return store;
  }

  /** Reads and checks a run directory's run.json. */
  static readConfig(dir: string): RunConfig {
    const runFile = path.join(dir, RUN_FILE);
    if (!existsSync(runFile)) throw new GitGoodError("NOT_A_RUN", `${dir} is not a gitgood run directory (no ${RUN_FILE})`);
    let text: string;
    try {
      text = readFileSync(runFile, "utf8");
    } catch (err) {
      const why = fsReason(err);
      throw new GitGoodError("BAD_RUN", `cannot read ${runFile} (${why}); make it a readable file, or use another --out`, { file: runFile });
    }
    if (text.trim() === "") throw new GitGoodError("BAD_RUN", `${runFile} is empty; ${RECREATE}`, { file: runFile });
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      throw new GitGoodError("BAD_RUN", `${runFile} is damaged (not JSON); ${RECREATE}`, { file: runFile });
    }
    const version = (raw as { schema_version?: unknown } | null)?.schema_version;
    if (version !== RESULTS_SCHEMA_VERSION) {
      throw new GitGoodError(
        "RUN_MISMATCH",
        `${dir} was written by another version of gitgood (results format ${String(version)}, this one reads ${RESULTS_SCHEMA_VERSION}); use another --out`,
      );
    }
    const parsed = RunConfigSchema.safeParse(raw);
    if (!parsed.success) throw new GitGoodError("BAD_RUN", `${runFile} is damaged (not a run's settings); ${RECREATE}`, { file: runFile });
    return parsed.data;
  }

  /** Opens an existing run directory as it is (for re-scoring), without changing its settings. */
  static openExisting(dir: string): RunStore {
    RunStore.readConfig(dir);
    const store = new RunStore(dir);
    store.load(false);
    return store;
  }

  /** Reads an existing run directory for reporting. */
  static read(dir: string): { config: RunConfig; records: ResultRecord[] } {
    const config = RunStore.readConfig(dir);
    const store = new RunStore(dir);
    store.load(false);
    return { config, records: store.all() };
  }

  private load(repair = true): void {
    const file = path.join(this.dir, RESULTS_FILE);
    if (!existsSync(file)) return;
    const text = readFileSync(file, "utf8");
    const complete = text.endsWith("\n") ? text : text.slice(0, text.lastIndexOf("\n") + 1);
    if (repair && complete !== text) truncateSync(file, Buffer.byteLength(complete));
    let lines = 0;
    for (const line of complete.split("\n")) {
      if (!line.trim()) continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        continue; // a damaged line is not a finished sample: it runs again
      }
      const parsed = ResultRecordSchema.safeParse(value);
      if (!parsed.success) continue;
      lines++;
      this.records.set(parsed.data.key, parsed.data);
    }
    // A file from before records were kept one per key (or edited by hand) is compacted once.
    if (repair && lines > this.records.size) this.replaceAll(this.all());
  }

  /** The store refuses to replace a record (see `appendOnly`). */
  get keepsRecords(): boolean {
    return this.appendOnly;
  }

  /** Whether the run holds a result for the attempt `key`. */
  has(key: string): boolean {
    return this.records.has(key);
  }

  /** The result recorded for the attempt `key`, if any. */
  get(key: string): ResultRecord | undefined {
    return this.records.get(key);
  }

  /** Records, one per key (a later record of a key replaces an earlier one), in file order. */
  all(): ResultRecord[] {
    return [...this.records.values()];
  }

  /** Appends a record; one of a key recorded before replaces it in place (the file is rewritten whole or not at all), or is refused in an append-only store. */
  append(record: ResultRecord): void {
    if (this.appendOnly && this.records.has(record.key)) {
      throw new GitGoodError("RECORD_EXISTS", `${record.key} is recorded in ${this.dir} already; its record is kept as it is`);
    }
    if (this.records.has(record.key)) {
      this.records.set(record.key, record);
      this.replaceAll(this.all());
      return;
    }
    appendFileSync(path.join(this.dir, RESULTS_FILE), `${JSON.stringify(record)}\n`);
    this.records.set(record.key, record);
  }

  /** Replaces every record (after re-scoring): the results file is rewritten whole or not at all. */
  replaceAll(records: readonly ResultRecord[]): void {
    if (this.appendOnly) throw new GitGoodError("RECORD_EXISTS", `the records in ${this.dir} are kept as they are (an evaluation run)`);
    writeOutputFile(path.join(this.dir, RESULTS_FILE), records.map((r) => `${JSON.stringify(r)}\n`).join(""));
    this.records.clear();
    for (const r of records) this.records.set(r.key, r);
  }

  /** Updates the judges run.json's spec names (after re-scoring with other judges). */
  setJudges(judges: readonly string[]): void {
    const config = RunStore.readConfig(this.dir);
    writeJsonAtomic(path.join(this.dir, RUN_FILE), { ...config, spec: { ...config.spec, [JUDGES.key]: [...judges] } });
  }

  /** Reads a trajectory file (path relative to the run directory) as JSON. */
  readTrajectory(rel: string): unknown {
    const file = path.resolve(this.dir, rel);
    // Inside the trajectories directory; a name that merely starts with ".." (older runs wrote them) is inside.
    const inside = path.relative(path.resolve(this.dir, TRAJECTORY_DIR), file);
    if (inside === "" || inside === ".." || inside.startsWith(`..${path.sep}`) || path.isAbsolute(inside)) {
      throw new GitGoodError("BAD_RUN", `the trajectory path ${rel} leaves the run directory`);
    }
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (err) {
      throw new GitGoodError("BAD_RUN", `cannot read the trajectory ${file} (${fsReason(err)})`, { file });
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new GitGoodError("BAD_RUN", `the trajectory ${file} is damaged (not JSON)`, { file });
    }
  }

  /** Writes a trajectory file and returns its path relative to the run directory (`trajectoryPath`). */
  writeTrajectory(key: string, trajectory: unknown): string {
    if (this.appendOnly && this.records.has(key)) {
      throw new GitGoodError("RECORD_EXISTS", `${key} is recorded in ${this.dir} already; its record and trajectory are kept as they are`);
    }
    const rel = trajectoryPath(key);
    writeOutputFile(path.join(this.dir, rel), `${JSON.stringify(trajectory, null, 1)}\n`);
    return rel;
  }
}
