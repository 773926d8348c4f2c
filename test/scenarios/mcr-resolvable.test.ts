import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/agents/index.js";
import { sampleToJson, type MergeSample } from "../../src/dataset/sample.js";
import { runConfig } from "../../src/runs/config.js";
import { runBenchmark } from "../../src/runs/runner.js";
import { RunStore } from "../../src/runs/store.js";
import { setupScenario } from "../../src/scenarios/index.js";
import type { McrScenario } from "../../src/scenarios/mcr/scenario.js";
import type { LiveScenario } from "../../src/scenarios/types.js";
import type { MergeScore } from "../../src/scoring/merge.js";
import { gitgood } from "../helpers/cli.js";
import type { Fixture } from "../helpers/fixture.js";
import { buildMergeFixture, buildUnresolvableFixture, snapshot, useSandboxRoot } from "../helpers/scenarios.js";

let root: ReturnType<typeof useSandboxRoot>;
let fx: Fixture;
let outside: MergeSample;
let elsewhere: MergeSample;
let fair: MergeSample;
const open: LiveScenario[] = [];
let runs = 0;

beforeAll(() => {
  root = useSandboxRoot();
  ({ fx, outside, elsewhere, fair } = buildUnresolvableFixture());
});
afterAll(() => {
  fx.remove();
  root.cleanup();
});
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});

async function start(sample: MergeSample, settings: Record<string, unknown> = {}, workTree: "full" | "tools" = "full"): Promise<McrScenario> {
  const s = await setupScenario(sample, fx.dir, { settings, workTree });
  open.push(s);
  return s as McrScenario;
}

async function oracleRun(samples: MergeSample[], settings: Record<string, unknown>) {
  const agent = createAgent("oracle");
  const store = RunStore.open(path.join(root.root, `run-${runs++}`), runConfig({ samples: ["test"], agent: agent.name }, (p) => p));
  const summary = await runBenchmark({ samples, where: { repo: fx.dir }, agent, store, jobs: 1, spec: { timeout_s: 60, max_turns: 10 }, judges: [], settings });
  return Object.fromEntries(summary.records.map((r) => [r.sample_id, r]));
}

describe("MCR resolvability", () => {
  it("is computed at set-up for a sample without the flag, with the first offending path", async () => {
    expect(outside.scenario.resolvable).toBeUndefined();
    const a = await start(outside);
    expect(a.resolvable).toBe(false);
    expect(a.unresolvableReason).toMatch(/^app\.py: edited outside its conflict regions/);
    const b = await start(elsewhere);
    expect(b.resolvable).toBe(false);
    // git's order: new/dir/extra.py comes before run.py and util.py.
    expect(b.unresolvableReason).toMatch(/^new\/dir\/extra\.py: changed in the merge without a conflict/);
    const c = await start(fair);
    expect([c.resolvable, c.unresolvableReason]).toEqual([true, null]);
    // A sample written without the reason: set-up finds it.
    const flagged = await start({ ...outside, scenario: { ...outside.scenario, resolvable: false } });
    expect(flagged.unresolvableReason).toMatch(/^app\.py:/);
    // A sample that says why (as the miner writes it) is taken at its word: nothing is re-merged.
    const said = { ...outside, scenario: { ...outside.scenario, resolvable: false, unresolvable_reason: "app.py: as the sample says" } };
    expect((await start(said)).unresolvableReason).toBe("app.py: as the sample says");
    const line = JSON.parse(sampleToJson(said)) as { scenario: Record<string, unknown> };
    expect(Object.keys(line.scenario).slice(-2)).toEqual(["resolvable", "unresolvable_reason"]);
  });

  it("the oracle records an unresolvable merge as success/unsolved with the reason, and solves a resolvable one", async () => {
    const before = snapshot(fx);
    const byId = await oracleRun([outside, elsewhere, fair], {});
    for (const s of [outside, elsewhere]) {
      const r = byId[s.id];
      expect(r, s.id).toMatchObject({ status: "success", verdict: "unsolved", solved: false, error: null });
      const score = r?.scores.exact_match as MergeScore;
      expect(score.resolvable).toBe(false);
      expect(score.unresolvable_reason).toMatch(s === outside ? /^app\.py: edited outside/ : /^new\/dir\/extra\.py: changed in the merge/);
    }
    expect(byId[fair.id]).toMatchObject({ status: "success", verdict: "solved", solved: true });
    expect(byId[fair.id]?.scores.exact_match).toMatchObject({ resolvable: true, unresolvable_reason: null, tree_matches: true });
    expect(snapshot(fx)).toEqual(before);
  });

  it("with --mcr-tools extended the oracle reaches the recorded tree of unresolvable merges too", async () => {
    const byId = await oracleRun([outside, elsewhere, fair], { mcrTools: "extended" });
    for (const s of [outside, elsewhere, fair]) {
      expect(byId[s.id], s.id).toMatchObject({ status: "success", verdict: "solved", solved: true });
      expect(byId[s.id]?.scores.exact_match).toMatchObject({ tree_matches: true, conflicts_left: 0 });
    }
  });
});

describe("MCR tool sets", () => {
  const PUBLISHED = [
    "view_current_merge_conflict_with",
    "view_merge_conflict_at",
    "resolve_current_merge_conflict_with",
    "view_diff_for",
    "view_file_at",
  ];

  it("paper offers exactly the published tools; extended adds write_file_at; anything else is refused", async () => {
    const paper = await start(fair);
    expect(paper.toolNames()).toEqual(PUBLISHED);
    expect(paper.functionTools().map((t) => t.function.name)).toEqual(PUBLISHED);
    const refused = await paper.callTool("write_file_at", { relative_path_from_project_root: "util.py", content: "x\n", reason: "r" });
    expect(refused.error?.code).toBe("UNKNOWN_TOOL");
    const extended = await start(fair, { mcrTools: "extended" });
    expect(extended.toolNames()).toEqual([...PUBLISHED, "write_file_at"]);
    const params = extended.functionTools().find((t) => t.function.name === "write_file_at")?.function.parameters as { required: string[] };
    expect(params.required).toEqual(expect.arrayContaining(["relative_path_from_project_root", "content", "reason"]));
    await expect(setupScenario(fair, fx.dir, { settings: { mcrTools: "everything" } })).rejects.toMatchObject({ code: "BAD_OPTION" });
  });

  it("writes files whole, in conflict order, never through links, and commits them with the merge", async () => {
    const s = await start(elsewhere, { mcrTools: "extended" });
    const call = (args: Record<string, unknown>) => s.callTool("write_file_at", { reason: "test", ...args });
    expect((await call({ relative_path_from_project_root: "link.py", content: "x" })).error?.code).toBe("SYMLINK_REFUSED");
    expect((await call({ relative_path_from_project_root: "link.py/inner", content: "x" })).error?.code).toBe("SYMLINK_REFUSED");
    expect((await call({ relative_path_from_project_root: ".git/config", content: "x" })).error?.code).toBe("PATH_OUTSIDE");
    expect((await call({ relative_path_from_project_root: "../escape.py", content: "x" })).error?.code).toBe("PATH_OUTSIDE");
    expect((await call({ relative_path_from_project_root: "new", content: "x" })).ok).toBe(true);
    expect((await call({ relative_path_from_project_root: "new/inner.py", content: "x" })).error?.code).toBe("NOT_A_FILE");
    const other = await call({ relative_path_from_project_root: "util.py", content: "u = 2\n" });
    expect(other.output).toMatch(/Wrote util\.py \(6 bytes\); it is committed with the merge/);
    expect(s.isDone()).toBe(false);
    const whole = await call({ relative_path_from_project_root: "lib.py", content: "whole\n" });
    expect(whole.ok).toBe(true);
    expect(whole.output).toMatch(/resolves conflict\(s\) 0; 0 conflict\(s\) left/);
    expect(s.isDone()).toBe(true);
    const committed = (await s.sandbox.text(["diff", "--name-status", "HEAD^1", "HEAD"])).split("\n").filter(Boolean).sort();
    expect(committed).toEqual(["A\tnew", "M\tlib.py", "M\tutil.py"]);
    expect(await s.sandbox.text(["show", "HEAD:lib.py"])).toBe("whole\n");
    expect((await call({ relative_path_from_project_root: "util.py", content: "late\n" })).error?.code).toBe("NO_CONFLICT");
    expect(existsSync(path.join(fx.dir, "..", "escape.py"))).toBe(false);
  });

  it("refuses a conflicted file whose conflicts are not current yet", async () => {
    const two = buildMergeFixture();
    try {
      const s = (await setupScenario(two.sample, two.fx.dir, { settings: { mcrTools: "extended" } })) as McrScenario;
      open.push(s);
      // win.py holds conflicts 0 and 1; app.py's come after them.
      const early = await s.callTool("write_file_at", { relative_path_from_project_root: "app.py", content: "x\n", reason: "r" });
      expect(early.error?.code).toBe("NOT_CURRENT");
      expect(early.output).toMatch(/conflict 0 in win\.py comes first/);
      const now = await s.callTool("write_file_at", { relative_path_from_project_root: "win.py", content: "w\r\n", reason: "r" });
      expect(now.output).toMatch(/resolves conflict\(s\) 0, 1; 2 conflict\(s\) left/);
      expect(now.output).toMatch(/The current conflict is now 2 in app\.py/);
    } finally {
      two.fx.remove();
    }
  });

  it("in a sandbox for tool-only agents, an unwritten file keeps its mode when written", async () => {
    const s = await start(elsewhere, { mcrTools: "extended" }, "tools");
    expect(existsSync(path.join(s.sandbox.workDir, "run.py"))).toBe(false);
    await s.callTool("write_file_at", { relative_path_from_project_root: "run.py", content: "print(\"merged\")\n", reason: "r" });
    await s.callTool("resolve_current_merge_conflict_with", { content: "MAIN+SIDE\n", reason: "r" });
    expect(s.isDone()).toBe(true);
    const entry = await s.sandbox.text(["ls-tree", "HEAD", "run.py"]);
    expect(entry).toMatch(/^100755 blob /);
    expect(await s.sandbox.text(["show", "HEAD:run.py"])).toBe("print(\"merged\")\n");
    // Every other file is still in the merge, unchanged.
    expect(await s.sandbox.text(["show", "HEAD:util.py"])).toBe("u = 1\n");
  });
});

describe("gitgood env --mcr-tools", () => {
  it("offers write_file_at with extended, and refuses an unknown set in one line", async () => {
    const file = path.join(root.root, "evil.jsonl");
    writeFileSync(file, `${sampleToJson(elsewhere)}\n`);
    const env = { GITGOOD_SANDBOX_ROOT: root.root, GITGOOD_SANDBOX: "" };
    const r = await gitgood(["env", file, "--id", elsewhere.id, "--repo", fx.dir, "--mcr-tools", "extended", "--json"], { env });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { sandbox: string; tools: { function: { name: string } }[] };
    expect(out.tools.map((t) => t.function.name)).toContain("write_file_at");
    expect((await gitgood(["env", "--finish", "--sandbox", out.sandbox, "--json"], { env })).code).toBe(0);
    const bad = await gitgood(["env", file, "--id", elsewhere.id, "--repo", fx.dir, "--mcr-tools", "all"], { env });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr.trim().split("\n")).toHaveLength(1);
    expect(bad.stderr).toMatch(/--mcr-tools/);
  });
});
