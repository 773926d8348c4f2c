// Whether `gitgood serve` gives, episode by episode, the reward `gitgood run` scored, for every task family:
// recorded trajectories of the oracle and the baseline (each repeated) replayed through serve, the episodes
// spread over OpenEnv HTTP, OpenEnv's WebSocket and ORS (HTTP + SSE) in turn.
//
//   node bench/serve-replay.js [repeats] [samples] [jobs]   (after `npm run build`; defaults 6, 10 and 2)
//
// Builds three repositories: the synthetic Git repository (its first `samples` merges give MCR, its file
// commit chains IR and ICC), a Python package with `samples` SWE instances (bench/python-repos.js, as
// bench/swe.js builds it) and a Python library with `samples` commit0 tasks (`gitgood skeleton --ref` at each
// of its commits). Runs `gitgood run --agent oracle` and `--agent baseline` on each with `--repeats`, then
// serves each repository twice (`--protocol openenv` and `--protocol ors`) and replays every recorded
// attempt's tool calls in an episode of the same sample × scenario, `jobs` episodes at a time, ending it with
// finish_scenario when the calls did not. SWE's and commit0's oracles change the work tree outside the tools
// (they apply the gold patch, check the reference out), so their episodes first make the same change with the
// family's tools (SWE: replace_text of each changed file; commit0: replace_function_body of each stubbed
// function). An episode agrees when its reward is the record's (1 solved, 0 unsolved or error, null when no
// scorer decides), its verdict is the run's, and its shaped rewards are those run's record gives under the same
// scorers. Each family's episodes take the three protocols in turn.
// Prints, per family, equal/total, the protocol mix and the rewards; then the time and the load average.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildSyntheticRepo } from "../dist/demo/synthetic.js";
import { scenarioNamed } from "../dist/scenarios/registry.js";
import { shapedRewards } from "../dist/scoring/scorer.js";
import { buildCompletionRepo, buildSweRepo, git } from "./python-repos.js";
import { row } from "./rows.js";
import { playOpenEnvHttp, playOpenEnvWebSocket, playOrs } from "./serve-clients.js";
import { runGitgood as run, startServe as serve } from "./serve-process.js";

const TOKEN = "serve-replay-bench";
const repeats = Number(process.argv[2] ?? 6);
const limit = Number(process.argv[3] ?? 10);
const jobs = Number(process.argv[4] ?? 2);

const lines = (file) => readFileSync(file, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
const rewardOf = (r) => (r.status === "error" ? 0 : r.solved === null ? null : r.solved ? 1 : 0);
const PROTOCOLS = [
  { name: "openenv-http", server: "openenv", play: playOpenEnvHttp },
  { name: "openenv-ws", server: "openenv", play: playOpenEnvWebSocket },
  { name: "ors-sse", server: "ors", play: playOrs },
];

/** The Git families: the synthetic repository's first `limit` samples of each type; their oracle works with the tools. */
async function gitFamilies(dir) {
  const repo = path.join(dir, "repo");
  await buildSyntheticRepo(repo, { commits: 300, merges: 30 });
  const samples = path.join(dir, "samples.jsonl");
  await run(["mine", repo, "--name", "bench/repo", "--output", samples], dir);
  const byType = new Map();
  for (const s of lines(samples)) byType.set(s.sample_type, [...(byType.get(s.sample_type) ?? []), s.id]);
  const ids = [...byType.values()].flatMap((list) => list.slice(0, limit));
  return { name: "git", repo, samples, ids, toolWork: () => [] };
}

/** SWE: `limit` instances; the gold patch made with replace_text, each changed file's whole text replaced. */
function sweFamily(dir) {
  const repo = path.join(dir, "swe-repo");
  const made = buildSweRepo(repo, limit);
  // As SWE-bench publishes its instances: a JSON list, the test lists as JSON strings.
  const samples = path.join(dir, "swe.json");
  const instances = made.map(({ scenario: sc }) => ({ ...sc, FAIL_TO_PASS: JSON.stringify(sc.FAIL_TO_PASS), PASS_TO_PASS: JSON.stringify(sc.PASS_TO_PASS) }));
  writeFileSync(samples, JSON.stringify(instances));
  const fixes = new Map(made.map((s) => [s.id, s]));
  const toolWork = (record) => {
    const s = fixes.get(record.sample_id);
    const files = git(repo, ["diff", "--name-only", s.scenario.base_commit, s.fix, "--", "pkg"]).split("\n").filter(Boolean);
    return files.map((file) => ({
      tool: "replace_text",
      args: { path: file, old_text: git(repo, ["show", `${s.scenario.base_commit}:${file}`]), new_text: git(repo, ["show", `${s.fix}:${file}`]), reason: "the gold change" },
    }));
  };
  return { name: "swe", repo, samples, ids: made.map((s) => s.id), toolWork };
}

/** commit0: a skeleton at each of the library's `limit` commits; the reference written back with replace_function_body. */
async function commit0Family(dir, env) {
  const repo = path.join(dir, "commit0-repo");
  const references = buildCompletionRepo(repo, limit);
  const samples = path.join(dir, "commit0.jsonl");
  const bodies = new Map();
  let all = "";
  for (const [k, ref] of references.entries()) {
    const id = `bench_lib_repo_completion_${k}`;
    const file = path.join(dir, `commit0-${k}.jsonl`);
    await run(["skeleton", repo, "--src", "lib", "--ref", ref.commit, "--id", id, "-o", file], dir, env);
    all += readFileSync(file, "utf8");
    bodies.set(id, ref.bodies);
  }
  writeFileSync(samples, all);
  const toolWork = (record) =>
    Object.entries(bodies.get(record.sample_id)).flatMap(([file, fns]) =>
      Object.entries(fns).map(([fn, body]) => ({ tool: "replace_function_body", args: { path: file, function: fn, body, reason: "the reference body" } })),
    );
  return { name: "commit0", repo, samples, ids: [...bodies.keys()], toolWork };
}

/** Runs `work` on each item, `n` at a time. */
async function pool(items, n, work) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        await work(items[i]);
      }
    }),
  );
}

const dir = mkdtempSync(path.join(os.tmpdir(), "gitgood-serve-replay-"));
const servers = [];
const started = Date.now();
const loads = [os.loadavg()[0]];
try {
  const env = { GITGOOD_SERVE_TOKEN: TOKEN, GITGOOD_SANDBOX_ROOT: path.join(dir, "sandboxes"), GITGOOD_CACHE_DIR: path.join(dir, "cache") };
  const families = [await gitFamilies(dir), sweFamily(dir), await commit0Family(dir, env)];
  const tally = new Map();
  const mismatches = [];
  for (const family of families) {
    const ids = family.ids.join(",");
    const attempts = [];
    for (const agent of ["oracle", "baseline"]) {
      const out = path.join(dir, `run-${family.name}-${agent}`);
      await run(["run", family.samples, "--repo", family.repo, "--agent", agent, "--ids", ids, "--repeats", String(repeats), "--jobs", String(jobs), "--out", out], dir, env);
      for (const record of lines(path.join(out, "results.jsonl"))) {
        const t = JSON.parse(readFileSync(path.join(out, record.trajectory), "utf8"));
        const recorded = t.events.filter((e) => e.type === "tool_call").map((e) => ({ tool: e.tool, args: e.args ?? {} }));
        attempts.push({ agent, record, calls: [...(agent === "oracle" ? family.toolWork(record) : []), ...recorded] });
      }
    }
    loads.push(os.loadavg()[0]);
    const url = {};
    for (const protocol of ["openenv", "ors"]) {
      const out = path.join(dir, `serve-${family.name}-${protocol}`);
      const server = await serve([family.samples, "--repo", family.repo, "--ids", ids, "--protocol", protocol, "--out", out, "--max-sessions", String(jobs * 2)], env);
      servers.push(server);
      url[protocol] = server.url;
    }
    const turns = new Map();
    await pool(attempts, jobs, async ({ agent, record, calls }) => {
      const turn = turns.get(record.scenario) ?? 0;
      turns.set(record.scenario, turn + 1);
      const p = PROTOCOLS[turn % PROTOCOLS.length];
      const end = await p.play(url[p.server], TOKEN, { sample_id: record.sample_id, scenario: record.scenario }, calls);
      const shaped = record.status === "error" ? {} : shapedRewards(scenarioNamed(record.scenario).scorers, record.scores);
      const equal = end.done === true && end.reward === rewardOf(record) && end.verdict === record.verdict && JSON.stringify(end.rewards) === JSON.stringify(shaped);
      const t = tally.get(record.scenario) ?? { equal: 0, total: 0, protocols: {}, rewards: {} };
      t.total++;
      t.protocols[p.name] = (t.protocols[p.name] ?? 0) + 1;
      t.rewards[String(end.reward)] = (t.rewards[String(end.reward)] ?? 0) + 1;
      if (equal) t.equal++;
      else mismatches.push(`${agent} ${record.key} over ${p.name}: served reward ${end.reward} (${end.verdict}, shaped ${JSON.stringify(end.rewards)}), run ${rewardOf(record)} (${record.verdict}, shaped ${JSON.stringify(shaped)})`);
      tally.set(record.scenario, t);
    });
    loads.push(os.loadavg()[0]);
    while (servers.length > 0) await servers.pop().stop();
  }
  let equal = 0;
  let total = 0;
  for (const [family, t] of [...tally].sort()) {
    const count = (o) => Object.entries(o).sort().map(([k, v]) => `${k} ${v}`).join(", ");
    console.log(`${family}: ${t.equal}/${t.total} episodes' rewards equal gitgood run's (${count(t.protocols)}; rewards ${count(t.rewards)})`);
    equal += t.equal;
    total += t.total;
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  console.log(`all: ${equal}/${total} (oracle and baseline, ${repeats} repeat(s), ${jobs} episode(s) at a time; ${seconds} s, load average ${loads.map((l) => l.toFixed(2)).join(" → ")}, ${os.cpus().length} cores)`);
  for (const m of mismatches.slice(0, 10)) console.log(`  ${m}`);
  row("serve: replayed trajectories' rewards equal run's", `${total}/${total}`, `${equal}/${total}`, equal === total);
} finally {
  while (servers.length > 0) await servers.pop().stop();
  rmSync(dir, { recursive: true, force: true });
}
