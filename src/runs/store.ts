import { appendFileSync, existsSync, mkdirSync, readFileSync, truncateSync } from "node:fs";
import path from "node:path";
import { GitGoodError } from "../errors.js";
import { writeOutputFile } from "../util/output.js";
import { RESULTS_SCHEMA_VERSION, ResultRecordSchema, fileSafeName, type ResultRecord } from "./record.js";

export const RESULTS_FILE = "results.jsonl";
export const RUN_FILE = "run.json";
export const TRAJECTORY_DIR = "trajectories";

/** What identifies a run: re-running with the same settings resumes it. */
export interface RunConfig {
  samples: string;
  agent: string;
  [setting: string]: unknown;
}

/**
 * A run directory: `run.json` (settings), `results.jsonl` (one record per finished sample × scenario,
 * appended as each finishes) and `trajectories/KEY.json`. A record is written only when its sample has
 * finished, in a single append, so a kill loses at most the samples in flight; a torn last line from a
 * kill mid-write is cut off when the run is opened again.
 */
export class RunStore {
  private readonly records = new Map<string, ResultRecord>();

  private constructor(readonly dir: string) {}

  /** Opens (or creates) a run directory for `config`; refuses one made with other settings. */
  static open(dir: string, config: RunConfig): RunStore {
    mkdirSync(path.join(dir, TRAJECTORY_DIR), { recursive: true });
    const runFile = path.join(dir, RUN_FILE);
    const wanted = { schema_version: RESULTS_SCHEMA_VERSION, ...config };
    if (existsSync(runFile)) {
      const saved = JSON.parse(readFileSync(runFile, "utf8")) as Record<string, unknown>;
      const differs = Object.keys({ ...saved, ...wanted }).filter(
        (k) => k !== "created_at" && JSON.stringify(saved[k]) !== JSON.stringify((wanted as Record<string, unknown>)[k]),
      );
      if (differs.length > 0) {
        throw new GitGoodError(
          "RUN_MISMATCH",
          `${dir} holds a run with other settings (${differs.join(", ")}); use another --out or the same settings to resume`,
          { differs },
        );
      }
    } else {
      writeOutputFile(runFile, `${JSON.stringify({ ...wanted, created_at: new Date().toISOString() }, null, 2)}\n`);
    }
    const store = new RunStore(dir);
    store.load();
    return store;
  }

  /** Reads an existing run directory for reporting. */
  static read(dir: string): { config: Record<string, unknown>; records: ResultRecord[] } {
    const runFile = path.join(dir, RUN_FILE);
    if (!existsSync(runFile)) throw new GitGoodError("NOT_A_RUN", `${dir} is not a gitgood run directory (no ${RUN_FILE})`);
    const config = JSON.parse(readFileSync(runFile, "utf8")) as Record<string, unknown>;
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
    for (const line of complete.split("\n")) {
      if (!line.trim()) continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        continue; // a damaged line is not a finished sample: it runs again
      }
      const parsed = ResultRecordSchema.safeParse(value);
      if (parsed.success) this.records.set(parsed.data.key, parsed.data);
    }
  }

  has(key: string): boolean {
    return this.records.has(key);
  }

  get(key: string): ResultRecord | undefined {
    return this.records.get(key);
  }

  /** Records, one per key (a later record of a key replaces an earlier one), in file order. */
  all(): ResultRecord[] {
    return [...this.records.values()];
  }

  append(record: ResultRecord): void {
    appendFileSync(path.join(this.dir, RESULTS_FILE), `${JSON.stringify(record)}\n`);
    this.records.set(record.key, record);
  }

  /**
   * Writes a trajectory file and returns its path relative to the run directory. The file is named
   * after the key when the key is a plain file name (result keys and their `+variant` suffixes are),
   * else after a short safe form of it.
   */
  writeTrajectory(key: string, trajectory: unknown): string {
    const name = /^[A-Za-z0-9._~+-]{1,150}$/.test(key) && !/^\.\.?$/.test(key) ? key : fileSafeName(key);
    const rel = path.join(TRAJECTORY_DIR, `${name}.json`);
    writeOutputFile(path.join(this.dir, rel), `${JSON.stringify(trajectory, null, 1)}\n`);
    return rel;
  }
}
