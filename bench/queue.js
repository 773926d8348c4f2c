// Benchmark: the job queue (BullMQ on Redis) against the local pool, measured in one run on one machine.
//
//   npm run bench:queue        (builds dist/ first; needs redis-server on PATH: `npm run setup:system`)
//
// 1. Overhead per job: the same baseline jobs (BENCH_JOBS, default 200) on the synthetic repository, once
//    through the local pool (-j 1) and once through the queue with one worker taking one job at a time. Each
//    job's cost is the time between consecutive finishes; the overhead is the median of the queue's minus the
//    median of the pool's (and the mean over the whole run beside it). Goal: ≤ 50 ms.
// 2. Scaling: CPU-bound oracle jobs (BENCH_ORACLE, default 48) through 1, 2 and 4 workers of one job each.
//    Goal: 2 workers ≥ 1.6× faster than 1 on 2 cores. Where it flattens: past the core count, workers share
//    the cores (the load average is printed beside).
// 3. Redis bytes per job: the server's used_memory with the jobs waiting, and finished with their results
//    (trajectories compressed), before the producer takes them off; and after, back to the empty queue.
import { row as benchRow } from "./rows.js";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import { buildSyntheticRepo } from "./synthetic-repo.js";
import { mine } from "../dist/mining/mine.js";

const BIN = fileURLToPath(new URL("../bin/gitgood.js", import.meta.url));
const JOBS = Number(process.env.BENCH_JOBS ?? 200);
const ORACLE = Number(process.env.BENCH_ORACLE ?? 48);
const load = () => os.loadavg().map((l) => l.toFixed(2)).join(" ");

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function startRedis(dir) {
  const port = await freePort();
  const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir], { stdio: "ignore" });
  // The server listens a moment after it starts: connect until it answers (for 20 s at most).
  let client = null;
  for (const deadline = Date.now() + 20_000; client === null; ) {
    const c = new Redis({ port, host: "127.0.0.1", lazyConnect: true, retryStrategy: () => null });
    c.on("error", () => undefined);
    try {
      await c.connect();
      client = c;
    } catch (err) {
      c.disconnect();
      if (Date.now() > deadline) throw err;
      await sleep(50);
    }
  }
  return { url: `redis://127.0.0.1:${port}/0`, client, stop: () => (client.disconnect(), child.kill("SIGKILL")) };
}

/** Runs `gitgood ARGS` to its end; resolves with its wall time (ms), rejects on a non-zero exit. */
function gitgood(args, env) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(process.execPath, [BIN, ...args], { stdio: ["ignore", "ignore", "pipe"], env });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    child.on("exit", (code) => (code === 0 ? resolve(Number(process.hrtime.bigint() - t0) / 1e6) : reject(new Error(`gitgood ${args[0]} exited ${code}: ${stderr.slice(-800)}`))));
  });
}

/** Starts `n` workers; returns the function that stops them (SIGTERM, then waits). */
async function startWorkers(n, url, name, repos, env) {
  const children = [];
  for (let i = 0; i < n; i++) {
    const child = spawn(process.execPath, [BIN, "worker", "--queue", url, "--queue-name", name, "--repos", repos], { stdio: ["ignore", "ignore", "pipe"], env });
    await new Promise((resolve, reject) => {
      let text = "";
      child.stderr.on("data", (d) => {
        text += d;
        if (text.includes("taking jobs")) resolve();
      });
      child.on("exit", (code) => reject(new Error(`a worker exited ${code}: ${text}`)));
    });
    children.push(child);
  }
  return () => Promise.all(children.map((c) => new Promise((resolve) => (c.on("exit", resolve), c.kill("SIGTERM")))));
}

/** Milliseconds between consecutive finishes of a run's records, in finishing order. */
function gaps(runDir) {
  const ends = readFileSync(path.join(runDir, "results.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .map((r) => Date.parse(r.started_at) + r.duration_ms)
    .sort((a, b) => a - b);
  return ends.slice(1).map((e, i) => e - ends[i]);
}

async function main() {
  const tmp = mkdtempSync(path.join(os.tmpdir(), "gitgood-bench-queue-"));
  const env = { ...process.env, GITGOOD_SANDBOX_ROOT: path.join(tmp, "sandboxes"), GITGOOD_CACHE_DIR: path.join(tmp, "cache") };
  const redis = await startRedis(tmp);
  try {
    const repo = path.join(tmp, "repos", "bench", "repo");
    await buildSyntheticRepo(repo, { commits: 1500, merges: 160, files: 60 });
    const samples = (await mine(repo, { name: "bench/repo" })).samples;
    const merges = samples.filter((s) => s.sample_type === "merge");
    const write = (name, list) => {
      const file = path.join(tmp, name);
      writeFileSync(file, list.map((s) => `${JSON.stringify(s)}\n`).join(""));
      return file;
    };
    const baselineFile = write("baseline.jsonl", merges.slice(0, JOBS));
    const jobs = Math.min(JOBS, merges.length);
    const repos = path.join(tmp, "repos");
    const common = ["--repos", repos, "--scenario", "MCR", "--isolation", "none", "--no-cache"];
    process.stderr.write(`${samples.length} samples mined; ${jobs} baseline MCR jobs; load average ${load()}\n`);

    // 1. Overhead per job, one slot each.
    const localMs = await gitgood(["run", baselineFile, ...common, "--agent", "baseline", "-j", "1", "--out", path.join(tmp, "local")], env);
    let stop = await startWorkers(1, redis.url, "overhead", repos, env);
    const queueMs = await gitgood(["run", baselineFile, ...common, "--agent", "baseline", "--out", path.join(tmp, "queued"), "--queue", redis.url, "--queue-name", "overhead"], env);
    await stop();
    const overhead = median(gaps(path.join(tmp, "queued"))) - median(gaps(path.join(tmp, "local")));
    const mean = (queueMs - localMs) / jobs;
    console.log(`overhead per job: median ${overhead.toFixed(1)} ms (mean over the run ${mean.toFixed(1)} ms); local pool ${(localMs / 1000).toFixed(1)} s, queue ${(queueMs / 1000).toFixed(1)} s for ${jobs} jobs; load ${load()}`);
    benchRow("queue overhead per job (median, baseline MCR, 1 worker vs -j 1)", "≤ 50 ms", `${overhead.toFixed(1)} ms`, overhead <= 50);

    // 2. Scaling on oracle jobs.
    const oracleFile = write("oracle.jsonl", merges.slice(0, ORACLE));
    const times = {};
    for (const n of [1, 2, 4]) {
      stop = await startWorkers(n, redis.url, `scale${n}`, repos, env);
      times[n] = await gitgood(["run", oracleFile, ...common, "--agent", "oracle", "--out", path.join(tmp, `scale${n}`), "--queue", redis.url, "--queue-name", `scale${n}`], env);
      await stop();
      console.log(`${n} worker(s): ${Math.min(ORACLE, merges.length)} oracle jobs in ${(times[n] / 1000).toFixed(1)} s (${(times[1] / times[n]).toFixed(2)}× one worker); load ${load()}`);
    }
    const speedup = times[1] / times[2];
    benchRow("queue scaling: 2 workers vs 1 (oracle MCR)", "≥ 1.6×", `${speedup.toFixed(2)}× (4 workers: ${(times[1] / times[4]).toFixed(2)}×)`, speedup >= 1.6);

    // 3. Redis bytes per job: enqueue with no worker (the producer is stopped once it waits), run a worker until
    //    every job is finished, then collect.
    const empty = Number(/used_memory:(\d+)/.exec(await redis.client.info("memory"))[1]);
    const out = path.join(tmp, "bytes");
    const producer = spawn(process.execPath, [BIN, "run", baselineFile, ...common, "--agent", "baseline", "--out", out, "--queue", redis.url, "--queue-name", "bytes"], { stdio: ["ignore", "ignore", "pipe"], env });
    await new Promise((resolve) => {
      let text = "";
      producer.stderr.on("data", (d) => ((text += d), text.includes("waiting for workers") && resolve()));
    });
    producer.kill("SIGKILL");
    const used = async () => Number(/used_memory:(\d+)/.exec(await redis.client.info("memory"))[1]);
    const waiting = (await used()) - empty;
    stop = await startWorkers(1, redis.url, "bytes", repos, env);
    for (;;) {
      const completed = await redis.client.zcard("bull:bytes:completed");
      if (completed >= jobs) break;
      await sleep(200);
    }
    await stop();
    const finished = (await used()) - empty;
    await gitgood(["collect", out, "--queue", redis.url, "--queue-name", "bytes"], env);
    const after = (await used()) - empty;
    console.log(`Redis bytes per job: ${Math.round(waiting / jobs)} waiting, ${Math.round(finished / jobs)} finished with its result; ${after} bytes left after collect`);
    benchRow("Redis bytes per finished job (baseline MCR, compressed trajectory)", "bounded (spill over 256 KiB)", `${Math.round(finished / jobs)} B`, finished / jobs < 256 * 1024);
  } finally {
    redis.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
  console.log(`${os.availableParallelism()} cores; load average ${load()}`);
}

await main();
