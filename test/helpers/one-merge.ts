import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll } from "vitest";
import { readDataset } from "../../src/dataset/importer.js";
import { mine } from "../../src/mining/mine.js";
import { sampleToJson, type Sample } from "../../src/dataset/sample.js";
import { captureSink, gitgood, type CliResult } from "./cli.js";
import { Fixture } from "./fixture.js";

/** A repository holding exactly one mined merge (acme/calc, one conflict in a.py), its samples file and a sandbox root. */
export interface OneMerge {
  fx: Fixture;
  samplesFile: string;
  env: Record<string, string>;
}

/** Builds the one-merge repository with real git, mines it, and writes its samples file (call `fx.remove()` after). */
async function oneMergeFixture(): Promise<OneMerge> {
  const fx = new Fixture();
  fx.git("remote", "add", "origin", "https://github.com/acme/calc.git");
  fx.commit("Initial", { "a.py": Fixture.lines("a", 20) });
  fx.checkout("topic", true);
  fx.commit("Topic", { "a.py": Fixture.lines("a", 20).replace("a3\n", "a3 topic\n") });
  fx.checkout("main");
  fx.commit("Main", { "a.py": Fixture.lines("a", 20).replace("a3\n", "a3 main\n") });
  fx.merge("topic", { "a.py": Fixture.lines("a", 20).replace("a3\n", "a3 both\n") });
  const { samples } = await mine({ repoPath: fx.dir, name: "acme/calc", type: "merge" });
  if (samples.length !== 1) throw new Error(`the fixture gave ${samples.length} merge samples, not 1`);
  const samplesFile = path.join(fx.scratch("data"), "samples.jsonl");
  writeFileSync(samplesFile, samples.map((s) => `${sampleToJson(s)}\n`).join(""));
  return { fx, samplesFile, env: { GITGOOD_SANDBOX_ROOT: fx.scratch("sandboxes") } };
}

/** The one merge of a test file, built before its tests and removed after them, and how its tests run gitgood on it. */
export interface OneMergeRuns extends OneMerge {
  /** The merge's one sample, as `readDataset` reads it from the samples file. */
  sample: Sample;
  /** `gitgood run` of the samples file into `out`, with the agent's arguments `useOneMerge` was given and `extra`, in `cwd` when given. */
  run(out: string, extra: string[], cwd?: string): Promise<CliResult>;
  /** The run.json of the run in `dir`, as the test file's type of it. */
  readRunJson<T>(dir: string): T;
  /** Output and input for `buildProgram` that keep what it writes out of the test's output. */
  silent: { stdout: ReturnType<typeof captureSink>; stderr: ReturnType<typeof captureSink>; stdin: Readable };
}

/**
 * Builds the one merge before the test file's tests (`beforeAll`) and removes it after them (`afterAll`).
 * Each `run` passes `agent` first (by default the oracle; `[]`: the test names the agent itself). The fields
 * are there once the file's tests run; a test file may add variables to `env` in a `beforeAll` of its own (the
 * helper's runs first).
 */
export function useOneMerge(agent: readonly string[] = ["--agent", "oracle"]): OneMergeRuns {
  let made: (OneMerge & { sample: Sample }) | undefined;
  const ready = (): OneMerge & { sample: Sample } => {
    if (made === undefined) throw new Error("the one merge is built in beforeAll: use it in a test or a later hook");
    return made;
  };
  beforeAll(async () => {
    const merge = await oneMergeFixture();
    const [sample] = (await readDataset([merge.samplesFile])).samples;
    if (!sample) throw new Error("the fixture has no sample");
    made = { ...merge, sample };
  });
  afterAll(() => made?.fx.remove());
  return {
    get fx() {
      return ready().fx;
    },
    get samplesFile() {
      return ready().samplesFile;
    },
    get env() {
      return ready().env;
    },
    get sample() {
      return ready().sample;
    },
    run(out, extra, cwd) {
      const { fx, samplesFile, env } = ready();
      return gitgood(["run", samplesFile, "--repo", fx.dir, ...agent, "--out", out, ...extra], { env, ...(cwd ? { cwd } : {}) });
    },
    readRunJson: <T>(dir: string) => JSON.parse(readFileSync(path.join(dir, "run.json"), "utf8")) as T,
    silent: { stdout: captureSink(), stderr: captureSink(), stdin: Readable.from([]) },
  };
}
