import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ChainSample, MergeSample } from "../../src/dataset/sample.js";
import { Repo } from "../../src/git/repo.js";
import type { WorkTreeMode } from "../../src/git/shared-clone.js";
import type { ScenarioSession, Strategy } from "../../src/scenarios/definition.js";
import { ICC } from "../../src/scenarios/icc/index.js";
import { setupScenario } from "../../src/scenarios/index.js";
import { MCR } from "../../src/scenarios/mcr/index.js";
import type { McrScenario } from "../../src/scenarios/mcr/scenario.js";
import type { McrFinalState } from "../../src/scenarios/mcr/state.js";
import type { LiveScenario, ScenarioToolResult } from "../../src/scenarios/types.js";
import { scoreMerge, type MergeOutcome } from "../../src/scoring/merge.js";
import { Fixture } from "../helpers/fixture.js";
import { buildChainFixture, mergeSample, useSandboxRoot } from "../helpers/scenarios.js";

/**
 * A sandbox for tool-only agents writes only the files the scenario touches; everything an agent can
 * learn through the tools, and everything scored, must be the same as with the whole work tree.
 */

let root: ReturnType<typeof useSandboxRoot>;
const fixtures: Fixture[] = [];
const open: LiveScenario[] = [];
const reason = "test";

beforeAll(() => {
  root = useSandboxRoot();
});
afterAll(() => {
  for (const f of fixtures) f.remove();
  root.cleanup();
});
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});

/** The files of a work tree (`.git` aside), sorted, with forward slashes. */
function filesIn(dir: string, prefix = ""): string[] {
  return readdirSync(dir)
    .filter((n) => !(prefix === "" && n === ".git"))
    .flatMap((n) => (statSync(path.join(dir, n)).isDirectory() ? filesIn(path.join(dir, n), `${prefix}${n}/`) : [`${prefix}${n}`]))
    .sort();
}

async function both(sample: MergeSample | ChainSample, repo: string, scenario?: string): Promise<Record<WorkTreeMode, LiveScenario>> {
  const made = {} as Record<WorkTreeMode, LiveScenario>;
  for (const workTree of ["full", "tools"] as const) {
    made[workTree] = await setupScenario(sample, repo, { scenario, workTree });
    open.push(made[workTree]);
  }
  return made;
}

/** Calls a tool in both sandboxes; the results must be identical. */
async function same(s: Record<WorkTreeMode, LiveScenario>, tool: string, args: Record<string, unknown> = {}): Promise<ScenarioToolResult> {
  const full = await s.full.callTool(tool, { ...args, reason });
  expect(await s.tools.callTool(tool, { ...args, reason }), `${tool} ${JSON.stringify(args)}`).toEqual(full);
  return full;
}

/** Runs a strategy on a scenario, recording every call and result. */
async function runStrategy(s: LiveScenario, strategy: Strategy): Promise<unknown[]> {
  const calls: unknown[] = [];
  const session: ScenarioSession = {
    scenario: s,
    context: await s.initialContext(),
    beginTurn: () => undefined,
    call: async (tool, args) => {
      const r = await s.callTool(tool, args);
      calls.push([tool, args, r]);
      return r;
    },
    isDone: () => s.isDone(),
  };
  await strategy.run(session);
  return calls;
}

describe("MCR with a tool-only work tree", () => {
  let fx: Fixture;
  let sample: MergeSample;
  beforeAll(() => {
    fx = new Fixture();
    fixtures.push(fx);
    const conf = (middle: string): string => `top\n${middle}\nbottom\n`;
    fx.commit("base", { "conf.py": conf("base"), "pkg/util.py": "util\n", "pkg/deep/more.py": "more\n", README: "readme\n" });
    fx.checkout("feature", true);
    fx.commit("feature side", { "conf.py": conf("feature"), "pkg/util.py": "util from feature\n", "pkg/new.py": "new\n" });
    fx.checkout("main");
    fx.commit("main side", { "conf.py": conf("main"), README: "readme from main\n" });
    const merge = fx.merge("feature", { "conf.py": conf("main and feature") });
    sample = mergeSample(fx, merge, ["conf.py"]);
  });

  it("writes only the conflicted file; the tools show every file as with the whole work tree", async () => {
    const s = await both(sample, fx.dir);
    expect(filesIn(s.tools.sandbox.workDir)).toEqual(["conf.py"]);
    expect(filesIn(s.full.sandbox.workDir)).toEqual(["README", "conf.py", "pkg/deep/more.py", "pkg/new.py", "pkg/util.py"]);
    expect(await s.tools.initialContext()).toEqual(await s.full.initialContext());
    for (const file of ["conf.py", "README", "pkg/util.py", "pkg/new.py", "pkg/deep/more.py", "pkg", "pkg/deep", "nothing.py", "pkg/nothing.py"]) {
      await same(s, "view_file_at", { relative_path_from_project_root: file });
      await same(s, "view_diff_for", { relative_path_from_project_root: file });
    }
    expect((await same(s, "view_file_at", { relative_path_from_project_root: "pkg/util.py" })).output).toContain("util from feature");
    expect((await same(s, "view_file_at", { relative_path_from_project_root: "pkg" })).ok).toBe(false);
    await same(s, "view_current_merge_conflict_with", { context_window_size: 1 });
  });

  it("the oracle reproduces the recorded merge in both, with the same commit and score", async () => {
    const s = await both(sample, fx.dir);
    const calls = await runStrategy(s.full, MCR.oracle);
    expect(await runStrategy(s.tools, MCR.oracle)).toEqual(calls);
    const final = (await s.full.finalState()) as MergeOutcome & { head: string };
    expect(await s.tools.finalState()).toEqual(final);
    const source = await Repo.open(fx.dir);
    const score = await scoreMerge(sample, final, source);
    expect(score.solved).toBe(true);
    expect(await scoreMerge(sample, (await s.tools.finalState()) as MergeOutcome, source)).toEqual(score);
    expect(filesIn(s.tools.sandbox.workDir)).toEqual(["conf.py"]);
    for (const file of ["README", "pkg/util.py", "conf.py"]) {
      await same(s, "view_file_at", { relative_path_from_project_root: file });
      await same(s, "view_diff_for", { relative_path_from_project_root: file });
    }
    expect(await MCR.groundTruth(s.tools as McrScenario, final as McrFinalState, source)).toBe("");
  });

  it("shows a wrong resolution against the recorded one, read from the source", async () => {
    const s = await both(sample, fx.dir);
    const ours = MCR.baselines.find((b) => b.name === "ours") as Strategy;
    expect(await runStrategy(s.tools, ours)).toEqual(await runStrategy(s.full, ours));
    const final = (await s.tools.finalState()) as McrFinalState;
    expect(await s.full.finalState()).toEqual(final);
    const view = await MCR.groundTruth(s.tools as McrScenario, final, await Repo.open(fx.dir));
    expect(view).toContain("diff --git a/conf.py b/conf.py\n");
    expect(view).toContain("-main and feature\n+main\n");
  });
});

describe("IR with a tool-only work tree", () => {
  let fx: Fixture;
  let sample: ChainSample;
  beforeAll(() => {
    ({ fx, sample } = buildChainFixture());
    fixtures.push(fx);
  });

  it("writes no file until a step conflicts, then the conflicted one; the rebase ends in the same commits", async () => {
    const s = await both(sample, fx.dir, "IR");
    expect(filesIn(s.tools.sandbox.workDir)).toEqual([]);
    expect(await s.tools.initialContext()).toEqual(await s.full.initialContext());
    const order = [0, 1, 3, 2];
    await same(s, "update_rebase_todo_list", { rebase_todo_list_items: order.map((commit_index) => ({ commit_index, command: "pick" })) });
    let r = await same(s, "execute_rebase");
    expect(r.output).toContain("conflict");
    expect(filesIn(s.tools.sandbox.workDir)).toEqual(["lib.py"]);
    for (let guard = 0; !r.done && guard < 10; guard++) {
      const view = await same(s, "view_current_merge_conflict_with", { context_window_size: 2 });
      const theirs = /=======\n([^]*?)>>>>>>> /.exec(view.output)?.[1] ?? "";
      r = await same(s, "resolve_current_merge_conflict_with", { content: theirs });
    }
    expect(r.done).toBe(true);
    expect(await s.tools.finalState()).toEqual(await s.full.finalState());
  });
});

describe("ICC with a tool-only work tree", () => {
  let fx: Fixture;
  let sample: ChainSample;
  beforeAll(() => {
    ({ fx, sample } = buildChainFixture());
    fixtures.push(fx);
  });

  it("writes only the chain's files, offers the same hunks, and the oracle and baselines commit the same history", async () => {
    for (const strategy of [ICC.oracle, ...ICC.baselines]) {
      const s = await both(sample, fx.dir, "ICC");
      expect(filesIn(s.tools.sandbox.workDir)).toEqual(["lib.py", "notes.txt"]);
      expect(filesIn(s.full.sandbox.workDir)).toEqual(["lib.py", "notes.txt", "other.py"]);
      expect(await s.tools.initialContext()).toEqual(await s.full.initialContext());
      const calls = await runStrategy(s.full, strategy);
      expect(await runStrategy(s.tools, strategy)).toEqual(calls);
      expect(s.full.isDone()).toBe(true);
      expect(await s.tools.finalState()).toEqual(await s.full.finalState());
    }
  });
});
