// How well the failure labels agree with a hand labelling of the same failed attempts.
//
//   node bench/label-agreement.js collect OUT [REPO SAMPLES.jsonl]...
//       runs gitgood's own agents (baselines, and scripted llm agents that make typical mistakes) on each
//       repository's samples, in process, a run directory per agent under OUT; then writes
//       OUT/evidence.txt: for every failed attempt, what a person labelling it reads (its tool calls and
//       their outcome, the agent's last words, the final repository's history or merged files compared
//       with the original with git) and never the computed labels.
//   node bench/label-agreement.js evidence OUT
//       writes OUT/evidence.txt again from the runs collected there.
//   node bench/label-agreement.js compare OUT HAND.tsv
//       reads the hand labels (`attempt<TAB>labels,comma,separated<TAB>reason`, one line per failed
//       attempt, written from evidence.txt before the computed labels were looked at) and prints the share
//       of attempts whose computed label set equals the hand set, and per label a confusion table.
//
// The hand labels of the attempts collected on msiemens/tinydb are bench/label-agreement/hand-labels.tsv
// (docs/failure-labels.md gives the method and the last result). `npm run build` first: this reads dist/.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const dist = (p) => import(path.join(root, "dist", p));

const reason = "working";
const call = (name, args) => ({ tool_calls: [{ name, arguments: { ...args, reason } }] });

/** The scripted agents: each a typical mistake, built per sample (a todo list needs the chain's length). */
function scriptedAgents({ LlmAgent, ScriptedModelClient }) {
  const llm = (name, script) => Object.assign(new LlmAgent(new ScriptedModelClient(script)), { name });
  const identity = { GIT_AUTHOR_NAME: "a", GIT_AUTHOR_EMAIL: "a@x", GIT_COMMITTER_NAME: "a", GIT_COMMITTER_EMAIL: "a@x" };
  // An agent with its own shell: runs git in its sandbox, then stops (a command that fails is where it stops).
  const shellGit = (name, commands) => ({
    name,
    async run(session) {
      session.beginTurn();
      for (const args of commands) {
        const r = await session.scenario.sandbox.repo.run(args, { env: identity, okCodes: [0, 1, 128] });
        if (r.code !== 0) return;
      }
    },
  });
  // A model that stops calling tools is told to go on twice (the llm agent's nudges), then left to stop.
  const giveUp = (words) => [words, words, words];
  const length = (s) => s.scenario.times_seen_consecutively ?? 0;
  const todo = (s, command) => Array.from({ length: length(s) }, (_, i) => ({ commit_index: i, ...command(i) }));
  return {
    "ir-drop-newest": { scenario: "IR", make: (s) => llm("ir-drop-newest", [call("update_rebase_todo_list", { rebase_todo_list_items: todo(s, (i) => ({ command: i === length(s) - 1 ? "drop" : "pick" })) }), call("execute_rebase", {}), "Done."]) },
    "ir-same-message": { scenario: "IR", make: (s) => llm("ir-same-message", [call("update_rebase_todo_list", { rebase_todo_list_items: todo(s, () => ({ command: "reword", commit_msg: "Update code" })) }), call("execute_rebase", {}), "Done."]) },
    "ir-quit": { scenario: "IR", make: () => llm("ir-quit", [call("view_rebase_todo", {}), ...giveUp("The history looks fine as it is; nothing to do.")]) },
    "ir-dawdle": { scenario: "IR", maxTurns: 3, make: () => llm("ir-dawdle", Array.from({ length: 3 }, (_, i) => call("show_changes_in", { commit_index: i % 2 }))) },
    "icc-quit": { scenario: "ICC", make: () => llm("icc-quit", [call("view_remaining_hunks", {}), ...giveUp("I am not sure how to split this.")]) },
    "icc-bad-hunks": { scenario: "ICC", make: () => llm("icc-bad-hunks", [1, 2, 3].map(() => call("commit_changes_in", { selected_hunks: ["HUNK-999"], commit_message: "Part" })).concat(giveUp("It does not work."))) },
    "mcr-quit": { scenario: "MCR", make: () => llm("mcr-quit", [call("view_current_merge_conflict_with", { context_window_size: 3 }), ...giveUp("Too hard.")]) },
    "ir-reverse": { scenario: "IR", make: (s) => llm("ir-reverse", [call("update_rebase_todo_list", { rebase_todo_list_items: todo(s, () => ({ command: "pick" })).reverse() }), call("execute_rebase", {}), ...giveUp("I reordered the commits.")]) },
    "ir-shell-amend": { scenario: "IR", make: (s) => shellGit("ir-shell-amend", [["rebase", "--abort"], ["tag", "gg-tip"], ["checkout", "--detach", `${s.scenario.oldest_commit}^`], ["commit", "--amend", "--only", "-m", "Reworded base"], ["rebase", "--onto", "HEAD", `${s.scenario.oldest_commit}^`, "gg-tip"]]) },
    "mcr-markers": { scenario: "MCR", make: () => llm("mcr-markers", Array.from({ length: 12 }, () => call("resolve_current_merge_conflict_with", { content: "<<<<<<< HEAD\nmine\n=======\ntheirs\n>>>>>>> other\n" })).concat(["Done."])) },
    "mcr-probe": { scenario: "MCR", make: (s) => llm("mcr-probe", [call("view_file_at", { relative_path_from_project_root: s.scenario.merge_commit_hash.slice(0, 12) }), ...giveUp("I cannot find the answer.")]) },
    "mcr-blank": { scenario: "MCR", make: () => llm("mcr-blank", Array.from({ length: 12 }, () => call("resolve_current_merge_conflict_with", { content: "" })).concat(["Done."])) },
  };
}

/** BENCH_AGENTS: only these agents (comma-separated names), default all. */
const ONLY = process.env.BENCH_AGENTS?.split(",");

/** The baselines run as they are. */
const BASELINES = { keep: "IR", "squash-fixups": "IR", "one-commit": "ICC", ours: "MCR", theirs: "MCR" };

async function collect(out, pairs) {
  const { runBenchmark, RunStore, runConfig } = await dist("index.js");
  const { createAgent } = await dist("agents/index.js");
  const { LlmAgent } = await dist("agents/llm.js");
  const { ScriptedModelClient } = await dist("model/scripted.js");
  const { readSamples } = await dist("dataset/jsonl.js");
  process.env.GITGOOD_SANDBOX_ROOT ??= path.join(out, "sandboxes");
  const scripted = scriptedAgents({ LlmAgent, ScriptedModelClient });
  // A judge that always prefers the history it is shown first: the agent's never wins both orders.
  const judge = () => new ScriptedModelClient(Array(100_000).fill(JSON.stringify({ better: "1", reason: "the first reads better" })), "judge");
  const attempts = [];
  for (const [repo, file] of pairs) {
    const samples = readSamples(file);
    const families = (scenario) => samples.filter((s) => (scenario === "MCR" ? s.sample_type === "merge" : s.sample_type === "file_commit_chain"));
    const runs = [
      ...Object.entries(BASELINES).filter(([name]) => !ONLY || ONLY.includes(name)).map(([name, scenario]) => ({ name, scenario, agents: families(scenario).map(() => createAgent(name)) })),
      ...Object.entries(scripted).filter(([name]) => !ONLY || ONLY.includes(name)).map(([name, a]) => ({ name, scenario: a.scenario, maxTurns: a.maxTurns, agents: families(a.scenario).map((s) => a.make(s)) })),
    ];
    for (const run of runs) {
      const group = families(run.scenario);
      if (group.length === 0) continue;
      const dir = path.join(out, "runs", `${path.basename(file, ".jsonl")}--${run.name}`);
      // One sample at a time: a scripted agent's script is the sample's own.
      for (let i = 0; i < group.length; i++) {
        const agent = run.agents[i];
        const store = RunStore.open(dir, runConfig({ samples: [file], agent: run.name }, (p) => p));
        const spec = { timeout_s: 120, max_turns: run.maxTurns ?? 10, scenarios: [run.scenario] };
        await runBenchmark({ samples: [group[i]], spec, where: { repo }, agent, store, jobs: 1, judges: run.scenario === "MCR" ? [] : [judge()] });
      }
      attempts.push({ dir, repo, run: run.name });
      process.stderr.write(`ran ${run.name} on ${group.length} sample(s) of ${file}\n`);
    }
  }
  writeFileSync(path.join(out, "attempts.json"), JSON.stringify(attempts, null, 2));
  writeFileSync(path.join(out, "evidence.txt"), (await evidence(attempts, RunStore)).join("\n"));
  process.stderr.write(`wrote ${path.join(out, "evidence.txt")}\n`);
}

const git = (repo, ...args) => execFileSync("git", ["-C", repo, ...args], { encoding: "utf8", maxBuffer: 1 << 28 }).trimEnd();
const short = (s, n = 90) => (s.length > n ? `${s.slice(0, n)}…` : s).replace(/\n/g, "⏎");

/** What a person labelling an attempt reads: never its computed labels. */
async function evidence(attempts, RunStore) {
  const lines = [];
  for (const a of attempts) {
    for (const r of RunStore.read(a.dir).records) {
      if (r.solved !== false) continue;
      const t = r.trajectory ? JSON.parse(readFileSync(path.join(a.dir, r.trajectory), "utf8")) : { events: [] };
      lines.push(`== ${a.run}/${r.key}  status=${r.status} turns=${r.turns} error=${r.error ? `${r.error.code}: ${short(r.error.message)}` : "-"}`);
      const calls = [];
      for (const e of t.events ?? []) {
        if (e.type === "tool_call") calls.push(`${e.tool}(${short(JSON.stringify(e.args ?? {}), 70)})`);
        if (e.type === "tool_result") calls.push(`  -> ${e.ok === false ? "FAILED" : "ok"}: ${short(String(e.output ?? ""), 80)}`);
        if (e.type === "model" && e.message?.content) calls.push(`  says: ${short(String(e.message.content), 80)}`);
      }
      lines.push(...calls.map((c) => `   ${c}`));
      const f = t.final;
      if (!f) {
        lines.push("   final: none");
        continue;
      }
      const sample = t.sample ?? {};
      if (r.scenario === "MCR") {
        const merge = sample.scenario?.merge_commit_hash ?? r.scores?.exact_match?.merge;
        lines.push(`   final: committed=${f.tree !== null} conflicts_left=${f.conflicts_left}`);
        for (const file of f.files ?? []) {
          let recorded = null;
          try {
            recorded = merge ? git(a.repo, "show", `${merge}:${file.path}`) : null;
          } catch {
            recorded = null;
          }
          const mine = file.content === null ? null : file.content.trimEnd();
          lines.push(`   file ${file.path}: ${mine === recorded ? "same as the recorded merge" : "differs from the recorded merge"}${mine !== null && /^(<{7}|>{7})( |$)/m.test(mine) ? "; holds marker lines" : ""}`);
          if (mine !== recorded && mine !== null && recorded !== null) {
            const diff = execFileSync("bash", ["-c", 'diff <(printf "%s" "$A") <(printf "%s" "$B") | head -12 || true'], { env: { ...process.env, A: recorded, B: mine }, encoding: "utf8" });
            lines.push(...diff.trimEnd().split("\n").map((l) => `     ${short(l, 100)}`));
          }
        }
      } else {
        const chain = sample.scenario ?? {};
        const tipTree = chain.newest_commit ? git(a.repo, "rev-parse", `${chain.newest_commit}^{tree}`) : "?";
        const subjects = (f.commits ?? []).map((c) => `${JSON.stringify(c.message.split("\n")[0] ?? "")}${c.diff.trim() !== "" ? "" : (c.parents?.length ?? 0) > 1 ? " (merge commit)" : " (no change)"}`);
        lines.push(`   final: done=${f.done} pending=${f.pending ?? "-"} head descends from base=${f.base_kept ?? "?"} tree is the original tip's=${f.tree === tipTree}`);
        lines.push(`   history (${subjects.length} commit(s), original ${chain.times_seen_consecutively ?? "?"}): ${subjects.join(" | ")}`);
        const j = r.scores?.judge;
        if (j !== undefined) lines.push(`   judge: ${short(JSON.stringify(j), 160)}`);
      }
    }
  }
  return lines;
}

function compare(out, handFile) {
  const attempts = JSON.parse(readFileSync(path.join(out, "attempts.json"), "utf8"));
  const computed = new Map();
  for (const a of attempts) {
    for (const line of readFileSync(path.join(a.dir, "results.jsonl"), "utf8").trim().split("\n")) {
      const r = JSON.parse(line);
      if (r.solved === false) computed.set(`${a.run}/${r.key}`, new Set(r.failure_labels ?? []));
    }
  }
  const hand = new Map();
  for (const line of readFileSync(handFile, "utf8").split("\n")) {
    if (!line.trim() || line.startsWith("#")) continue;
    const [id, labels] = line.split("\t");
    hand.set(id, new Set(labels.split(",").map((l) => l.trim()).filter(Boolean)));
  }
  const missing = [...computed.keys()].filter((k) => !hand.has(k));
  const extra = [...hand.keys()].filter((k) => !computed.has(k));
  if (missing.length || extra.length) {
    console.log(`hand labels missing for ${missing.length} failed attempt(s)${missing.length ? `: ${missing.slice(0, 5).join(", ")}` : ""}; hand-labelled attempts not failed: ${extra.length}${extra.length ? ` (${extra.slice(0, 5).join(", ")})` : ""}`);
  }
  const ids = [...computed.keys()].filter((k) => hand.has(k));
  const same = ids.filter((k) => { const a = computed.get(k), b = hand.get(k); return a.size === b.size && [...a].every((l) => b.has(l)); });
  console.log(`failed attempts compared: ${ids.length}; computed labels equal to the hand labels: ${same.length} (${((100 * same.length) / Math.max(1, ids.length)).toFixed(1)} %)`);
  const labels = [...new Set(ids.flatMap((k) => [...computed.get(k), ...hand.get(k)]))].sort();
  console.log("");
  console.log("label                          both  hand only  computed only  neither  agreement");
  for (const l of labels) {
    let both = 0, handOnly = 0, compOnly = 0, neither = 0;
    for (const k of ids) {
      const h = hand.get(k).has(l), c = computed.get(k).has(l);
      if (h && c) both++; else if (h) handOnly++; else if (c) compOnly++; else neither++;
    }
    console.log(`${l.padEnd(30)} ${String(both).padStart(4)}  ${String(handOnly).padStart(9)}  ${String(compOnly).padStart(13)}  ${String(neither).padStart(7)}  ${((100 * (both + neither)) / ids.length).toFixed(1).padStart(8)} %`);
  }
  const differing = ids.filter((k) => !same.includes(k));
  if (differing.length) {
    console.log("");
    console.log("attempts where they differ (hand | computed):");
    for (const k of differing) console.log(`  ${k}: ${[...hand.get(k)].join(",")} | ${[...computed.get(k)].join(",")}`);
  }
}

const [mode, out, ...rest] = process.argv.slice(2);
if (mode === "collect" && out) {
  mkdirSync(out, { recursive: true });
  const pairs = [];
  for (let i = 0; i + 1 < rest.length; i += 2) pairs.push([rest[i], rest[i + 1]]);
  if (pairs.length === 0 || !pairs.every(([, f]) => existsSync(f))) {
    console.error("usage: node bench/label-agreement.js collect OUT REPO SAMPLES.jsonl [REPO SAMPLES.jsonl]...");
    process.exit(2);
  }
  await collect(out, pairs);
} else if (mode === "evidence" && out) {
  const { RunStore } = await dist("index.js");
  const attempts = JSON.parse(readFileSync(path.join(out, "attempts.json"), "utf8"));
  writeFileSync(path.join(out, "evidence.txt"), (await evidence(attempts, RunStore)).join("\n"));
} else if (mode === "compare" && out && rest[0]) {
  compare(out, rest[0]);
} else {
  console.error("usage: node bench/label-agreement.js collect OUT REPO SAMPLES.jsonl... | compare OUT HAND.tsv");
  process.exit(2);
}
