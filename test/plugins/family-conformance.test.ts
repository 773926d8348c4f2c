import { afterAll, describe, it } from "vitest";
import type { Sample } from "../../src/dataset/sample.js";
import { GITGOODBENCH_FAMILY } from "../../src/families/gitgoodbench/index.js";
import { unregisterFamily } from "../../src/families/registry.js";
import { mine } from "../../src/mining/mine.js";
import { familyConformance } from "../../src/testing.js";
// @ts-expect-error -- the example is plain JavaScript, without types of its own
import { TOY_FAMILY, toySample } from "../../examples/toy-family/index.js";
import { Fixture } from "../helpers/fixture.js";
import { buildMergeFixture } from "../helpers/scenarios.js";

// The family suite a plug-in's family must pass, run on a built-in family and on the example plug-in.
const merge = buildMergeFixture();
const toyRepo = new Fixture();
toyRepo.commit("start", { "README.md": "toy\n" });

afterAll(() => {
  unregisterFamily("TOYSUM");
  merge.fx.remove();
  toyRepo.remove();
});

describe("GitGoodBench (mined merges)", () => {
  const fixture = { repo: merge.fx.dir, mine: async (repo: string) => (await mine({ repoPath: repo, type: "merge" })).samples };
  for (const check of familyConformance(GITGOODBENCH_FAMILY, fixture)) it.skipIf(check.skip !== null)(check.name, check.run, 300_000);
});

describe("the toy family of examples/toy-family", () => {
  const fixture = { repo: toyRepo.dir, mine: async () => [toySample("toy_sum_0000", "acme/toy", 2, 3), toySample("toy_sum_0001", "acme/toy", 40, 2)] as Sample[] };
  for (const check of familyConformance(TOY_FAMILY, fixture)) it.skipIf(check.skip !== null)(check.name, check.run, 300_000);
});
