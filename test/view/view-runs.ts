import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { runConfig } from "../../src/runs/config.js";
import { RESULTS_SCHEMA_VERSION, type ResultRecord } from "../../src/runs/record.js";
import { RunStore } from "../../src/runs/store.js";

/**
 * Two run directories written in code for the viewer's browser tests: `priced` (every attempt has a cost
 * in US$) and `unpriced` (tokens, no prices), over the same six samples whose ids share a long prefix.
 * The first sample's attempt in `priced` has a full trajectory: timed model calls with tokens, a tool call
 * whose arguments hold a path and code (with hostile HTML in it), a diff as a result, a failed call, a
 * note saying a limit was hit, a 300-line output, and an error. The `hard` samples are never solved (a 0 % bar).
 */
export interface ViewRuns {
  root: string;
  priced: string;
  unpriced: string;
  ids: string[];
  /** The attempt with the full trajectory, in the `priced` run. */
  richKey: string;
  cleanup: () => void;
}

export const HOSTILE_CODE = `<script>window.__pwned = 1</script>\n\t\t@Setup\n    void setUp() { counter = 0; }\n<img src=x onerror="window.__pwned = 2">`;
export const DIFF_OUTPUT = "diff --git a/src/Counter.java b/src/Counter.java\n--- a/src/Counter.java\n+++ b/src/Counter.java\n@@ -1,3 +1,3 @@\n class Counter {\n-  int n;\n+  int n = <b>0</b>;\n }\n";
export const LONG_OUTPUT = Array.from({ length: 300 }, (_, i) => `line ${i}`).join("\n");

const sample = (id: string, difficulty: string) => ({
  id, name: "Netflix/Hystrix", default_branch: "main", license: "MIT", stargazers: 1, created_at: "2020-01-01T00:00:00Z", topics: "java",
  programming_language: "Java", project_size: "medium", difficulty, sample_type: "merge",
  scenario: { merge_commit_hash: "a".repeat(40), parents: ["b".repeat(40), "c".repeat(40)], number_of_files_with_merge_conflict: 1, total_number_of_merge_conflicts: 1, files_in_merge_conflict: ["src/Counter.java"] },
});

const call = (id: string, name: string, args: unknown) => ({ id, type: "function", function: { name, arguments: JSON.stringify(args) } });

function richEvents(): unknown[] {
  return [
    { type: "context", text: "Resolve the merge conflict in src/Counter.java.", at_ms: 0 },
    { type: "model", at_ms: 1200, message: { role: "assistant", content: "Looking at the conflict.", tool_calls: [call("c1", "resolve_current_merge_conflict_with", { file_path: "src/Counter.java", content: HOSTILE_CODE, reason: "keep both" })] }, usage: { prompt_tokens: 900, completion_tokens: 40 } },
    { type: "tool_call", tool: "resolve_current_merge_conflict_with", args: { file_path: "src/Counter.java" }, at_ms: 1210 },
    { type: "tool_result", tool: "resolve_current_merge_conflict_with", ok: true, output: DIFF_OUTPUT, done: false, at_ms: 1500 },
    { type: "model", at_ms: 2600, message: { role: "assistant", content: null, tool_calls: [call("c2", "view_file_at", { relative_path_from_project_root: "src/Missing.java" })] }, usage: { prompt_tokens: 1000, completion_tokens: 20, cached: true } },
    { type: "tool_call", tool: "view_file_at", args: {}, at_ms: 2610 },
    { type: "tool_result", tool: "view_file_at", ok: false, output: "error: no such file src/Missing.java", done: false, at_ms: 2700 },
    { type: "note", text: "sandbox: the memory limit was hit", at_ms: 2800 },
    { type: "model", at_ms: 3900, message: { role: "assistant", content: null, tool_calls: [call("c3", "view_file_at", { relative_path_from_project_root: "src/Counter.java" })] }, usage: { prompt_tokens: 1100, completion_tokens: 20 } },
    { type: "tool_result", tool: "view_file_at", ok: true, output: LONG_OUTPUT, done: true, at_ms: 4000 },
  ];
}

export function buildViewRuns(): ViewRuns {
  const root = mkdtempSync(path.join(os.tmpdir(), "gitgood-view-runs-"));
  const ids = Array.from({ length: 6 }, (_, i) => `Netflix_Hystrix_file_merge_conflict_${String(i + 1).padStart(5, "0")}`);
  const write = (name: string, priced: boolean): string => {
    const dir = path.join(root, name);
    const store = RunStore.open(dir, runConfig({ samples: ["test"], agent: "llm" }, (p) => p));
    ids.forEach((id, i) => {
      const key = `${id}.MCR`;
      const difficulty = i % 2 === 0 ? "easy" : "hard";
      const rich = priced && i === 0;
      const events = rich ? richEvents() : [{ type: "context", text: `Resolve ${id}.`, at_ms: 0 }];
      const rel = store.writeTrajectory(key, { schema_version: RESULTS_SCHEMA_VERSION, sample_id: id, scenario: "MCR", agent: "llm", sample: sample(id, difficulty), events, ground_truth_diff: rich ? DIFF_OUTPUT : "", ended_by: rich ? "max_turns" : "done" });
      // easy: solved in `priced` (all) and in `unpriced` (the first only); hard: never solved.
      const solved = difficulty === "easy" && (priced || i === 0);
      const record = {
        schema_version: RESULTS_SCHEMA_VERSION, key, sample_id: id, scenario: "MCR", repository: "Netflix/Hystrix", difficulty, agent: "llm",
        status: rich ? "error" : "success", solved, verdict: rich ? "error" : solved ? "solved" : "unsolved", scores: {},
        error: rich ? { code: "MODEL_ERROR", message: "the endpoint failed after the third turn" } : null,
        turns: rich ? 3 : 1, tool_calls: rich ? 3 : 0, tokens: { prompt: 3000, completion: 80 }, cost_usd: priced ? 0.0425 : null,
        started_at: "2026-01-01T00:00:00.000Z", duration_ms: 5000, trajectory: rel, programming_language: "Java",
      };
      store.append(record as unknown as ResultRecord);
    });
    return dir;
  };
  const priced = write("priced", true);
  const unpriced = write("unpriced", false);
  return { root, priced, unpriced, ids, richKey: `${ids[0]}.MCR`, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}
