// Benchmark: the job queue (BullMQ on Redis) against the local pool, measured in one run on one machine.
//
//   npm run bench:queue        (builds dist/ first; needs redis-server on PATH: `npm run setup:system`)
//
// A small synthetic repository (BENCH_QUEUE_COMMITS, default 240 commits, about a fifth of them conflicting
// merges) is mined once; its MCR samples, repeated (`--repeats`) up to the job count, are the jobs, in
// `--isolation none` with the response cache off, so that gitgood's own cost is what is measured.
//
// 1. Overhead per job: BENCH_JOBS (default 200) baseline jobs, once through the local pool (-j 1) and once
//    through the queue with one worker taking one job at a time. Each job's cost is the time between
//    consecutive finishes; the overhead is the median of the queue's minus the median of the pool's (the
//    mean over the whole run, producer start to end, beside it). Goal: ≤ 50 ms.
// 2. Scaling: BENCH_ORACLE (default 24) CPU-bound oracle jobs through 1, 2 and 4 workers of one job each.
//    Goal: 2 workers ≥ 1.6× faster than 1 on 2 cores. Past the core count workers only share the cores; on
//    a machine others load, the cores are not all the bench's (the load average is printed beside).
// 3. Redis bytes per job: BENCH_BYTES (default 50) jobs enqueued with no worker (the producer stopped once it
//    waits), then run by one worker: the server's used_memory per job waiting and finished (record and
//    compressed trajectory in Redis), MEMORY USAGE of a finished job's hash, and what is left after
//    `gitgood collect`.
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
const ORACLE = Number(process.env.BENCH_ORACLE ?? 24);
const BYTES = Number(process.env.BENCH_BYTES ?? 50);
const COMMITS = Number(process.env.BENCH_QUEUE_COMMITS ?? 240);
/** The longest any step may take before the bench gives up with what it has (ms). */
const STEP_MS = Number(process.env.BENCH_STEP_MS ?? 15 * 60_000);
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

/** Polls `ready` every 200 ms until it holds; throws `what` after STEP_MS. */
async function until(ready, what) {
  for (const deadline = Date.now() + STEP_MS; !(await ready()); ) {
    if (Date.now() > deadline) throw new Error(`gave up after ${STEP_MS / 1000} s waiting for ${what}`);
    await sleep(200);
  }
}

/** Seconds since `t0`, for the progress lines. */
const since = (t0) => ((Date.now() - t0) / 1000).toFixed(1);

async function main() {
  const started = Date.now();
  const tmp = mkdtempSync(path.join(os.tmpdir(), "gitgood-bench-queue-"));
  const env = { ...process.env, GITGOOD_SANDBOX_ROOT: path.join(tmp, "sandboxes"), GITGOOD_CACHE_DIR: path.join(tmp, "cache") };
  const redis = await startRedis(tmp);
  const log = (line) => process.stderr.write(`[${since(started)} s] ${line}; load ${load()}\n`);
  try {
    const repo = path.join(tmp, "repos", "bench", "repo");
    await buildSyntheticRepo(repo, { commits: COMMITS, merges: Math.floor(COMMITS / 4), files: 8 });
    const merges = (await mine(repo, { name: "bench/repo" })).samples.filter((s) => s.sample_type === "merge");
    if (merges.length === 0) throw new Error("the synthetic repository gave no merge sample");
    const write = (name, list) => {
      const file = path.join(tmp, name);
      writeFileSync(file, list.map((s) => `${JSON.stringify(s)}\n`).join(""));
      return file;
    };
    /** The samples file and --repeats that make `n` MCR jobs (the samples repeated, the last round cut short by taking fewer samples). */
    const jobsOf = (name, n) => {
      const repeats = Math.ceil(n / merges.length);
      const per = Math.ceil(n / repeats);
      return { file: write(name, merges.slice(0, per)), repeats, count: per * repeats };
    };
    const repos = path.join(tmp, "repos");
    const common = ["--repos", repos, "--scenario", "MCR", "--isolation", "none", "--no-cache"];
    log(`${merges.length} merge samples mined from ${COMMITS} commits`);

    // 1. Overhead per job, one slot each.
    const base = jobsOf("baseline.jsonl", JOBS);
    const baseArgs = [base.file, ...common, "--repeats", String(base.repeats), "--agent", "baseline"];
    const localMs = await gitgood(["run", ...baseArgs, "-j", "1", "--out", path.join(tmp, "local")], env);
    log(`local pool: ${base.count} baseline jobs in ${(localMs / 1000).toFixed(1)} s`);
    let stop = await startWorkers(1, redis.url, "overhead", repos, env);
    log("the overhead's worker started");
    const queueMs = await gitgood(["run", ...baseArgs, "--out", path.join(tmp, "queued"), "--queue", redis.url, "--queue-name", "overhead"], env);
    await stop();
    const localGap = median(gaps(path.join(tmp, "local")));
    const queueGap = median(gaps(path.join(tmp, "queued")));
    const overhead = queueGap - localGap;
    const mean = (queueMs - localMs) / base.count;
    console.log(
      `overhead per job: median ${overhead.toFixed(1)} ms (${queueGap.toFixed(1)} ms a job through the queue, ${localGap.toFixed(1)} ms in the local pool; ` +
        `mean over the whole run ${mean.toFixed(1)} ms); ${base.count} jobs: local pool ${(localMs / 1000).toFixed(1)} s, queue ${(queueMs / 1000).toFixed(1)} s; load ${load()}`,
    );
    benchRow(`queue overhead per job (median, ${base.count} baseline MCR jobs, 1 worker vs -j 1)`, "≤ 50 ms", `${overhead.toFixed(1)} ms`, overhead <= 50);

    // 2. Scaling on oracle jobs.
    const oracle = jobsOf("oracle.jsonl", ORACLE);
    const times = {};
    const loads = {};
    for (const n of [1, 2, 4]) {
      stop = await startWorkers(n, redis.url, `scale${n}`, repos, env);
      times[n] = await gitgood(["run", oracle.file, ...common, "--repeats", String(oracle.repeats), "--agent", "oracle", "--out", path.join(tmp, `scale${n}`), "--queue", redis.url, "--queue-name", `scale${n}`], env);
      loads[n] = os.loadavg()[0].toFixed(2);
      await stop();
      console.log(`${n} worker(s): ${oracle.count} oracle jobs in ${(times[n] / 1000).toFixed(1)} s (${(times[1] / times[n]).toFixed(2)}× one worker); load ${load()}`);
    }
    const speedup = times[1] / times[2];
    const flat = times[1] / times[4] < speedup * 1.1 ? "flat from 2 workers on (2 cores)" : "still rising at 4 workers";
    console.log(`scaling: 2 workers ${speedup.toFixed(2)}×, 4 workers ${(times[1] / times[4]).toFixed(2)}× one worker: ${flat}; 1-minute load ${loads[1]}, ${loads[2]}, ${loads[4]} at the end of each`);
    benchRow(`queue scaling: 2 workers vs 1 (${oracle.count} oracle MCR jobs)`, "≥ 1.6×", `${speedup.toFixed(2)}× (4 workers: ${(times[1] / times[4]).toFixed(2)}×)`, speedup >= 1.6);

    // 3. Redis bytes per job: enqueue with no worker (the producer is stopped once it waits), run a worker until
    //    every job is finished, then collect.
    const used = async () => Number(/used_memory:(\d+)/.exec(await redis.client.info("memory"))[1]);
    const empty = await used();
    const few = jobsOf("bytes.jsonl", BYTES);
    const out = path.join(tmp, "bytes");
    const producer = spawn(process.execPath, [BIN, "run", few.file, ...common, "--repeats", String(few.repeats), "--agent", "baseline", "--out", out, "--queue", redis.url, "--queue-name", "bytes"], { stdio: ["ignore", "ignore", "pipe"], env });
    let said = "";
    producer.stderr.on("data", (d) => (said += d));
    await until(() => said.includes("waiting for workers"), "the producer to enqueue");
    producer.kill("SIGKILL");
    const waiting = (await used()) - empty;
    log(`${few.count} jobs enqueued, the producer stopped`);
    stop = await startWorkers(1, redis.url, "bytes", repos, env);
    await until(async () => (await redis.client.zcard("bull:bytes:completed")) + (await redis.client.zcard("bull:bytes:failed")) >= few.count, "the worker to finish the jobs");
    await stop();
    const finished = (await used()) - empty;
    log("the worker finished them");
    const ids = await redis.client.zrange("bull:bytes:completed", 0, -1);
    const hashes = await Promise.all(ids.map((id) => redis.client.call("MEMORY", "USAGE", `bull:bytes:${id}`, "SAMPLES", "0")));
    const perHash = median(hashes.map(Number));
    await gitgood(["collect", out, "--queue", redis.url, "--queue-name", "bytes"], env);
    const after = (await used()) - empty;
    log("collected");
    console.log(
      `Redis bytes per job (${few.count} jobs): ${Math.round(waiting / few.count)} waiting, ${Math.round(finished / few.count)} finished with its result ` +
        `(MEMORY USAGE of a finished job's hash: median ${perHash} B); ${after} bytes left after collect`,
    );
    benchRow("Redis bytes per finished job (baseline MCR, compressed trajectory)", "bounded (spill over 256 KiB)", `${Math.round(finished / few.count)} B (job hash ${perHash} B)`, finished / few.count < 256 * 1024);
  } finally {
    redis.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
  console.log(`${os.availableParallelism()} cores; load average ${load()}; ${since(started)} s in all`);
}

await main();
