import { writeFileSync } from "node:fs";
import { afterAll, beforeAll } from "vitest";
import { sampleToJson, type MergeSample } from "../../src/dataset/sample.js";
import type { ResultRecord } from "../../src/runs/record.js";
import { builtLater } from "./built-later.js";
import { gitgood, type CliResult } from "./cli.js";
import type { Fixture } from "./fixture.js";
import { recordsIn } from "./mcp.js";
import { buildRunFixture, tempDirs } from "./runs.js";

/** The run fixture of a test file, its samples written to a file, and where the file's runs go. */
export interface RunFixtureFile {
  /** The fixture's repository (its `dir` is what `--repo` names). */
  fx: Fixture;
  /** The easy merge, the sample these files run. */
  easy: MergeSample;
  /** The samples file: every sample of the fixture, one a line. */
  samplesFile: string;
  /** A path in the file's temporary directory; each run goes to a directory of its own named `${out}-NAME`. */
  out: string;
  /** `gitgood run` of the easy merge (the samples file, `--ids` it, `--repo` the fixture) with `args` and the variables `env` sets. */
  runEasy(args: string[], env?: Record<string, string>): Promise<CliResult>;
  /** The easy merge's MCR record in the run directory `out`, if it has one. */
  easyRecord(out: string): ResultRecord | undefined;
}

/**
 * Builds the run fixture before the test file's tests (`beforeAll`), with a temporary directory as the sandbox
 * root (`tempDirs`) and the samples file in it, and removes them after (`afterAll`). The fields are there once the
 * file's tests run; a file's own `beforeAll` (registered after this call) may use them.
 */
export function useRunFixture(): RunFixtureFile {
  let made: (RunFixtureFile & { cleanup: () => void }) | undefined;
  beforeAll(async () => {
    const { fx, samples } = await buildRunFixture();
    const easy = samples.find((s): s is MergeSample => s.sample_type === "merge" && s.difficulty === "easy") as MergeSample;
    const dirs = tempDirs();
    const samplesFile = `${dirs.out}-samples.jsonl`;
    writeFileSync(samplesFile, samples.map((s) => `${sampleToJson(s)}\n`).join(""));
    made = {
      fx,
      easy,
      samplesFile,
      out: dirs.out,
      runEasy: (args, env = {}) => gitgood(["run", samplesFile, "--ids", easy.id, "--repo", fx.dir, ...args], { env }),
      easyRecord: (out) => recordsIn(out)[`${easy.id}.MCR`],
      cleanup: dirs.cleanup,
    };
  });
  afterAll(() => {
    made?.cleanup();
    made?.fx.remove();
  });
  return builtLater(() => made, "the run fixture");
}
