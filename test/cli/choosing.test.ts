import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleToJson, type Sample } from "../../src/dataset/sample.js";
import { scenarioNames } from "../../src/scenarios/registry.js";
import { gitgood } from "../helpers/cli.js";
import type { Fixture } from "../helpers/fixture.js";
import { buildRunFixture } from "../helpers/runs.js";

let fx: Fixture;
let samples: Sample[];
let samplesFile: string;
let env: Record<string, string>;
let n = 0;

beforeAll(async () => {
  ({ fx, samples } = await buildRunFixture());
  samplesFile = path.join(fx.scratch("data"), "samples.jsonl");
  writeFileSync(samplesFile, samples.map((s) => `${sampleToJson(s)}\n`).join(""));
  env = { GITGOOD_SANDBOX_ROOT: fx.scratch("sandboxes") };
});
afterAll(() => fx.remove());

const out = () => path.join(fx.scratch(`runs-${n++}`), "run");
const keysIn = (dir: string) =>
  readFileSync(path.join(dir, "results.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => (JSON.parse(l) as { key: string }).key)
    .sort();
/** The identity's settings (`identity.spec`): the selection is part of the run spec. */
const identityOf = (dir: string) => (JSON.parse(readFileSync(path.join(dir, "run.json"), "utf8")) as { identity: { spec?: Record<string, unknown> } }).identity.spec ?? {};

describe("gitgood run: choosing what runs", () => {
  it("--scenario ir runs only the IR attempt of a chain, records the filter in the identity and refuses another one on resume", async () => {
    const chain = samples.find((s) => s.sample_type === "file_commit_chain")!;
    const dir = out();
    const r = await gitgood(["run", samplesFile, "--repo", fx.dir, "--agent", "oracle", "--scenario", "ir", "--out", dir], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(keysIn(dir)).toEqual([`${chain.id}.IR`]);
    expect(identityOf(dir).scenarios).toEqual(["IR"]);
    const other = await gitgood(["run", samplesFile, "--repo", fx.dir, "--agent", "oracle", "--scenario", "MCR,ICC", "--out", dir], { env });
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/^gitgood: .* holds a run with other settings \(samples_digest: "sha256:\w+" -> "sha256:\w+"; spec\.scenarios: \["IR"\] -> \["ICC","MCR"\]\); use another --out or the same settings to resume\n$/);
    const bad = await gitgood(["run", samplesFile, "--repo", fx.dir, "--scenario", "merge", "--out", out()], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(`gitgood: unknown scenario 'merge'; the scenarios are ${scenarioNames().join(", ")}\n`);
  });

  it("--difficulty and --language (any case) combine, --sample N --seed S draws the same samples twice, --limit keeps the first", async () => {
    const easy = samples.filter((s) => s.difficulty === "easy" && s.programming_language === "Python");
    expect(easy.length).toBeGreaterThan(0);
    const dir = out();
    const r = await gitgood(["run", samplesFile, "--repo", fx.dir, "--agent", "oracle", "--difficulty", "easy", "--language", "PYTHON", "--out", dir], { env });
    expect(r.code, r.stderr).toBe(0);
    const scenarios = (s: Sample) => (s.sample_type === "merge" ? ["MCR"] : ["IR", "ICC"]);
    expect(keysIn(dir)).toEqual(easy.flatMap((s) => scenarios(s).map((x) => `${s.id}.${x}`)).sort());
    expect(easy.length).toBeLessThan(samples.length);
    expect(identityOf(dir)).toMatchObject({ difficulties: ["easy"], languages: ["python"] });

    const none = await gitgood(["run", samplesFile, "--repo", fx.dir, "--language", "kotlin", "--out", out()], { env });
    expect(none.code).toBe(2);
    expect(none.stderr).toBe(`gitgood: no sample matches --language kotlin (of ${samples.length} samples)\n`);
    const wrong = await gitgood(["run", samplesFile, "--repo", fx.dir, "--difficulty", "tough", "--out", out()], { env });
    expect(wrong.stderr).toBe("gitgood: --difficulty takes easy, medium, hard (comma-separated), not 'tough'\n");

    const drawn = async () => {
      const d = out();
      const res = await gitgood(["run", samplesFile, "--repo", fx.dir, "--agent", "oracle", "--scenario", "mcr", "--sample", "1", "--seed", "4", "--out", d], { env });
      expect(res.code, res.stderr).toBe(0);
      return { keys: keysIn(d), identity: identityOf(d) };
    };
    const first = await drawn();
    expect(first.keys).toHaveLength(1);
    expect(first.identity).toMatchObject({ sample: { size: 1, seed: 4 }, scenarios: ["MCR"] });
    expect((await drawn()).keys).toEqual(first.keys);

    const limited = out();
    expect((await gitgood(["run", samplesFile, "--repo", fx.dir, "--agent", "oracle", "--scenario", "mcr", "--limit", "1", "--out", limited], { env })).code).toBe(0);
    expect(keysIn(limited)).toEqual([`${samples.find((s) => s.sample_type === "merge")!.id}.MCR`]);
  });
});

describe("gitgood run --dry-run", () => {
  it("prints the plan, creates nothing, and exits 0", async () => {
    const dir = out();
    const r = await gitgood(["run", samplesFile, "--repo", fx.dir, "--dry-run", "--out", dir], { env });
    expect(r.code, r.stderr).toBe(0);
    const chains = samples.filter((s) => s.sample_type === "file_commit_chain").length;
    const merges = samples.length - chains;
    expect(r.stdout).toContain(`plan: ${samples.length} samples × their scenarios = ${merges + 2 * chains} sample × scenario pairs = ${merges + 2 * chains} attempts (agent baseline)`);
    expect(r.stdout).toMatch(/^scenario\s+easy\s+medium\s+hard\s+total$/m);
    expect(r.stdout).toMatch(new RegExp(`^MCR\\s+(\\d+\\s+){3}${merges}$`, "m"));
    expect(r.stdout).toContain(`acme/calc  present`);
    expect(r.stdout).toContain("model calls by the agent: none through gitgood (agent baseline)");
    expect(r.stdout).toContain(`dry run: nothing was run, ${dir} was not created`);
    expect(existsSync(dir)).toBe(false);
  });

  it("counts the model calls to expect and shows a missing clone, as JSON too", async () => {
    const clones = fx.scratch("no-clones");
    const dir = out();
    const r = await gitgood(
      ["run", samplesFile, "--repos", clones, "--agent", "llm", "--model", "m", "--judge", "j1,j2", "--max-turns", "5", "--scenario", "ir,mcr", "--dry-run", "--json", "--out", dir],
      { env },
    );
    expect(r.code, r.stderr).toBe(0);
    const plan = JSON.parse(r.stdout) as Record<string, unknown>;
    const chains = samples.filter((s) => s.sample_type === "file_commit_chain").length;
    const attempts = samples.length;
    expect(plan).toMatchObject({
      dry_run: true,
      run_directory: dir,
      attempts,
      modelCalls: { agent: attempts * 5, judge: chains * 2 * 4 },
      repositories: [{ name: "acme/calc", status: "missing", path: path.join(clones, "acme", "calc") }],
    });
    expect(existsSync(dir)).toBe(false);
  });
});

describe("gitgood bench --dry-run", () => {
  it("mines and plans without writing anything under --out", async () => {
    const dest = path.join(fx.scratch("bench-dry"), "out");
    mkdirSync(path.dirname(dest), { recursive: true });
    const r = await gitgood(["bench", fx.dir, "--out", dest, "--dry-run", "--scenario", "mcr"], { env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^MCR\s+/m);
    expect(r.stdout).not.toMatch(/^IR\s+/m);
    expect(existsSync(dest)).toBe(false);
  });
});
