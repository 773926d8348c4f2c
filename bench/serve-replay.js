// Whether `gitgood serve` gives, episode by episode, the reward `gitgood run` scored: recorded trajectories of
// the oracle and the baseline (each repeated) replayed over OpenEnv HTTP, per family.
//
//   node bench/serve-replay.js [repeats] [samples]   (after `npm run build`; defaults 6 and 10)
//
// Builds the synthetic repository, mines samples of every family it has, runs
// `gitgood run --agent oracle` and `--agent baseline` on the first `samples` of each type with `--repeats`, then serves them and
// replays each recorded attempt's tool calls in an episode of the same sample × scenario (ending it with
// finish_scenario when the calls did not). An episode agrees when its reward is the record's (1 solved,
// 0 unsolved or error, null when no scorer decides) and its record's verdict is the run's. Prints N/N per family.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { buildSyntheticRepo } from "../dist/demo/synthetic.js";
import { row } from "./rows.js";
import { postJson, runGitgood as run, startServe as serve } from "./serve-process.js";

const TOKEN = "serve-replay-bench";
const post = (url, body) => postJson(url, body, TOKEN);
const repeats = Number(process.argv[2] ?? 6);
const limit = Number(process.argv[3] ?? 10);




const lines = (file) => readFileSync(file, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
const rewardOf = (r) => (r.status === "error" ? 0 : r.solved === null ? null : r.solved ? 1 : 0);

const dir = mkdtempSync(path.join(os.tmpdir(), "gitgood-serve-replay-"));
let server = null;
try {
  const repo = path.join(dir, "repo");
  await buildSyntheticRepo(repo, { commits: 300, merges: 30 });
  const samplesFile = path.join(dir, "samples.jsonl");
  await run(["mine", repo, "--name", "bench/repo", "--output", samplesFile], dir);
  // The first `limit` samples of each type (merges give MCR; file commit chains IR and ICC).
  const byType = new Map();
  for (const s of lines(samplesFile)) byType.set(s.sample_type, [...(byType.get(s.sample_type) ?? []), s.id]);
  const ids = [...byType.values()].flatMap((list) => list.slice(0, limit)).join(",");
  const env = { GITGOOD_SERVE_TOKEN: TOKEN, GITGOOD_SANDBOX_ROOT: path.join(dir, "sandboxes") };
  const attempts = [];
  for (const agent of ["oracle", "baseline"]) {
    const out = path.join(dir, `run-${agent}`);
    await run(["run", samplesFile, "--repo", repo, "--agent", agent, "--ids", ids, "--repeats", String(repeats), "--out", out], dir, env);
    for (const record of lines(path.join(out, "results.jsonl"))) {
      const t = JSON.parse(readFileSync(path.join(out, record.trajectory), "utf8"));
      attempts.push({ agent, record, calls: t.events.filter((e) => e.type === "tool_call").map((e) => ({ tool: e.tool, args: e.args ?? {} })) });
    }
  }
  server = await serve([samplesFile, "--repo", repo, "--ids", ids, "--protocol", "openenv", "--out", path.join(dir, "serve"), "--max-sessions", "4"], env);
  const tally = new Map();
  const mismatches = [];
  for (const { agent, record, calls } of attempts) {
    const reset = await post(`${server.url}/reset`, { sample_id: record.sample_id, scenario: record.scenario });
    if (reset.status !== 200) throw new Error(`reset of ${record.key}: HTTP ${reset.status} ${JSON.stringify(reset.body)}`);
    const id = reset.body.observation.episode_id;
    let last = null;
    for (const c of calls) {
      last = (await post(`${server.url}/step`, { episode_id: id, action: { type: "call_tool", tool_name: c.tool, arguments: c.args } })).body;
      if (last.done) break;
    }
    if (!last?.done) last = (await post(`${server.url}/step`, { episode_id: id, action: { type: "call_tool", tool_name: "finish_scenario", arguments: {} } })).body;
    const equal = last.done === true && last.reward === rewardOf(record) && last.observation.verdict === record.verdict;
    const t = tally.get(record.scenario) ?? { equal: 0, total: 0 };
    t.total++;
    if (equal) t.equal++;
    else mismatches.push(`${agent} ${record.key}: served reward ${last.reward} (${last.observation.verdict}), run ${rewardOf(record)} (${record.verdict})`);
    tally.set(record.scenario, t);
  }
  let equal = 0;
  let total = 0;
  for (const [family, t] of [...tally].sort()) {
    console.log(`${family}: ${t.equal}/${t.total} episodes' rewards equal gitgood run's`);
    equal += t.equal;
    total += t.total;
  }
  console.log(`all: ${equal}/${total} (oracle and baseline, ${repeats} repeat(s), load average ${os.loadavg()[0].toFixed(2)})`);
  for (const m of mismatches.slice(0, 10)) console.log(`  ${m}`);
  row("serve: replayed trajectories' rewards equal run's", `${total}/${total}`, `${equal}/${total}`, equal === total);
} finally {
  if (server) await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
