// The job queue end to end: `gitgood run --queue` and `gitgood worker`s as child processes of bin/gitgood.js, a
// private redis-server, fixture repositories built in code, the oracle and a command agent as the agents. Every
// wait is a poll with a deadline. Needs dist/ (npm run build).
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Sample } from "../../src/dataset/sample.js";
import { RunQueue } from "../../src/queue/producer.js";
import { queueSecret } from "../../src/queue/secret.js";
import { parseQueueAddress } from "../../src/queue/url.js";
import { BIN } from "../helpers/cli.js";
import type { Fixture } from "../helpers/fixture.js";
import { processesWith, waitFor } from "../helpers/processes.js";
import { freePort, startRedis, type TestRedis } from "../helpers/redis.js";
import { buildRunFixture } from "../helpers/runs.js";
import { fakeUpstream } from "../proxy/fake-upstream.js";

/** The scripted external agent that asks its model through the worker's proxy. */
const ASKS_PROXY = fileURLToPath(new URL("./agents/asks-proxy.mjs", import.meta.url));

interface Proc {
  child: ChildProcess;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** The key the model proxy's upstream expects: the workers' own, never the producer's, never in Redis. */
const USER_KEY = "sk-worker-key-never-in-redis";
/** The secret the producers and workers of these tests share (GITGOOD_QUEUE_SECRET of every process started). */
const SECRET = "the-workers-tests-shared-secret";

let redis: TestRedis;
let upstream: Awaited<ReturnType<typeof fakeUpstream>>;
let fx: Fixture;
let samples: Sample[];
let root: string;
let samplesFile: string;
let repos: string;
const running: Proc[] = [];

beforeAll(async () => {
  redis = await startRedis({ own: true });
  ({ fx, samples } = await buildRunFixture());
  root = mkdtempSync(path.join(os.tmpdir(), "gitgood-workers-"));
  samplesFile = path.join(root, "samples.jsonl");
  writeFileSync(samplesFile, samples.map((s) => `${JSON.stringify(s)}\n`).join(""));
  repos = path.join(root, "repos");
  mkdirSync(path.join(repos, "acme"), { recursive: true });
  fx.git("clone", "-q", "--bare", fx.dir, path.join(repos, "acme", "calc"));
  upstream = await fakeUpstream(() => ({
    events: [
      { data: { choices: [{ index: 0, delta: { role: "assistant", content: "take theirs" }, finish_reason: "stop" }] } },
      { data: { choices: [], usage: { prompt_tokens: 400, completion_tokens: 100 } } },
    ],
    done: true,
  }));
}, 150_000);

/** Processes the next afterEach stops; the shared workers stay until afterAll. */
let shared: Proc[] = [];

afterEach(async () => {
  for (const p of running.splice(0)) {
    if (shared.includes(p)) continue;
    p.child.kill("SIGKILL");
    await p.exited;
  }
  running.push(...shared);
});

afterAll(async () => {
  for (const p of shared) p.child.kill("SIGKILL");
  await Promise.all(shared.map((p) => p.exited));
  await upstream?.close();
  await redis?.stop();
  fx?.remove();
  rmSync(root, { recursive: true, force: true });
});

let n = 0;
/** A fresh directory under the test's root. */
function fresh(label: string): string {
  return path.join(root, `${label}-${++n}`);
}

function start(args: string[], env: Record<string, string> = {}): Proc {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, GITGOOD_QUEUE_SECRET: SECRET, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let err = "";
  child.stderr?.on("data", (d: Buffer) => (err += d.toString()));
  child.stdout?.resume();
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const p = { child, stderr: () => err, exited };
  running.push(p);
  return p;
}

/** Waits for `ready` (up to `ms`), failing with `what` and the processes' stderr. */
function until(ready: () => boolean, what: string, ms = 90_000): Promise<void> {
  return waitFor(ready, what, ms, () => running.map((p) => p.stderr()).join("\n---\n"));
}

async function finished(p: Proc, what: string, ms = 90_000): Promise<number | null> {
  let code: number | null | undefined;
  void p.exited.then((c) => (code = c));
  await until(() => code !== undefined, what, ms);
  return code ?? null;
}

/** A worker of `queue` with a sandbox root of its own; resolves once it takes jobs. */
async function worker(
  queue: string,
  opts: { repos?: string; sandboxes?: string; concurrency?: number; lockMs?: number; extra?: string[]; env?: Record<string, string> } = {},
): Promise<Proc> {
  const lock = opts.lockMs !== undefined ? ["--lock-duration", String(opts.lockMs)] : [];
  const w = start(
    ["worker", "--queue", redis.url, "--queue-name", queue, "--repos", opts.repos ?? repos, "--concurrency", String(opts.concurrency ?? 1), ...lock, ...(opts.extra ?? [])],
    { GITGOOD_SANDBOX_ROOT: opts.sandboxes ?? fresh("sandboxes"), ...opts.env },
  );
  await until(() => w.stderr().includes("taking jobs"), "a worker to start");
  return w;
}

function records(dir: string): Record<string, unknown>[] {
  const file = path.join(dir, "results.jsonl");
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** What must agree between executors: key, status, verdict and scores, by key. */
function outcomes(dir: string): unknown[] {
  return records(dir)
    .map((r) => ({ key: r.key, status: r.status, verdict: r.verdict, solved: r.solved, scores: r.scores }))
    .sort((a, b) => String(a.key).localeCompare(String(b.key)));
}

/** A command agent that waits, in its sandbox, until the file `gate` exists; `marker` names its processes. */
function gatedCommand(gate: string, marker: string): string {
  return `sh -c 'while [ ! -e ${gate} ]; do sleep 0.05; done; : ${marker}'`;
}

/** The git commands a process (and the git processes it started) ran, from the GIT_TRACE file it was given. */
function gitCommands(trace: string): string[] {
  if (!existsSync(trace)) return [];
  return readFileSync(trace, "utf8")
    .split("\n")
    .flatMap((l) => /trace: (?:built-in|exec): git (\S+)/.exec(l)?.slice(1, 2) ?? []);
}

let pair: Promise<{ workers: Proc[]; traces: string[] }> | null = null;
/**
 * Two workers of the queue SHARED, kept for every test of the file that needs plain workers: each with the
 * fake upstream as its model endpoint and the user's key (the proxy's test), and a GIT_TRACE file of its own.
 */
const SHARED = "shared";
function sharedWorkers(): Promise<{ workers: Proc[]; traces: string[] }> {
  pair ??= (async () => {
    const traces = [fresh("trace-w1"), fresh("trace-w2")];
    const workers: Proc[] = [];
    for (const trace of traces) {
      workers.push(await worker(SHARED, { extra: ["--allow-agents", "command", "--allow-read", path.dirname(ASKS_PROXY)], env: { GIT_TRACE: trace, OPENAI_BASE_URL: upstream.url, OPENAI_API_KEY: USER_KEY } }));
    }
    shared = workers;
    return { workers, traces };
  })();
  return pair;
}

let local: Promise<{ outcomes: unknown[]; git: string[] }> | null = null;
/** The oracle on every sample through the local pool (its outcomes and git commands): run once, by the first test that needs them. */
function localRun(): Promise<{ outcomes: unknown[]; git: string[] }> {
  local ??= (async () => {
    const dir = fresh("local");
    const trace = fresh("local-trace");
    const l = start(["run", samplesFile, "--repos", repos, "--agent", "oracle", "--out", dir, "-j", "2"], { GIT_TRACE: trace });
    expect(await finished(l, "the local run"), l.stderr()).toBe(0);
    return { outcomes: outcomes(dir), git: gitCommands(trace) };
  })();
  return local;
}

describe("gitgood run --queue with gitgood worker", () => {
  it("gives the same records as the local pool, through two workers that start no more git processes than it", async () => {
    const { outcomes: expected, git: localGit } = await localRun();
    const {
      workers: [w1, w2],
      traces,
    } = await sharedWorkers();
    if (!w1 || !w2) throw new Error("two shared workers");
    const queued = fresh("queued");
    const p = start(["run", samplesFile, "--repos", repos, "--agent", "oracle", "--out", queued, "--queue", redis.url, "--queue-name", SHARED]);
    expect(await finished(p, "the queued run"), p.stderr()).toBe(0);
    expect(outcomes(queued)).toEqual(expected);
    expect(expected).toHaveLength(4);
    expect(records(queued).every((r) => existsSync(path.join(queued, String(r.trajectory))))).toBe(true);
    // Both workers took jobs (rates in `gitgood status`), and the queue is free for another run.
    const s = start(["status", queued, "--queue", redis.url, "--queue-name", SHARED, "--json"]);
    let out = "";
    s.child.stdout?.on("data", (d: Buffer) => (out += d.toString()));
    expect(await finished(s, "status")).toBe(0);
    const status = JSON.parse(out) as { run: string | null; recorded: number; workers: { done: number }[]; waiting: number };
    expect(status).toMatchObject({ run: null, recorded: 4, waiting: 0 });
    expect(status.workers.reduce((a, w) => a + w.done, 0)).toBe(4);
    expect(w1.stderr() + w2.stderr()).toMatch(/done .*\.MCR success solved/);
    // Each worker opens the repository once for its life, as the local run does (a probe of one or two
    // rev-parse), and reads objects through that handle's one reader: not a probe and a git process per
    // object read in every job.
    const workerGit = traces.map(gitCommands);
    const probes = (git: string[]): number => git.filter((c) => c === "rev-parse").length;
    expect(probes(localGit)).toBeGreaterThan(0);
    for (const git of workerGit) expect(probes(git), git.join(" ")).toBeLessThanOrEqual(probes(localGit));
    // Beside the local run's git processes, each worker starts only its own: the probe, the config read, its reader.
    expect(workerGit.flat().length, `${workerGit.flat().join(" ")}\nlocal: ${localGit.join(" ")}`).toBeLessThanOrEqual(localGit.length + 2 * (probes(localGit) + 3));
  }, 150_000);

  it("loses nothing when a worker holding jobs is killed: another runs them, each is recorded once, and its sandboxes are swept on its next start", async () => {
    const gate = fresh("gate");
    mkdirSync(gate);
    const marker = `gitgood-kill-${process.pid}-${n}`;
    const sandboxes = fresh("sandboxes-a");
    // A short lock: the killed worker's jobs go back to the queue 3 s after it stops renewing them.
    // The command agent and the gate are what these workers give their jobs.
    const leave = ["--allow-agents", "command", "--allow-read", gate];
    const a = await worker("kill", { sandboxes, concurrency: 2, lockMs: 3000, extra: leave });
    const out = fresh("killed");
    const command = gatedCommand(path.join(gate, "open"), marker);
    const args = ["run", samplesFile, "--repos", repos, "--agent", "command", "--command", command, "--allow-read", gate, "--scenario", "MCR", "--out", out];
    const p = start([...args, "--queue", redis.url, "--queue-name", "kill"]);
    // Both MCR jobs are the killed worker's, each in a sandbox, its agent waiting at the gate.
    // The producer's own command line holds the marker too: only the agents' processes count.
    const agents = (): number[] => processesWith(marker).filter((pid) => pid !== p.child.pid);
    await until(() => (a.stderr().match(/^took /gm) ?? []).length === 2 && agents().length >= 2, "worker A to hold both jobs");
    const left = readdirSync(sandboxes).filter((d) => !d.startsWith("."));
    expect(left.filter((d) => d.startsWith("acme_calc_merge_"))).toHaveLength(2);
    a.child.kill("SIGKILL");
    await a.exited;
    // The agents die with the worker (the jail dies with its parent).
    await until(() => agents().length === 0, "the killed worker's agent processes to end");
    writeFileSync(path.join(gate, "open"), "");
    const b = await worker("kill", { lockMs: 3000, extra: leave });
    expect(await finished(p, "the producer after the kill"), p.stderr()).toBe(0);
    const keys = records(out).map((r) => r.key);
    expect(keys.sort()).toEqual(samples.filter((s) => s.sample_type === "merge").map((s) => `${s.id}.MCR`).sort());
    expect(records(out).every((r) => r.status === "success")).toBe(true);
    expect((b.stderr().match(/^done /gm) ?? []).length).toBe(2);
    // Its next start sweeps what the killed worker left.
    expect(readdirSync(sandboxes).filter((d) => !d.startsWith("."))).toEqual(left);
    const again = await worker("kill", { sandboxes });
    expect(again.stderr()).toMatch(/^swept \d+ sandbox\(es\) left by a killed gitgood process$/m);
    // Nothing of the killed worker is left; the one thing there may be is the live worker's own pack cache.
    const ownedByAgain = (d: string): boolean => {
      try {
        return (JSON.parse(readFileSync(path.join(sandboxes, d, "owner.json"), "utf8")) as { pid?: unknown }).pid === again.child.pid;
      } catch {
        return false;
      }
    };
    const remaining = readdirSync(sandboxes).filter((d) => !d.startsWith("."));
    expect(remaining.filter((d) => !ownedByAgain(d))).toEqual([]);
    expect(remaining.every((d) => d.startsWith("packs-"))).toBe(true);
  }, 150_000);

  it("rides out a Redis restart: the run finishes, and running it again enqueues only what has no record", async () => {
    const tokens = fresh("tokens");
    mkdirSync(tokens);
    const marker = `gitgood-restart-${process.pid}-${n}`;
    // Each attempt takes a token to finish: the test lets them through one at a time.
    const command = `sh -c 'while :; do t=$(ls ${tokens} | head -n 1); [ -n "$t" ] && rm "${tokens}/$t" 2>/dev/null && break; sleep 0.05; done; : ${marker}'`;
    const out = fresh("restart");
    const args = ["run", samplesFile, "--repos", repos, "--agent", "command", "--command", command, "--isolation", "none", "--scenario", "MCR", "--out", out, "--queue", redis.url, "--queue-name", "restart"];
    const w = await worker("restart", { extra: ["--isolation", "none", "--allow-agents", "command"] });
    const p = start(args);
    writeFileSync(path.join(tokens, "t0"), "");
    await until(() => records(out).length === 1, "the first record");
    const first = records(out)[0];
    await until(() => (w.stderr().match(/^took /gm) ?? []).length === 2, "the worker to take the second job");
    await redis.restart();
    for (let i = 1; i <= 12; i++) writeFileSync(path.join(tokens, `t${i}`), "");
    expect(await finished(p, "the producer after the restart"), p.stderr()).toBe(0);
    const after = records(out);
    expect(after).toHaveLength(2);
    expect(new Set(after.map((r) => r.key)).size).toBe(2);
    expect(after.find((r) => r.key === first?.key)).toEqual(first);
    // The same worker reconnected and ran the lost jobs.
    expect(w.child.exitCode).toBeNull();
    // Running the producer again with one record removed enqueues that one job only.
    const kept = after.slice(0, 1);
    writeFileSync(path.join(out, "results.jsonl"), kept.map((r) => `${JSON.stringify(r)}\n`).join(""));
    for (let i = 20; i <= 25; i++) writeFileSync(path.join(tokens, `t${i}`), "");
    const again = start(args);
    expect(await finished(again, "the second producer"), again.stderr()).toBe(0);
    expect(again.stderr()).toMatch(/1 job\(s\) added, 0 there already/);
    const final = records(out);
    expect(final).toHaveLength(2);
    expect(final.slice(0, 1)).toEqual(kept);
  }, 150_000);

  it("gives an external agent the worker's recording proxy: its model call is answered with the worker's key and its tokens recorded", async () => {
    // The key is the workers' alone: the producer has none, so the ticket cannot carry one.
    await sharedWorkers();
    const out = fresh("proxy");
    const easy = samples.find((s) => s.sample_type === "merge" && s.difficulty === "easy");
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(ASKS_PROXY)}`;
    const before = upstream.seen.length;
    const p = start(
      ["run", samplesFile, "--repos", repos, "--ids", easy?.id ?? "", "--scenario", "MCR", "--agent", "command", "--command", command, "--allow-read", path.dirname(ASKS_PROXY),
        "--price-in", "2", "--price-out", "8", "--out", out, "--queue", redis.url, "--queue-name", SHARED],
      { OPENAI_BASE_URL: "", OPENAI_API_KEY: "" },
    );
    expect(await finished(p, "the producer"), p.stderr()).toBe(0);
    const [record] = records(out);
    expect(record, JSON.stringify(record)).toMatchObject({ status: "success", tokens: { prompt: 400, completion: 100 }, cost_usd: (400 * 2 + 100 * 8) / 1e6 });
    const events = (JSON.parse(readFileSync(path.join(out, String(record?.trajectory)), "utf8")) as { events: { type: string; text?: string }[] }).events;
    expect(events.filter((e) => e.type === "model")).toHaveLength(1);
    expect(events.some((e) => e.type === "note" && e.text?.includes("model: 200"))).toBe(true);
    expect(upstream.seen.slice(before).map((r) => r.headers.authorization)).toEqual([`Bearer ${USER_KEY}`]);
  }, 150_000);

  it("a worker whose clone lacks the commits, or that cannot clone, fails its jobs as infrastructure errors in one line; a --clone worker runs them from its own clone as a local run does", async () => {
    const { outcomes: expected } = await localRun();
    const empty = fresh("empty-repos");
    mkdirSync(path.join(empty, "acme"), { recursive: true });
    fx.git("init", "-q", "--bare", path.join(empty, "acme", "calc"));
    const cache = fresh("clone-cache");
    // The broken workers start first: they wait for jobs first, so the first two jobs go to them.
    const lacking = await worker("broken", { repos: empty });
    const unclonable = await worker("broken", { repos: fresh("clone-none"), extra: ["--clone", "--url-pattern", `file://${root}/nowhere/{name}`] });
    const cloning = await worker("broken", { repos: cache, extra: ["--clone", "--url-pattern", `file://${repos}/{name}`] });
    const out = fresh("cloned");
    const p = start(["run", samplesFile, "--repos", repos, "--agent", "oracle", "--out", out, "--queue", redis.url, "--queue-name", "broken"]);
    expect(await finished(p, "the producer"), p.stderr()).toBe(0);
    expect(outcomes(out)).toEqual(expected);
    expect(lacking.stderr()).toMatch(/^failed \S+: MISSING_COMMIT: this worker's clone of acme\/calc \(\S+\) lacks commit [0-9a-f]{40} of sample \S+$/m);
    expect(unclonable.stderr()).toMatch(/^failed \S+: CLONE_FAILED: this worker could not clone acme\/calc from file:\/\/\S+\/nowhere\/acme\/calc: .+$/m);
    for (const broken of [lacking, unclonable]) expect(broken.stderr()).not.toMatch(/^done /m);
    expect(cloning.stderr()).toMatch(/^done /m);
    expect(existsSync(path.join(cache, "acme", "calc", "HEAD"))).toBe(true);
    // A pattern that is not a plain remote is refused at the worker's start, in one line.
    const ext = start(["worker", "--queue", redis.url, "--repos", cache, "--clone", "--url-pattern", "ext::sh -c touch% /tmp/pwned-{name}"]);
    expect(await finished(ext, "the ext:: worker")).toBe(2);
    expect(ext.stderr()).toMatch(/^gitgood: --url-pattern ext::sh -c touch% \/tmp\/pwned-\{name\} is not a remote a worker clones from \(git remote helpers are not taken\); .+\n$/);
  }, 150_000);

  it("refuses a bad --queue, an unreachable Redis and a queue of another run in one line each, writing nothing", async () => {
    const cases: [string[], number, RegExp][] = [
      [["--queue", "http://127.0.0.1:1"], 2, /^gitgood: --queue http:\/\/127\.0\.0\.1:1 is not a Redis URL \(the scheme is http, not redis or rediss\); give redis:\/\/HOST:PORT\[\/DB\], or rediss:\/\/ for TLS\n$/],
      [["--queue", `redis://127.0.0.1:${await freePort()}`], 1, /^gitgood: cannot reach the queue's Redis at redis:\/\/127\.0\.0\.1:\d+\/0: ECONNREFUSED\n$/],
    ];
    const other = await RunQueue.open(parseQueueAddress(redis.url, "taken"), { agent: "someone-else" }, { secret: queueSecret(undefined, { GITGOOD_QUEUE_SECRET: SECRET }) });
    await other.claim();
    await other.close();
    cases.push([["--queue", redis.url, "--queue-name", "taken"], 2, /^gitgood: the queue taken at redis:\/\/127\.0\.0\.1:\d+\/0 holds the jobs of another run \(\w+, this one is \w+\); use another --queue-name, or collect that run first\n$/]);
    // The three producers run at once: each is refused on its own.
    const runs = cases.map(([extra, code, message]) => {
      const out = fresh("refused");
      return { extra, code, message, out, p: start(["run", samplesFile, "--repos", repos, "--agent", "oracle", "--out", out, ...extra]) };
    });
    for (const { extra, code, message, out, p } of runs) {
      expect(await finished(p, extra.join(" ")), p.stderr()).toBe(code);
      expect(p.stderr()).toMatch(message);
      expect(existsSync(out)).toBe(false);
    }
  }, 150_000);
});

describe("a worker owns its policy, and the queue's Redis is not trusted", () => {
  /** The first merge sample's MCR job, run by `command` writing `canary` (outside every sandbox) on the queue `queue`. */
  function canaryRun(queue: string, canary: string, extra: string[], env: Record<string, string> = {}): { out: string; p: Proc } {
    const easy = samples.find((s) => s.sample_type === "merge");
    const out = fresh(queue);
    const args = ["run", samplesFile, "--repos", repos, "--ids", easy?.id ?? "", "--scenario", "MCR", "--agent", "command", "--command", `touch ${canary}`, "--allow-errors"];
    return { out, p: start([...args, ...extra, "--out", out, "--queue", redis.url, "--queue-name", queue], env) };
  }

  it("a job asking for more than the worker gives (an unisolated command, the network, a read, a variable) fails as POLICY_REFUSED in one line, unrun", async () => {
    const w = await worker("policy", { extra: ["--allow-agents", "command"] });
    const home = fresh("home");
    mkdirSync(home);
    for (const [i, extra] of [["--isolation", "none"], ["--network"], ["--allow-read", home], ["--pass-env", "OPENAI_API_KEY"]].entries()) {
      const canary = path.join(root, `canary-policy-${i}`);
      const { out, p } = canaryRun("policy", canary, extra);
      expect(await finished(p, `the producer of ${extra.join(" ")}`), p.stderr()).toBe(0);
      const [record] = records(out);
      expect(record, JSON.stringify(record)).toMatchObject({ status: "error", error: { code: "POLICY_REFUSED" } });
      expect((record?.error as { message: string }).message).toMatch(/^a worker refused the job: the job asks for .+, which this worker does not give \(.+\) \(on \S+\)$/);
      expect(existsSync(canary)).toBe(false);
    }
    // Refused once each, never retried: four refused, none done or failed (retried).
    expect(w.stderr().match(/^refused \S+: POLICY_REFUSED: /gm) ?? []).toHaveLength(4);
    expect(w.stderr()).not.toMatch(/^(done|failed) /m);
  }, 150_000);

  it("a job signed with another secret (a forged ticket: a command agent, unisolated) is refused even by a worker whose policy would run it", async () => {
    const w = await worker("forged", { extra: ["--isolation", "none", "--allow-agents", "command"] });
    const canary = path.join(root, "canary-forged");
    const { out, p } = canaryRun("forged", canary, ["--isolation", "none"], { GITGOOD_QUEUE_SECRET: "a-forger-who-lacks-the-secret" });
    expect(await finished(p, "the forger's producer"), p.stderr()).toBe(0);
    expect(records(out)[0]).toMatchObject({ status: "error", error: { code: "BAD_SIGNATURE" } });
    expect(existsSync(canary)).toBe(false);
    expect(w.stderr()).toMatch(/^refused \S+: BAD_SIGNATURE: the job \S+ is not signed with this queue's secret/m);
    // The same job from a producer with the secret runs: the worker's policy gives it.
    const honest = canaryRun("forged", canary, ["--isolation", "none"]);
    expect(await finished(honest.p, "the honest producer"), honest.p.stderr()).toBe(0);
    expect(existsSync(canary)).toBe(true);
  }, 150_000);

  it("a worker or producer without a secret, or with a policy that cannot be, stops at start-up in one line", async () => {
    const cases: [string[], RegExp][] = [
      [["worker", "--queue", redis.url, "--repos", repos], /^gitgood: the queue needs a secret shared by the producer and every worker: set GITGOOD_QUEUE_SECRET or give --secret-file FILE .*\n$/],
      [["run", samplesFile, "--repos", repos, "--agent", "oracle", "--out", fresh("nosecret"), "--queue", redis.url], /^gitgood: the queue needs a secret shared/],
    ];
    for (const [args, message] of cases) {
      const p = start(args, { GITGOOD_QUEUE_SECRET: "" });
      expect(await finished(p, args[0] ?? "")).toBe(2);
      expect(p.stderr()).toMatch(message);
    }
    const bad = start(["worker", "--queue", redis.url, "--repos", repos, "--allow-agents", "command,shell"]);
    expect(await finished(bad, "a worker with a bad --allow-agents")).toBe(2);
    expect(bad.stderr()).toMatch(/^gitgood: --allow-agents takes command, mcp-command, a2a \(other agents need no leave\), not 'shell'\n$/);
  }, 60_000);

  it("talks TLS to a rediss:// server whose certificate it trusts, and refuses one it does not", async () => {
    const certs = fresh("tls");
    mkdirSync(certs);
    const [cert, key] = [path.join(certs, "cert.pem"), path.join(certs, "key.pem")];
    const made = spawnSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"], { encoding: "utf8" });
    expect(made.status, made.stderr).toBe(0);
    const tls = await startRedis({ tls: { cert, key } });
    try {
      expect(tls.url).toMatch(/^rediss:\/\//);
      const trusted = start(["status", "--queue", tls.url, "--json"], { NODE_EXTRA_CA_CERTS: cert });
      let out = "";
      trusted.child.stdout?.on("data", (d: Buffer) => (out += d.toString()));
      expect(await finished(trusted, "status over TLS"), trusted.stderr()).toBe(0);
      expect(JSON.parse(out)).toMatchObject({ waiting: 0 });
      const untrusted = start(["status", "--queue", tls.url, "--json"]);
      expect(await finished(untrusted, "status over TLS, certificate not trusted")).toBe(1);
      expect(untrusted.stderr()).toMatch(/^gitgood: cannot reach the queue's Redis at rediss:\/\/127\.0\.0\.1:\d+\/0: (SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT)\n$/);
    } finally {
      await tls.stop();
    }
  }, 60_000);
});
