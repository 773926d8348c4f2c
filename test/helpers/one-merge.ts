import { writeFileSync } from "node:fs";
import path from "node:path";
import { mine } from "../../src/mining/mine.js";
import { sampleToJson } from "../../src/dataset/sample.js";
import { Fixture } from "./fixture.js";

/** A repository holding exactly one mined merge (acme/calc, one conflict in a.py), its samples file and a sandbox root. */
export interface OneMerge {
  fx: Fixture;
  samplesFile: string;
  env: Record<string, string>;
}

/** Builds the one-merge repository with real git, mines it, and writes its samples file (call `fx.remove()` after). */
export async function oneMergeFixture(): Promise<OneMerge> {
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
