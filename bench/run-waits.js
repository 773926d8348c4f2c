// Benchmark: attempts that wait (on a model, on a slow program) overlap as `--jobs` says.
//
//   npm run build && node bench/run-waits.js                    a synthetic repository, mined here
//   npm run build && node bench/run-waits.js REPO SAMPLES.jsonl  a repository of your own and its merge samples
//
// Two pairs, each alternated BENCH_RUNS times (default 2) in one run, medians of the paired ratios:
//   command  16 MCR attempts whose agent is a command that sleeps 3 s (standing in for model latency),
//            `--jobs 8` against `--jobs 1` (goal <= 0.25; ideal 0.125 plus the set-up work, which does not wait);
//   llm      32 MCR attempts of the llm agent against a fake OpenAI-compatible endpoint on 127.0.0.1 (a
//            token of its own) that answers every request after 1 s, with a final answer (one turn per
//            attempt), `--jobs 16` against `--jobs 1` (goal <= 0.15).
// Prints the wall times, the ratios, the most requests the endpoint had in flight at once (a harness that
// serialised waiting attempts would show 1), the load average and the date.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { setTimeout } from "node:timers";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { row } from "./rows.js";
import { buildSyntheticRepo } from "./synthetic-repo.js";

const BIN = fileURLToPath(new URL("../bin/gitgood.js", import.meta.url));
const RUNS = Number(process.env.BENCH_RUNS ?? 2);
const load = () => os.loadavg().map((l) => l.toFixed(1)).join(" ");
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
};

function gitgood(args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr.on("data", (b) => (err = (err + b.toString("utf8")).slice(-2000)));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 || code === 1 ? resolve(code) : reject(new Error(`gitgood ${args.join(" ")} exited ${code}: ${err}`))));
  });
}

/** A chat-completions endpoint on 127.0.0.1 that answers each request after `delayMs` with a final answer; requests without its token get 401. */
async function slowModel(delayMs) {
  const token = randomBytes(16).toString("hex");
  const stats = { inFlight: 0, peak: 0, requests: 0 };
  const server = http.createServer((req, res) => {
    if (req.headers.authorization !== `Bearer ${token}`) {
      res.writeHead(401, { "content-type": "application/json" }).end('{"error":{"message":"bad token"}}');
      return;
    }
    req.resume();
    req.on("end", () => {
      stats.requests++;
      stats.inFlight++;
      stats.peak = Math.max(stats.peak, stats.inFlight);
      setTimeout(() => {
        stats.inFlight--;
        const body = {
          id: `c${stats.requests}`,
          object: "chat.completion",
          created: 0,
          model: "slow",
          choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "I cannot resolve this one." } }],
          usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
        };
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
      }, delayMs);
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${server.address().port}/v1`, token, stats, close: () => new Promise((resolve) => server.close(resolve)) };
}

const tmp = mkdtempSync(path.join(os.tmpdir(), "gitgood-bench-run-waits-"));
const env = { ...process.env, GITGOOD_SANDBOX_ROOT: path.join(tmp, "sandboxes"), GITGOOD_CACHE_DIR: path.join(tmp, "cache") };
try {
  const [repoArg, samplesArg] = process.argv.slice(2);
  const repo = repoArg ? path.resolve(repoArg) : path.join(tmp, "repo");
  let samplesFile = samplesArg ? path.resolve(samplesArg) : path.join(tmp, "samples.jsonl");
  if (!repoArg) {
    await buildSyntheticRepo(repo, { commits: 800, merges: 120, files: 200 });
    await gitgood(["mine", repo, "--name", "bench/repo", "--type", "merge", "-o", samplesFile], env);
  } else if (!samplesArg) {
    samplesFile = path.join(tmp, "samples.jsonl");
    await gitgood(["mine", repo, "--type", "merge", "-o", samplesFile], env);
  }
  const merges = readFileSync(samplesFile, "utf8").split("\n").filter((l) => l.includes('"merge_commit_hash"'));
  const take = (n) => {
    if (merges.length < n) throw new Error(`${n} merge samples needed, ${samplesFile} has ${merges.length}`);
    const file = path.join(tmp, `samples-${n}.jsonl`);
    writeFileSync(file, `${merges.slice(0, n).join("\n")}\n`);
    return file;
  };

  let runs = 0;
  const timed = async (file, jobs, extra, extraEnv = {}) => {
    const out = path.join(tmp, `run-${runs++}`);
    const t0 = process.hrtime.bigint();
    await gitgood(["run", file, "--repo", repo, "--scenario", "mcr", "--jobs", String(jobs), "--out", out, "--json", "--allow-errors", ...extra], { ...env, ...extraEnv });
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    const attempts = readFileSync(path.join(out, "results.jsonl"), "utf8").split("\n").filter(Boolean).length;
    rmSync(out, { recursive: true, force: true });
    return { s, attempts };
  };

  // Waiting commands: 16 attempts, 3 s each.
  const sixteen = take(16);
  const command = ["--agent", "command", "--command", "sleep 3"];
  const cmd = { one: [], eight: [] };
  for (let r = 0; r < RUNS; r++) {
    const pair = r % 2 ? [["eight", 8], ["one", 1]] : [["one", 1], ["eight", 8]];
    for (const [k, j] of pair) cmd[k].push(await timed(sixteen, j, command));
    process.stderr.write(`command round ${r + 1}/${RUNS} (load ${load()})\n`);
  }
  const cmdLoad = load();

  // A slow model: 32 attempts, 1 s per turn.
  const model = await slowModel(1000);
  const thirtyTwo = take(32);
  const llm = { one: [], sixteen: [], peak: 0 };
  try {
    const modelEnv = { OPENAI_BASE_URL: model.url, OPENAI_API_KEY: model.token };
    for (let r = 0; r < RUNS; r++) {
      const pair = r % 2 ? [["sixteen", 16], ["one", 1]] : [["one", 1], ["sixteen", 16]];
      for (const [k, j] of pair) {
        model.stats.peak = 0;
        llm[k].push(await timed(thirtyTwo, j, ["--agent", "llm", "--model", "slow", "--no-cache"], modelEnv));
        if (k === "sixteen") llm.peak = Math.max(llm.peak, model.stats.peak);
      }
      process.stderr.write(`llm round ${r + 1}/${RUNS} (load ${load()})\n`);
    }
  } finally {
    await model.close();
  }

  const ratio = (a, b) => median(a.map((t, i) => t.s / b[i].s));
  const cmdRatio = ratio(cmd.eight, cmd.one);
  const llmRatio = ratio(llm.sixteen, llm.one);
  const attempts = (list) => list[0]?.attempts ?? 0;
  console.log(`waiting agents, ${RUNS} alternated pairs, medians; ${os.availableParallelism()} cores; ${new Date().toISOString()}`);
  console.log(`command agent sleeping 3 s, ${attempts(cmd.one)} attempts: --jobs 1 ${median(cmd.one.map((t) => t.s)).toFixed(1)} s, --jobs 8 ${median(cmd.eight.map((t) => t.s)).toFixed(1)} s  x${cmdRatio.toFixed(3)}  (goal <= 0.25, ideal 0.125)  load ${cmdLoad}`);
  console.log(`llm agent, model answering after 1 s, ${attempts(llm.one)} attempts: --jobs 1 ${median(llm.one.map((t) => t.s)).toFixed(1)} s, --jobs 16 ${median(llm.sixteen.map((t) => t.s)).toFixed(1)} s  x${llmRatio.toFixed(3)}  (goal <= 0.15)  most requests in flight at once ${llm.peak}  load ${load()}`);
  row("run, command agent waiting 3 s: --jobs 8 / --jobs 1 (16 attempts)", "<= 0.25", `${cmdRatio.toFixed(3)}x`, cmdRatio <= 0.25);
  row("run, llm agent, model answering after 1 s: --jobs 16 / --jobs 1 (32 attempts)", "<= 0.15", `${llmRatio.toFixed(3)}x`, llmRatio <= 0.15);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
