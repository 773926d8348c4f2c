// A synthetic run directory for the viewer's and the static report's benches: ATTEMPTS attempts over MCR,
// IR and ICC in 50 repositories, each with a trajectory of TURNS model turns, tool calls and their
// results, written through gitgood's own RunStore. As a real agent's, the tool outputs are 40-line
// windows of its repository's files (five files of 300 pseudo-random code lines per repository), and
// every 25th attempt has one long output (a 4,000-line log) to show the page cutting it.
import { RESULTS_SCHEMA_VERSION } from "../dist/runs/record.js";
import { RunStore } from "../dist/runs/store.js";

/** A deterministic pseudo-random generator, so that tool outputs differ as real ones do (and do not compress away). */
function random(seed) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}
const WORDS = ["value", "count", "index", "result", "parser", "config", "merge", "branch", "commit", "tree", "blob", "path", "node", "token", "buffer"];

/** A file's worth of code-like lines, different for every seed. */
function codeLines(next, n) {
  const word = () => WORDS[Math.floor(next() * WORDS.length)];
  return Array.from({ length: n }, () => `    ${word()}_${Math.floor(next() * 1000)} = ${word()}(${Math.floor(next() * 100000)}, "${word()}")`).join("\n");
}

/** A sample as the trajectory schema wants it. */
function sampleOf(id, i) {
  return {
    id, name: `acme/repo${i % 50}`, default_branch: "main", license: "MIT", stargazers: 100, created_at: "2020-01-01T00:00:00Z", topics: "git",
    programming_language: ["Python", "Java", "Kotlin"][i % 3], project_size: "medium", difficulty: ["easy", "medium", "hard"][i % 3], sample_type: "merge",
    scenario: { merge_commit_hash: "a".repeat(40), parents: ["b".repeat(40), "c".repeat(40)], number_of_files_with_merge_conflict: 1, total_number_of_merge_conflicts: 1, files_in_merge_conflict: ["a.py"] },
  };
}

export function writeSyntheticRun(dir, attempts, turns) {
  const repos = Array.from({ length: 50 }, (_, r) => Array.from({ length: 5 }, (_, f) => codeLines(random(r * 10 + f + 7), 300).split("\n")));
  const store = RunStore.open(dir, {
    schema_version: RESULTS_SCHEMA_VERSION,
    gitgood_version: "bench",
    identity: { samples: "synthetic", ids: null, limit: null, agent: "llm:bench", model: null, where: null, max_turns: null, memory: false, history: null },
    judges: [],
    limits: { jobs: null, timeout_s: null, max_turns: null },
  });
  const scenarios = ["MCR", "IR", "ICC"];
  const difficulties = ["easy", "medium", "hard"];
  for (let i = 0; i < attempts; i++) {
    const scenario = scenarios[i % 3];
    const id = `bench_repo_${i % 50}_sample_${String(i).padStart(5, "0")}`;
    const key = `${id}.${scenario}`;
    const events = [{ type: "context", text: `Task ${i}: resolve the conflicts.\n${"context line\n".repeat(20)}`, at_ms: 0 }];
    for (let t = 0; t < turns; t++) {
      events.push({ type: "model", at_ms: t * 900 + 400, message: { role: "assistant", content: `Turn ${t}: looking.`, tool_calls: [{ id: `c${t}`, type: "function", function: { name: "view_file_at", arguments: JSON.stringify({ relative_path_from_project_root: "a.py", reason: "look" }) } }] }, usage: { prompt_tokens: 900 + t * 100, completion_tokens: 60 } });
      events.push({ type: "tool_call", tool: "view_file_at", args: { relative_path_from_project_root: "a.py" }, at_ms: t * 900 + 410 });
      const long = i % 25 === 0 && t === 0;
      const next = random(i * 1000 + t + 1);
      const file = repos[i % 50][Math.floor(next() * 5)];
      const from = Math.floor(next() * (file.length - 40));
      const output = long ? codeLines(next, 4000) : file.slice(from, from + 40).join("\n");
      events.push({ type: "tool_result", tool: "view_file_at", ok: true, output, done: false, at_ms: t * 900 + 420 });
    }
    const sample = sampleOf(id, i);
    const rel = store.writeTrajectory(key, { schema_version: RESULTS_SCHEMA_VERSION, sample_id: id, scenario, agent: "llm:bench", sample, events });
    const solved = (i * 7) % 10 < 3;
    store.append({
      schema_version: RESULTS_SCHEMA_VERSION, key, sample_id: id, scenario, repository: `acme/repo${i % 50}`, difficulty: difficulties[i % 3], agent: "llm:bench",
      status: i % 97 === 0 ? "error" : "success", solved: i % 97 === 0 ? false : solved, verdict: i % 97 === 0 ? "error" : solved ? "solved" : "unsolved",
      scores: {}, error: i % 97 === 0 ? { code: "MODEL_ERROR", message: "endpoint failed" } : null, turns, tool_calls: turns,
      tokens: { prompt: 12000, completion: 700 }, cost_usd: 0.01 + (i % 13) / 1000, started_at: "2026-01-01T00:00:00.000Z", duration_ms: 5000 + (i % 200) * 40,
      trajectory: rel, programming_language: ["Python", "Java", "Kotlin"][i % 3],
    });
  }
}
