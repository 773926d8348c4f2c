import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Agent } from "../../src/agents/agent.js";
import { createAgent } from "../../src/agents/index.js";
import { LlmAgent } from "../../src/agents/llm.js";
import type { MergeSample, Sample, SweSample } from "../../src/dataset/sample.js";
import { ScriptedModelClient, type ScriptStep } from "../../src/model/scripted.js";
import { Repo } from "../../src/git/repo.js";
import { runConfig } from "../../src/runs/config.js";
import { scoreMerge, type MergeOutcome } from "../../src/scoring/merge.js";
import { failureLabels, type LabelInput } from "../../src/runs/labels.js";
import type { ResultRecord } from "../../src/runs/record.js";
import { scenarioNamed } from "../../src/scenarios/registry.js";
import { runBenchmark } from "../../src/runs/runner.js";
import { RunStore } from "../../src/runs/store.js";
import type { Fixture } from "../helpers/fixture.js";
import { buildRunFixture, tempDirs } from "../helpers/runs.js";

/*
 * Each failure label on an attempt that shows it: real runs of real agents (baselines, scripted models)
 * on a repository built here, scored as a run scores them, with each label asserted absent where the
 * attempt does not show it. The SWE labels read the `swe` scorer's value, given here as it records it.
 */

const reason = "working";
const call = (name: string, args: Record<string, unknown>): ScriptStep => ({ tool_calls: [{ name, arguments: { ...args, reason } }] });
/** A judge that always prefers the first history shown: the agent's wins one order only, never both. */
const constantJudge = () => new ScriptedModelClient(Array(8).fill(JSON.stringify({ better: "1", reason: "r" })), "judge");

let fx: Fixture;
let samples: Sample[];
let easyMerge: MergeSample;
let chain: Sample;
let dirs: ReturnType<typeof tempDirs>;
let n = 0;

beforeAll(async () => {
  ({ fx, samples } = await buildRunFixture());
  easyMerge = samples.find((s): s is MergeSample => s.sample_type === "merge" && s.difficulty === "easy") as MergeSample;
  chain = samples.find((s) => s.sample_type === "file_commit_chain") as Sample;
  dirs = tempDirs();
});
afterAll(() => {
  dirs.cleanup();
  fx.remove();
});

/** The run directory of the last attempt. */
let lastRun = "";

async function attempt(sample: Sample, scenario: string, agent: Agent, opts: { maxTurns?: number; judge?: boolean } = {}): Promise<ResultRecord> {
  lastRun = `${dirs.out}-${n++}`;
  const store = RunStore.open(lastRun, runConfig({ samples: ["test"], agent: agent.name }, (p) => p));
  const summary = await runBenchmark({
    samples: [sample],
    spec: { scenarios: [scenario], timeout_s: 60, max_turns: opts.maxTurns ?? 10 },
    where: { repo: fx.dir },
    agent,
    store,
    jobs: 1,
    judges: opts.judge ? [constantJudge()] : [],
  });
  const record = summary.records[0];
  if (!record) throw new Error("no record");
  // What the run wrote is what it returned.
  expect(RunStore.read(store.dir).records[0]?.failure_labels).toEqual(record.failure_labels);
  return record;
}
const llm = (script: ScriptStep[]) => new LlmAgent(new ScriptedModelClient(script));
/** An agent that makes these tool calls and then stops, whatever state the scenario is in. */
const quitter = (calls: [string, Record<string, unknown>][]): Agent => ({
  name: "quitter",
  async run(session) {
    for (const [tool, args] of calls) {
      session.beginTurn();
      await session.call(tool, { ...args, reason });
    }
  },
});

const IDENTITY = { GIT_AUTHOR_NAME: "a", GIT_AUTHOR_EMAIL: "a@x", GIT_COMMITTER_NAME: "a", GIT_COMMITTER_EMAIL: "a@x" };
/** An agent that runs git commands in its sandbox itself, as an agent with a shell can, then stops. */
const shellGit = (commands: string[][]): Agent => ({
  name: "shell-git",
  async run(session) {
    session.beginTurn();
    for (const args of commands) await session.scenario.sandbox.repo.run(args, { env: IDENTITY });
  },
});
/** An agent with its own shell that runs a script of git commands in its sandbox, each command's output at hand. */
const shellScript = (script: (git: (args: string[]) => Promise<string>) => Promise<void>): Agent => ({
  name: "shell-script",
  async run(session) {
    session.beginTurn();
    await script(async (args) => (await session.scenario.sandbox.repo.run(args, { env: IDENTITY })).stdout.toString("utf8"));
  },
});
/** Keeps the planned history through the tools, then starts a rebase of its own that stops before its first step. */
const shellRebaseAfterKeep = (): Agent => ({
  name: "shell-rebase",
  async run(session) {
    session.beginTurn();
    await session.call("execute_rebase", { reason });
    await session.scenario.sandbox.repo.run(["rebase", "-i", "HEAD~2"], { env: { ...IDENTITY, GIT_SEQUENCE_EDITOR: "sed -i 1ibreak" } });
  },
});
/** Git commands that give the chain's base a new message and replay the chain onto it (HEAD detached at the tip). */
function amendBase(s: Sample): string[][] {
  const oldest = s.sample_type === "file_commit_chain" ? s.scenario.oldest_commit : "";
  return [
    ["tag", "gg-tip"],
    ["checkout", "--detach", `${oldest}^`],
    ["commit", "--amend", "--only", "-m", "Reworded base"],
    ["rebase", "--onto", "HEAD", `${oldest}^`, "gg-tip"],
  ];
}

describe("MCR failure labels", () => {
  it("a solved attempt has none", async () => {
    const r = await attempt(easyMerge, "MCR", createAgent("oracle"));
    expect(r.solved).toBe(true);
    expect(r.failure_labels).toEqual([]);
    expect(r.history_probes).toEqual({ count: 0, commands: [] });
  });

  it("taking our side where the recorded merge did otherwise is a region resolved differently that took ours, and nothing else", async () => {
    const r = await attempt(easyMerge, "MCR", createAgent("ours"));
    expect(r.solved).toBe(false);
    expect(r.failure_labels).toEqual(["region_resolved_differently", "region_took_ours"]);
    expect(r.history_probes).toEqual({ count: 0, commands: [] });
  });

  it("taking their side is labelled region_took_theirs, only for the region the recorded merge resolved otherwise; a text of neither side region_took_neither", async () => {
    // The medium merge's recorded resolution combines both sides in its first region and took theirs in its second.
    const medium = samples.find((s) => s.sample_type === "merge" && s.difficulty !== "easy") as MergeSample;
    const theirs = await attempt(medium, "MCR", createAgent("theirs"));
    expect(theirs.failure_labels).toEqual(["region_resolved_differently", "region_took_theirs"]);
    expect((theirs.scores["exact_match"] as { files: { regions?: unknown }[] }).files[0]?.regions).toEqual([{ region: 0, took: "theirs" }]);
    const neither = await attempt(easyMerge, "MCR", llm([call("resolve_current_merge_conflict_with", { content: "io3 = 'neither'\n" })]));
    expect(neither.failure_labels).toEqual(["region_resolved_differently", "region_took_neither"]);
    // The region is read back from the file: its side sits in the score, with the region's position.
    const score = neither.scores["exact_match"] as { files: { regions?: unknown }[] };
    expect(score.files[0]?.regions).toEqual([{ region: 0, took: "neither" }]);
  });

  it("the sides are read from the conflicted text the set-up's merge left (no merge again) and are those a re-merge of the parents gives", async () => {
    const medium = samples.find((s) => s.sample_type === "merge" && s.difficulty !== "easy") as MergeSample;
    for (const [sample, agent] of [[medium, "theirs"], [easyMerge, "ours"]] as const) {
      const r = await attempt(sample, "MCR", createAgent(agent));
      const final = (RunStore.openExisting(lastRun).readTrajectory(r.trajectory ?? "") as { final: MergeOutcome }).final;
      expect(final.conflicted?.length).toBeGreaterThan(0);
      const { conflicted: _read, ...remerged } = final;
      const source = await Repo.open(fx.dir);
      const fromSetup = await scoreMerge(sample, final, source);
      expect(fromSetup.files.some((f) => (f.regions?.length ?? 0) > 0)).toBe(true);
      expect(fromSetup).toEqual(await scoreMerge(sample, remerged, source));
    }
  });

  it("a resolution that keeps conflict markers is labelled markers_left", async () => {
    const r = await attempt(easyMerge, "MCR", llm([call("resolve_current_merge_conflict_with", { content: "<<<<<<< HEAD\nio3 = 'main'\n=======\nio3 = 'topic'\n>>>>>>> topic\n" })]));
    expect(r.failure_labels).toEqual(["markers_left", "region_resolved_differently", "region_took_neither"]);
  });

  it("stopping before the merge is done is giving up, with the conflict left and the merge not committed", async () => {
    const r = await attempt(easyMerge, "MCR", quitter([["view_current_merge_conflict_with", { context_window_size: 2 }]]));
    expect(r.failure_labels).toEqual(["gave_up", "conflicts_left", "merge_not_committed"]);
  });

  it("running out of turns is the turn limit, not giving up", async () => {
    const view = () => call("view_current_merge_conflict_with", { context_window_size: 2 });
    const r = await attempt(easyMerge, "MCR", llm([view(), view(), view()]), { maxTurns: 2 });
    expect(r.failure_labels).toContain("turn_limit");
    expect(r.failure_labels).not.toContain("gave_up");
  });

  it("three failing tool calls in a row are repeated tool errors; two are not", async () => {
    const bad = () => call("view_file_at", { relative_path_from_project_root: "no/such/file.py" });
    const three = await attempt(easyMerge, "MCR", llm([bad(), bad(), bad(), "stop"]));
    expect(three.failure_labels).toContain("tool_errors_repeated");
    const two = await attempt(easyMerge, "MCR", llm([bad(), bad(), call("view_current_merge_conflict_with", { context_window_size: 2 }), bad(), "stop"]));
    expect(two.failure_labels).not.toContain("tool_errors_repeated");
    expect(two.failure_labels).not.toContain("history_probes");
  });

  it("asking for the hidden merge commit by hash is a history probe; the same word in the reason is not", async () => {
    const probe = await attempt(easyMerge, "MCR", llm([call("view_file_at", { relative_path_from_project_root: easyMerge.scenario.merge_commit_hash.slice(0, 10) }), "stop"]));
    expect(probe.failure_labels).toContain("history_probes");
    expect(probe.history_probes?.count).toBe(1);
    expect(probe.history_probes?.commands[0]).toContain(easyMerge.scenario.merge_commit_hash.slice(0, 10));
    const talk = await attempt(easyMerge, "MCR", llm([{ tool_calls: [{ name: "view_current_merge_conflict_with", arguments: { context_window_size: 2, reason: "not running git log --all" } }] }, "stop"]));
    expect(talk.failure_labels).not.toContain("history_probes");
    expect(talk.history_probes).toEqual({ count: 0, commands: [] });
  });
});

describe("IR and ICC failure labels", () => {
  it("IR: a complete, unchanged history the judge does not prefer is judge_preferred_original only", async () => {
    const r = await attempt(chain, "IR", createAgent("keep"), { judge: true });
    expect(r.solved).toBe(false);
    expect(r.failure_labels).toEqual(["judge_preferred_original"]);
  });

  it("IR: dropping the newest commit changes the tree", async () => {
    const commits = chain.sample_type === "file_commit_chain" ? chain.scenario.times_seen_consecutively : 0;
    const items = Array.from({ length: commits }, (_, i) => ({ commit_index: i, command: i === commits - 1 ? "drop" : "pick" }));
    const r = await attempt(chain, "IR", llm([call("update_rebase_todo_list", { rebase_todo_list_items: items }), call("execute_rebase", {})]), { judge: true });
    expect(r.failure_labels).toEqual(["tree_changed"]);
  });

  it("IR: stopping before the rebase ran leaves it in progress", async () => {
    const r = await attempt(chain, "IR", quitter([["view_rebase_todo", {}]]), { judge: true });
    expect(r.failure_labels).toEqual(["gave_up", "rebase_in_progress"]);
  });

  it("IR: a rebase that rewrote the commit before the chain (run by hand, as a shell agent may) rewrote outside the range; the todo's own rebase does not", async () => {
    const r = await attempt(chain, "IR", shellGit([["rebase", "--abort"], ["checkout", "--detach", "HEAD"], ...amendBase(chain)]), { judge: true });
    expect(r.failure_labels).toContain("outside_range_rewritten");
    const kept = await attempt(chain, "IR", createAgent("keep"), { judge: true });
    expect(kept.failure_labels).not.toContain("outside_range_rewritten");
  });

  it("IR: an agent that aborts the paused rebase and rewrites the branch with its own git has finished the history, with no rebase left in progress", async () => {
    const r = await attempt(chain, "IR", shellGit([["rebase", "--abort"], ...amendBase(chain)]), { judge: true });
    expect(r.failure_labels).toEqual(["outside_range_rewritten"]);
    expect((r.scores["checks"] as { finished?: unknown }).finished).toBe(true);
    // A rebase the agent starts itself after the planned one finished is left in progress.
    const again = await attempt(chain, "IR", shellRebaseAfterKeep(), { judge: true });
    expect(again.failure_labels).toEqual(["gave_up", "rebase_in_progress"]);
  });

  it("IR: a merge commit before the chain whose combined diff is blank is no empty commit; a commit that changes nothing is", async () => {
    const oldest = chain.sample_type === "file_commit_chain" ? chain.scenario.oldest_commit : "";
    const merged = await attempt(chain, "IR", shellScript(async (git) => {
      await git(["rebase", "--abort"]);
      await git(["tag", "gg-tip"]);
      // A merge of the base with its own parent that keeps the base's tree: its combined diff is blank.
      const merge = (await git(["commit-tree", `${oldest}^^{tree}`, "-p", `${oldest}^`, "-p", `${oldest}^^`, "-m", "Merge the initial version"])).trim();
      await git(["rebase", "--onto", merge, `${oldest}^`, "gg-tip"]);
    }), { judge: true });
    expect(merged.failure_labels).toEqual(["judge_preferred_original"]);
    // The scorer's own count agrees with the label (the skill profile and the outcome view read it).
    expect((merged.scores["checks"] as { empty_commits?: unknown }).empty_commits).toBe(0);
    const empty = await attempt(chain, "IR", shellScript(async (git) => {
      await git(["rebase", "--abort"]);
      await git(["commit", "--allow-empty", "-m", "Nothing at all"]);
    }), { judge: true });
    expect(empty.failure_labels).toEqual(["empty_commits"]);
    expect((empty.scores["checks"] as { empty_commits?: unknown }).empty_commits).toBe(1);
  });

  it("ICC: amending the commit the changes start from rewrote outside the range; committing on it does not", async () => {
    const r = await attempt(chain, "ICC", shellGit([["commit", "--amend", "--only", "-m", "Reworded base"]]), { judge: true });
    expect(r.failure_labels).toEqual(["gave_up", "outside_range_rewritten", "changes_uncommitted"]);
    const left = await attempt(chain, "ICC", quitter([["view_remaining_hunks", {}]]), { judge: true });
    expect(left.failure_labels).not.toContain("outside_range_rewritten");
  });

  it("ICC: stopping before committing leaves changes uncommitted", async () => {
    const r = await attempt(chain, "ICC", quitter([["view_remaining_hunks", {}]]), { judge: true });
    expect(r.failure_labels).toEqual(["gave_up", "changes_uncommitted"]);
  });

  it("ICC: an attempt without a judge is unjudged and gets no labels", async () => {
    const r = await attempt(chain, "ICC", llm([call("commit_changes_in", { selected_hunks: ["HUNK-0"], commit_message: "First part" }), "done"]));
    expect(r.solved).toBeNull();
    expect(r.failure_labels).toEqual([]);
  });
});

describe("labels from a record's facts", () => {
  const base = (over: Partial<LabelInput>): LabelInput => ({
    sample: easyMerge,
    scenario: "MCR",
    definition: scenarioNamed("MCR"),
    solved: false,
    errorCode: null,
    final: { done: true, conflicts_left: 0, tree: "t", files: [] },
    scores: { exact_match: { tree_matches: true, files: [] } },
    events: [],
    turns: 1,
    maxTurns: 10,
    ...over,
  });

  it("a failure nothing explains is unexplained", () => {
    expect(failureLabels(base({}))).toEqual(["unexplained"]);
  });

  it("the time limit and a jail limit come from the error code; other errors are attempt_error", () => {
    expect(failureLabels(base({ errorCode: "TIMEOUT", final: undefined, scores: {} }))).toEqual(["time_limit"]);
    expect(failureLabels(base({ errorCode: "LIMIT_EXCEEDED", final: undefined, scores: {} }))).toEqual(["resource_limit"]);
    expect(failureLabels(base({ errorCode: "MODEL_ERROR", final: undefined, scores: {} }))).toEqual(["attempt_error"]);
  });

  it("a merge whose conflicted files all match but whose tree does not changed a file outside the conflicts", () => {
    const scores = { exact_match: { tree_matches: false, files: [{ path: "io.py", exact: true }] } };
    expect(failureLabels(base({ scores }))).toEqual(["outside_files_changed"]);
    expect(failureLabels(base({ scores: { exact_match: { ...scores.exact_match, resolvable: false } } }))).toEqual(["outside_files_changed", "unresolvable"]);
  });

  const swe = (value: Record<string, unknown>): LabelInput =>
    base({
      sample: { sample_type: "swe" } as unknown as SweSample,
      scenario: "SWE",
      definition: scenarioNamed("SWE"),
      final: { done: true, patch: "", encoding: "utf8", answer: null, invalid: null },
      scores: { swe: { patch_source: "worktree", patch: "diff", patch_applied: true, tampered: [], tests: { timed_out: false }, log_invalid: null, tests_status: { FAIL_TO_PASS: { failure: [] }, PASS_TO_PASS: { failure: [] } }, ...value } },
    });

  it("SWE: no patch, a patch that did not apply, failing tests, erroring tests and touched test files", () => {
    expect(failureLabels(swe({ patch: "", patch_applied: false }))).toEqual(["no_patch"]);
    expect(failureLabels(swe({ patch_applied: false }))).toEqual(["patch_not_applied"]);
    expect(failureLabels(swe({ tests_status: { FAIL_TO_PASS: { failure: ["t1"] }, PASS_TO_PASS: { failure: [] } } }))).toEqual(["tests_failing"]);
    expect(failureLabels(swe({ tests: { timed_out: true }, tests_status: { FAIL_TO_PASS: { failure: ["t1"] }, PASS_TO_PASS: { failure: [] } } }))).toEqual(["tests_erroring"]);
    expect(failureLabels(swe({ tampered: ["tests/test_x.py"], tests_status: { FAIL_TO_PASS: { failure: ["t1"] }, PASS_TO_PASS: { failure: [] } } }))).toEqual([
      "tests_touched",
      "tests_failing",
    ]);
  });
});
