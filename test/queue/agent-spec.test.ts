// `gitgood run --queue` sends the workers the agent the local run would make: the agent a family picks (a
// predictions file's), with its options. A private redis-server, a SWE fixture built in code, pytest as the
// oracle; the producer and the worker are child processes of bin/gitgood.js. Needs dist/ (npm run build).
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN } from "../helpers/cli.js";
import { useCacheDir } from "../helpers/envs.js";
import { startRedis, type TestRedis } from "../helpers/redis.js";
import { useSandboxRoot } from "../helpers/scenarios.js";
import { pythonTask, type PythonTask } from "../helpers/swe.js";
import { waitFor } from "../helpers/processes.js";

const SECRET = "the-agent-spec-tests-secret";

let redis: TestRedis;
let task: PythonTask;
let root: ReturnType<typeof useSandboxRoot>;
let cache: ReturnType<typeof useCacheDir>;
let dir: string;
let samples: string;
let predictions: string;
let repos: string;
const started: ChildProcess[] = [];

beforeAll(async () => {
  redis = await startRedis({ own: true });
  root = useSandboxRoot();
  cache = useCacheDir();
  task = pythonTask();
  dir = task.fixture.scratch("queue-agent-spec");
  // As SWE-bench publishes an instance (its test lists as JSON strings).
  const instance = task.sample().scenario;
  samples = path.join(dir, "instances.json");
  writeFileSync(samples, JSON.stringify([{ ...instance, FAIL_TO_PASS: JSON.stringify(instance.FAIL_TO_PASS), PASS_TO_PASS: JSON.stringify(instance.PASS_TO_PASS) }]));
  predictions = path.join(dir, "predictions.jsonl");
  writeFileSync(predictions, `${JSON.stringify({ instance_id: "acme__calc-1", model_name_or_path: "my-model", model_patch: task.gold })}\n`);
  repos = path.join(dir, "repos");
  mkdirSync(path.join(repos, "acme"), { recursive: true });
  task.fixture.git("clone", "-q", "--bare", task.fixture.dir, path.join(repos, "acme", "calc"));
}, 60_000);

afterAll(async () => {
  for (const c of started) c.kill("SIGKILL");
  await redis?.stop();
  task?.fixture.remove();
  root?.cleanup();
  cache?.cleanup();
});

interface Proc {
  stderr: () => string;
  exited: Promise<number | null>;
}

function start(args: string[]): Proc {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, GITGOOD_QUEUE_SECRET: SECRET, GITGOOD_CACHE_DIR: cache.dir, GITGOOD_SANDBOX_ROOT: root.root },
    stdio: ["ignore", "ignore", "pipe"],
  });
  started.push(child);
  let err = "";
  child.stderr?.on("data", (d: Buffer) => (err += d.toString()));
  return { stderr: () => err, exited: new Promise((resolve) => child.on("exit", (code) => resolve(code))) };
}

/** Waits for `ready` (up to `ms`), failing with `what` and the processes' stderr. */
function until(ready: () => boolean, what: string, procs: Proc[], ms = 120_000): Promise<void> {
  return waitFor(ready, what, ms, () => procs.map((p) => p.stderr()).join("\n---\n"));
}

async function exitCode(p: Proc, what: string, others: Proc[] = []): Promise<number | null> {
  let code: number | null | undefined;
  void p.exited.then((c) => (code = c));
  await until(() => code !== undefined, what, [p, ...others]);
  return code ?? null;
}

/** The fields of a run's only record that tell which agent ran and what it did. */
function attempt(out: string): Record<string, unknown> {
  const lines = readFileSync(path.join(out, "results.jsonl"), "utf8").trim().split("\n");
  expect(lines).toHaveLength(1);
  const r = JSON.parse(lines[0] as string) as Record<string, unknown>;
  return { agent: r.agent, status: r.status, verdict: r.verdict, error: r.error };
}

describe("gitgood run --queue", () => {
  it("runs on the worker the agent a family picks (--predictions), as the local run does", async () => {
    const local = path.join(dir, "local");
    const l = start(["run", samples, "--repos", repos, "--predictions", predictions, "--out", local]);
    expect(await exitCode(l, "the local run"), l.stderr()).toBe(0);
    expect(attempt(local)).toEqual({ agent: "predictions:my-model", status: "success", verdict: "solved", error: null });

    const w = start(["worker", "--queue", redis.url, "--queue-name", "spec", "--repos", repos]);
    await until(() => w.stderr().includes("taking jobs"), "the worker to start", [w]);
    const queued = path.join(dir, "queued");
    const p = start(["run", samples, "--repos", repos, "--predictions", predictions, "--out", queued, "--queue", redis.url, "--queue-name", "spec", "--allow-errors"]);
    expect(await exitCode(p, "the queued run", [w]), `${p.stderr()}\n---\n${w.stderr()}`).toBe(0);
    expect(existsSync(path.join(queued, "results.jsonl")), p.stderr()).toBe(true);
    expect(attempt(queued)).toEqual(attempt(local));
  }, 300_000);
});
