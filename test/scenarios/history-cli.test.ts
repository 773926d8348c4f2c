import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleToJson } from "../../src/dataset/sample.js";
import { gitgood, type CliOptions, type CliResult } from "../helpers/cli.js";
import { Fixture, fixtureEnv } from "../helpers/fixture.js";
import { mergeSample, useSandboxRoot } from "../helpers/scenarios.js";

let root: ReturnType<typeof useSandboxRoot>;
let fx: Fixture;
let samples: string;
let old: string[];

beforeAll(() => {
  root = useSandboxRoot();
  fx = new Fixture();
  const conf = (middle: string): string => `top\n${middle}\nbottom\n`;
  old = [0, 1, 2, 3].map((i) => fx.commit(`old ${i}`, { "hist.txt": `${i}\n`, "conf.py": conf("base") }));
  fx.checkout("feature", true);
  fx.commit("feature side", { "conf.py": conf("feature") });
  fx.checkout("main");
  fx.commit("main side", { "conf.py": conf("main"), "README": "readme\n" });
  const merge = fx.merge("feature", { "conf.py": conf("both") });
  samples = path.join(root.root, "..", `history-samples-${process.pid}.jsonl`);
  writeFileSync(samples, `${sampleToJson(mergeSample(fx, merge, ["conf.py"]))}\n`);
});
afterAll(() => {
  rmSync(samples, { force: true });
  fx.remove();
  root.cleanup();
});

const cli = (args: string[], opts: CliOptions = {}): Promise<CliResult> =>
  gitgood(args, { ...opts, env: { GITGOOD_SANDBOX_ROOT: root.root, GITGOOD_SANDBOX: "", ...opts.env } });

const logOf = (dir: string): string[] =>
  execFileSync("git", ["log", "--format=%s", "HEAD"], { cwd: dir, env: fixtureEnv(), encoding: "utf8" }).split("\n").filter(Boolean);

describe("--history", () => {
  it("gitgood env cuts the sandbox's history where it says, and writes the whole work tree", async () => {
    for (const [history, expected] of [
      ["1", ["main side", "old 3"]],
      ["2", ["main side", "old 3", "old 2"]],
      ["full", ["main side", "old 3", "old 2", "old 1", "old 0"]],
    ] as const) {
      const env = await cli(["env", samples, "--id", "acme_widgets_merge_0000", "--repo", fx.dir, "--history", history, "--json"]);
      expect(env.code, env.stderr).toBe(0);
      const work = path.join((JSON.parse(env.stdout) as { sandbox: string }).sandbox, "work");
      expect(logOf(work)).toEqual(expected);
      const shallow = path.join(work, ".git", "shallow");
      expect(existsSync(shallow) ? readFileSync(shallow, "utf8").trim() : "").toBe(history === "full" ? "" : (old[4 - Number(history)] as string));
      expect(existsSync(path.join(work, "README"))).toBe(true);
      expect(existsSync(path.join(work, "hist.txt"))).toBe(true);
      expect((await cli(["env", "--finish", "--sandbox", path.dirname(work)])).code).toBe(0);
    }
  });

  it("takes a number of commits from 1 up, or full; anything else is a usage error", async () => {
    for (const bad of ["0", "-3", "many", "1.5"]) {
      const r = await cli(["env", samples, "--id", "acme_widgets_merge_0000", "--repo", fx.dir, "--history", bad]);
      expect(r.code, bad).toBe(2);
      expect(r.stderr).toContain("--history takes a number of commits (1 or more) or 'full'");
    }
    const run = await cli(["run", samples, "--repo", fx.dir, "--agent", "union", "--history", "0", "--out", path.join(root.root, "..", `run-${process.pid}`)]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--history takes");
  });
});
