import { createHash } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { SweSample } from "../../dataset/sample.js";
import { cacheRoot } from "../../testenv/index.js";
import { userSpecOf } from "../evaluate.js";
import { writeOutputFile } from "../../util/output.js";
import type { ValidateOptions, Verdict } from "./validate.js";

/** A verdict as kept between minings. */
type StoredVerdict = Verdict;

const STORE_VERSION = 1;

/**
 * Where `mine --type swe` keeps each candidate's verdict, so that a mining that was stopped starts again
 * without validating anything twice: one file per candidate below the cache root (`swe-mining/`), keyed by
 * everything that decides the verdict (the change, the version, the runs, the scope and the user's spec).
 */
export class VerdictStore {
  private readonly dir: string;

  constructor(repoName: string, cacheDir: string | undefined) {
    this.dir = path.join(cacheDir ?? cacheRoot(), "swe-mining", repoName.replace(/[^A-Za-z0-9._-]+/g, "_"));
  }

  private file(sample: SweSample, o: ValidateOptions, extra = ""): string {
    const sc = sample.scenario;
    const key = createHash("sha256")
      .update(JSON.stringify([STORE_VERSION, sc.base_commit, sc.patch, sc.test_patch, sc.version, o.runs, o.p2p, userSpecOf(sample, o.swe), o.swe.envModel?.model ?? null, extra]))
      .digest("hex")
      .slice(0, 20);
    return path.join(this.dir, `${sc.instance_id.replace(/[^A-Za-z0-9._-]+/g, "_")}-${key}.json`);
  }

  read(sample: SweSample, o: ValidateOptions): StoredVerdict | null {
    try {
      const v = JSON.parse(readFileSync(this.file(sample, o), "utf8")) as StoredVerdict;
      return typeof v.kept === "boolean" ? v : null;
    } catch {
      return null;
    }
  }

  write(sample: SweSample, o: ValidateOptions, verdict: StoredVerdict): void {
    const file = this.file(sample, o);
    mkdirSync(path.dirname(file), { recursive: true });
    writeOutputFile(file, `${JSON.stringify(verdict)}\n`);
  }

  /** A statement a model wrote for an instance, by model and prompt version. */
  readStatement(sample: SweSample, o: ValidateOptions, by: string): string | null {
    try {
      const v = JSON.parse(readFileSync(this.file(sample, o, by), "utf8")) as { statement?: unknown };
      return typeof v.statement === "string" ? v.statement : null;
    } catch {
      return null;
    }
  }

  writeStatement(sample: SweSample, o: ValidateOptions, by: string, statement: string): void {
    const file = this.file(sample, o, by);
    mkdirSync(path.dirname(file), { recursive: true });
    writeOutputFile(file, `${JSON.stringify({ statement })}\n`);
  }
}
