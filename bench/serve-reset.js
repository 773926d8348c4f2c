// How long `gitgood serve` takes to reset an MCR episode with a warm pool (--warm 1) and without (a sandbox
// set up when asked), paired in the same run, and whether 64 concurrent sessions run without error.
//
//   node bench/serve-reset.js [rounds] [sessions]   (after `npm run build`; defaults 20 and 64)
//
// Builds the synthetic repository, mines its merge samples, and starts two servers over OpenEnv's HTTP
// protocol: one cold, one warm. Each round resets one sample on both (in alternating order), timing each
// `POST /reset` until its response; the warm server's pool is full again before the next round, as a
// trainer's next reset comes after an episode's work. Then `sessions` clients at once each reset and
// finish an episode on the cold server (every set-up concurrent). Prints p50/p90 of both, the machine's
// load average around the measure, and the concurrent sessions' errors.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { buildSyntheticRepo } from "../dist/demo/synthetic.js";
import { row } from "./rows.js";
import { postJson, runGitgood as run, startServe as serve } from "./serve-process.js";

const TOKEN = "serve-reset-bench";
const post = (url, body) => postJson(url, body, TOKEN);
const rounds = Number(process.argv[2] ?? 20);
const sessions = Number(process.argv[3] ?? 64);




async function timedReset(server, sampleId) {
  const t = performance.now();
  const r = await post(`${server.url}/reset`, { sample_id: sampleId });
  const ms = performance.now() - t;
  if (r.status !== 200) throw new Error(`reset failed: HTTP ${r.status} ${JSON.stringify(r.body)}`);
  return ms;
}

/** Polls (every 20 ms) until `check` holds. */
async function until(check) {
  while (!check()) await sleep(20);
}

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

const dir = mkdtempSync(path.join(os.tmpdir(), "gitgood-serve-reset-"));
const servers = [];
try {
  const repo = path.join(dir, "repo");
  await buildSyntheticRepo(repo, { commits: 300, merges: 30 });
  const samplesFile = path.join(dir, "samples.jsonl");
  await run(["mine", repo, "--type", "merge", "--name", "bench/repo", "--output", samplesFile], dir);
  const ids = readFileSync(samplesFile, "utf8").trim().split("\n").map((l) => JSON.parse(l).id);
  const env = { GITGOOD_SERVE_TOKEN: TOKEN, GITGOOD_SANDBOX_ROOT: path.join(dir, "sandboxes") };
  const common = [samplesFile, "--repo", repo, "--protocol", "openenv", "--max-sessions", String(sessions + rounds + 8)];
  const cold = await serve([...common, "--out", path.join(dir, "cold")], env);
  servers.push(cold);
  const warm = await serve([...common, "--out", path.join(dir, "warm"), "--warm", "1"], env);
  servers.push(warm);
  const full = `warm: ${ids.length} sandbox(es) ready`;
  const fills = () => warm.stderr().split(full).length - 1;
  await until(() => fills() >= 1);

  const load0 = os.loadavg()[0];
  const coldMs = [];
  const warmMs = [];
  for (let i = 0; i < rounds; i++) {
    const id = ids[i % ids.length];
    const before = fills();
    if (i % 2 === 0) {
      coldMs.push(await timedReset(cold, id));
      warmMs.push(await timedReset(warm, id));
    } else {
      warmMs.push(await timedReset(warm, id));
      coldMs.push(await timedReset(cold, id));
    }
    await until(() => fills() > before);
  }
  const load1 = os.loadavg()[0];
  const served = (warm.stderr().match(/\(warm sandbox\)/g) ?? []).length;

  // Concurrent sessions: each resets and finishes an episode on the cold server, all at once.
  const t = performance.now();
  const outcomes = await Promise.all(
    Array.from({ length: sessions }, async (_, i) => {
      try {
        const reset = await post(`${cold.url}/reset`, { sample_id: ids[i % ids.length] });
        if (reset.status !== 200) return `reset: HTTP ${reset.status} ${reset.body.detail ?? ""}`;
        const step = await post(`${cold.url}/step`, { episode_id: reset.body.observation.episode_id, action: { type: "call_tool", tool_name: "finish_scenario", arguments: {} } });
        if (step.status !== 200 || step.body.done !== true) return `step: HTTP ${step.status}`;
        return step.body.observation.verdict === "error" ? `recorded as an error: ${JSON.stringify(step.body.observation.record_error)}` : null;
      } catch (err) {
        return String(err);
      }
    }),
  );
  const concurrentS = (performance.now() - t) / 1000;
  const errors = outcomes.filter((o) => o !== null);

  const f = (x) => x.toFixed(0);
  console.log(`MCR reset over OpenEnv HTTP, ${rounds} paired rounds on ${ids.length} samples (load average ${load0.toFixed(2)} → ${load1.toFixed(2)}, ${os.cpus().length} cores):`);
  console.log(`  cold (set up when asked): p50 ${f(pct(coldMs, 50))} ms, p90 ${f(pct(coldMs, 90))} ms`);
  console.log(`  warm (--warm 1):          p50 ${f(pct(warmMs, 50))} ms, p90 ${f(pct(warmMs, 90))} ms  (${served}/${rounds} from the pool)`);
  console.log(`${sessions} concurrent sessions (reset + finish_scenario, cold): ${sessions - errors.length} ok, ${errors.length} errors, ${concurrentS.toFixed(1)} s`);
  for (const e of errors.slice(0, 5)) console.log(`  ${e}`);
  row("serve: MCR reset p50, warm pool", "≤ 200 ms", `${f(pct(warmMs, 50))} ms (cold ${f(pct(coldMs, 50))} ms)`, pct(warmMs, 50) <= 200);
  row(`serve: ${sessions} concurrent sessions`, "no error", `${errors.length} errors`, errors.length === 0);
} finally {
  for (const s of servers) await s.stop();
  rmSync(dir, { recursive: true, force: true });
}
