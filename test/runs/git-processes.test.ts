import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Agent } from "../../src/agents/agent.js";
import { createAgent } from "../../src/agents/index.js";
import { LlmAgent } from "../../src/agents/llm.js";
import { ScriptedModelClient, type ScriptStep } from "../../src/model/scripted.js";
import type { ChainSample, Sample } from "../../src/dataset/sample.js";
import { firstParentLine } from "../../src/git/commits.js";
import { commitDiffs } from "../../src/git/diff.js";
import { fileSetDiff, type FileBytes } from "../../src/git/file-set-diff.js";
import { RepoPool } from "../../src/git/repo-pool.js";
import { runConfig } from "../../src/runs/config.js";
import { runBenchmark } from "../../src/runs/runner.js";
import { RunStore } from "../../src/runs/store.js";
import type { Fixture } from "../helpers/fixture.js";
import { countGitProcesses } from "../helpers/git-count.js";
import { buildRunFixture, tempDirs } from "../helpers/runs.js";

/**
 * Git processes one attempt starts, set-up, tools, final state, scoring and clean-up included (issue 23's
 * "git processes per attempt" goal: at most 15 for MCR, IR and ICC with any built-in agent; issue 37's: at
 * most 4). Each run here has one attempt; what the run itself starts once for all its attempts (`RUN_OWN`:
 * the source's probe, config read and long-lived reader, and for IR and ICC the source's long-lived
 * `diff-tree --stdin` that reads the chains' original patches) is counted apart, and so is what a gitgood
 * process starts once (`PROCESS_OWN`: the long-lived `diff-tree` of its scratch store, which diffs an MCR
 * attempt's result against the recorded merge for readers). Each bound is the count measured for that agent
 * when it was set (the most over the fixture's samples); a change that adds a process fails here and must
 * say why. What is left per attempt: the history walk the store needs (for a merge with one base, one
 * `rev-list --boundary` that also finds the base), one pack-objects per store (an IR or ICC store's two packs
 * are built as one: issue 37), the sandbox's reader, MCR's `merge-tree`, IR's `rebase --continue` (and the
 * `notes copy` it starts) for a todo that needs a merge, ICC's set-up diff and any hunks applied, one diff per file diff shown, and the
 * sandbox's long-lived `diff-tree --stdin` for the patches of its commits (a commit's patch is read once per
 * sandbox). Written without git in a tool-only sandbox: its first checkout (ICC's with the tip's files and
 * index: src/git/own-checkout.ts), IR's paused `rebase -i` (its state files, detached HEAD and the base's
 * index: src/git/own-rebase.ts) and the rest of it for a todo that needs no merge (in-order picks and
 * fixups, trailing drops: src/git/own-continue.ts), MCR's merge state around `merge-tree`'s result
 * (src/git/own-merge.ts), its unmerged entries (read from its index file), and the commits gitgood makes
 * there (MCR's merge, ICC's commits: src/git/own-commit.ts). An MCR attempt whose resolved files differ from
 * the recorded merge's tells which side each differing region took from the conflicted text the set-up's
 * merge left (its AUTO_MERGE tree, read by the sandbox's reader): no merge again; the diff of the two for
 * readers is written as objects into the scratch store (src/git/file-set-diff.ts). docs/benchmarks.md lists
 * the count of each agent.
 */
const LIMIT: Record<string, Record<string, number>> = {
  MCR: { oracle: 4, baseline: 4, union: 4, ours: 4, theirs: 4, llm: 7 },
  IR: { oracle: 3, baseline: 3, "squash-fixups": 3, keep: 3, llm: 3 },
  ICC: { oracle: 4, baseline: 4, "per-file": 4, "one-commit": 4, llm: 6 },
};
/** The run's own processes: the source's probe, its config read and its reader; for a chain, its diff-tree too. */
const RUN_OWN: Record<string, number> = { MCR: 3, IR: 4, ICC: 4 };
/** What a gitgood process starts once: its scratch store's diff-tree. */
const PROCESS_OWN = 1;

const AGENTS: Record<string, readonly string[]> = {
  MCR: ["oracle", "baseline", "union", "ours", "theirs", "llm"],
  IR: ["oracle", "baseline", "squash-fixups", "keep", "llm"],
  ICC: ["oracle", "baseline", "per-file", "one-commit", "llm"],
};

const reason = "looking";
const call = (name: string, args: Record<string, unknown>): ScriptStep => ({ tool_calls: [{ name, arguments: { ...args, reason } }] });

/**
 * What an llm agent (scripted model) does in each scenario: it reads with every viewing tool before it
 * acts, as a model does, so the count covers the tools' own reads (a failing call, a file that is not
 * conflicted, say, counts as well). The scenario ends the conversation when it is done.
 */
const LLM_SCRIPTS: Record<string, () => ScriptStep[]> = {
  MCR: () => [
    call("view_current_merge_conflict_with", { context_window_size: 3 }),
    call("view_merge_conflict_at", { conflict_index: 0, context_window_size: 2 }),
    call("view_file_at", { relative_path_from_project_root: "io.py" }),
    call("view_diff_for", { relative_path_from_project_root: "io.py" }),
    call("view_diff_for", { relative_path_from_project_root: "win.py" }),
    ...Array.from({ length: 4 }, () => call("resolve_current_merge_conflict_with", { content: "resolved\n" })),
  ],
  IR: () => [
    call("view_rebase_todo", {}),
    ...[0, 1, 2].map((i) => call("show_changes_in", { commit_index: i })),
    // A plan with a reword and a squash: their amends are written without git too.
    call("update_rebase_todo_list", {
      rebase_todo_list_items: [
        { commit_index: 0, command: "reword", commit_msg: "Reworded: first" },
        { commit_index: 1, command: "pick" },
        { commit_index: 2, command: "squash", commit_msg: "Squashed second and third\n\nwith a body" },
        { commit_index: 3, command: "fixup" },
      ],
    }),
    call("execute_rebase", {}),
  ],
  ICC: () => [call("commit_changes_in", { selected_hunks: ["HUNK-0"], commit_message: "First part" }), call("commit_remaining_changes", { commit_message: "The rest" })],
};

function agentNamed(name: string, scenario: string): Agent {
  return name === "llm" ? new LlmAgent(new ScriptedModelClient(LLM_SCRIPTS[scenario]?.() ?? [])) : createAgent(name);
}

let fx: Fixture;
let samples: Sample[];
let dirs: ReturnType<typeof tempDirs>;
let n = 0;

beforeAll(async () => {
  ({ fx, samples } = await buildRunFixture());
  dirs = tempDirs();
  // What a run starts once, whatever its attempts: opening the source for the run, and reading a chain's patches there.
  const pool = new RepoPool();
  const opened = await countGitProcesses(async () => (await pool.get(fx.dir)).reader?.read("HEAD"));
  const source = await pool.get(fx.dir);
  const chain = samples.find((s) => s.sample_type === "file_commit_chain") as ChainSample;
  const line = await firstParentLine(source, chain.scenario.newest_commit, chain.scenario.times_seen_consecutively);
  // Each attempt asks for its own chain's patches: one process answers them all.
  const read = await countGitProcesses(async () => [await commitDiffs(source, line.slice(0, 2)), await commitDiffs(source, line.slice(2))]);
  await pool.close();
  expect(opened.processes).toBe(RUN_OWN.MCR);
  expect(opened.processes + read.processes).toBe(RUN_OWN.IR);
  // What a gitgood process starts once: the scratch store a recorded merge's diff for readers is read from.
  const file = (bytes: string): FileBytes[] => [{ path: "f", bytes: Buffer.from(bytes) }];
  const scratch = await countGitProcesses(async () => [await fileSetDiff(file("a\n"), file("b\n")), await fileSetDiff(file("b\n"), file("c\n"))]);
  expect(scratch.processes).toBe(PROCESS_OWN);
});
afterAll(() => {
  dirs.cleanup();
  fx.remove();
});

async function attempt(sample: Sample, scenario: string, agentName: string): Promise<{ processes: number; commands: string[] }> {
  const agent = agentNamed(agentName, scenario);
  const store = RunStore.open(`${dirs.out}-${n++}`, runConfig({ samples: ["test"], agent: agent.name }, (p) => p));
  const { result, processes, commands } = await countGitProcesses(() =>
    runBenchmark({ samples: [sample], spec: { timeout_s: 60, max_turns: 10, scenarios: [scenario] }, where: { repo: fx.dir }, agent, store, jobs: 1, judges: [] }),
  );
  expect(result.records).toHaveLength(1);
  expect(result.records[0]?.status).toBe("success");
  return { processes, commands };
}

describe("git processes per attempt", () => {
  for (const scenario of ["MCR", "IR", "ICC"]) {
    for (const agentName of AGENTS[scenario] ?? []) {
      const limit = LIMIT[scenario]?.[agentName] ?? 0;
      it(`${scenario} with ${agentName} starts at most ${limit} git processes besides the run's ${RUN_OWN[scenario] ?? 0}`, async () => {
        const wanted = samples.filter((s) => (scenario === "MCR" ? s.sample_type === "merge" : s.sample_type === "file_commit_chain"));
        for (const sample of wanted) {
          const { processes, commands } = await attempt(sample, scenario, agentName);
          if (process.env.GITGOOD_SHOW_GIT) console.log(`${scenario} ${agentName} ${sample.id}: ${processes}\n  ${commands.join("\n  ")}`);
          expect(processes - (RUN_OWN[scenario] ?? 0), commands.join("\n")).toBeLessThanOrEqual(limit);
        }
      });
    }
  }
});
