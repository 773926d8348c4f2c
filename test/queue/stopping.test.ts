// Workers and producers that stop: `gitgood status` tells a killed worker from a live one (and never prints a
// negative age), and a producer stopped by SIGTERM says what it left on the queue. Child processes of
// bin/gitgood.js on a private redis-server; every wait is a poll with a deadline. Needs dist/ (npm run build).
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { queueKeys } from "../../src/queue/keys.js";
import { parseQueueAddress } from "../../src/queue/url.js";
import { BIN } from "../helpers/cli.js";
import type { Fixture } from "../helpers/fixture.js";
import { startRedis, type TestRedis } from "../helpers/redis.js";
import { buildRunFixture } from "../helpers/runs.js";
import { waitFor } from "../helpers/processes.js";

const SECRET = "the-stopping-tests-shared-secret";

interface Proc {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

let redis: TestRedis;
let fx: Fixture;
let root: string;
let samplesFile: string;
let repos: string;
const running: Proc[] = [];

beforeAll(async () => {
  redis = await startRedis({ own: true });
  const built = await buildRunFixture();
  fx = built.fx;
  root = mkdtempSync(path.join(os.tmpdir(), "gitgood-stopping-"));
  samplesFile = path.join(root, "samples.jsonl");
  writeFileSync(samplesFile, built.samples.map((s) => `${JSON.stringify(s)}\n`).join(""));
  repos = path.join(root, "repos");
  mkdirSync(path.join(repos, "acme"), { recursive: true });
  fx.git("clone", "-q", "--bare", fx.dir, path.join(repos, "acme", "calc"));
}, 120_000);

afterEach(async () => {
  for (const p of running.splice(0)) {
    p.child.kill("SIGKILL");
    await p.exited;
  }
});

afterAll(async () => {
  await redis?.stop();
  fx?.remove();
  rmSync(root, { recursive: true, force: true });
});

function start(args: string[]): Proc {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, GITGOOD_QUEUE_SECRET: SECRET, GITGOOD_SANDBOX_ROOT: mkdtempSync(path.join(root, "sandboxes-")) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout?.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (err += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  const p = { child, stdout: () => out, stderr: () => err, exited };
  running.push(p);
  return p;
}

/** Waits for `ready` (up to `ms`), failing with `what` and the processes' stderr. */
function until(ready: () => boolean | Promise<boolean>, what: string, ms = 60_000): Promise<void> {
  return waitFor(ready, what, ms, () => running.map((p) => p.stderr()).join("\n---\n"));
}

async function worker(queue: string): Promise<Proc & { id: string }> {
  const w = start(["worker", "--queue", redis.url, "--queue-name", queue, "--repos", repos]);
  await until(() => w.stderr().includes("taking jobs"), "a worker to start");
  const id = /^gitgood worker (\S+): taking jobs/m.exec(w.stderr())?.[1] ?? "";
  return { ...w, id };
}

interface Status {
  waiting: number;
  workers: { id: string; live: boolean; idle_s: number | null }[];
}

async function status(queue: string, json: boolean): Promise<string> {
  const s = start(["status", "--queue", redis.url, "--queue-name", queue, ...(json ? ["--json"] : [])]);
  const { code } = await s.exited;
  expect(code, s.stderr()).toBe(0);
  return s.stdout();
}

describe("gitgood status", () => {
  it("shows a SIGKILLed worker as gone and a live one as live, and a finish time ahead of its clock as 'just now'", async () => {
    const a = await worker("gone");
    const b = await worker("gone");
    a.child.kill("SIGKILL");
    await a.exited;
    await until(async () => {
      const s = JSON.parse(await status("gone", true)) as Status;
      return s.workers.find((w) => w.id === a.id)?.live === false;
    }, "the killed worker to show as gone");
    const s = JSON.parse(await status("gone", true)) as Status;
    expect(s.workers.map((w) => [w.id, w.live]).sort()).toEqual([[a.id, false], [b.id, true]].sort());

    // A worker whose clock runs a minute ahead wrote its last finish in the future.
    const address = parseQueueAddress(redis.url, "gone");
    const client = new Redis(redis.url);
    try {
      const table = queueKeys(address).workers;
      const entry = JSON.parse((await client.hget(table, b.id)) ?? "{}") as Record<string, unknown>;
      const ahead = Date.now() + 60_000;
      await client.hset(table, b.id, JSON.stringify({ ...entry, started: ahead - 120_000, last: ahead, done: 2 }));
    } finally {
      client.disconnect();
    }
    const text = await status("gone", false);
    const lineOf = (id: string): string => text.split("\n").find((l) => l.includes(`worker ${id}:`)) ?? "";
    expect(lineOf(a.id)).toContain("gone (not connected)");
    expect(lineOf(b.id)).not.toContain("gone");
    expect(lineOf(b.id)).toContain("last just now");
    expect(text).not.toMatch(/-\d+ s ago/);
    const skewed = JSON.parse(await status("gone", true)) as Status;
    expect(skewed.workers.find((w) => w.id === b.id)?.idle_s).toBe(0);
  }, 120_000);
});

describe("a producer stopped by SIGTERM", () => {
  it("says in one line what it stopped, how many jobs stay queued and how to go on", async () => {
    const out = path.join(root, "stopped-run");
    const p = start(["run", samplesFile, "--repos", repos, "--agent", "oracle", "--out", out, "--queue", redis.url, "--queue-name", "stopped"]);
    await until(() => p.stderr().includes("waiting for workers"), "the producer to queue its jobs");
    p.child.kill("SIGTERM");
    const { code } = await p.exited;
    expect(code).toBe(143);
    const last = p.stderr().trimEnd().split("\n").at(-1) ?? "";
    const m = /^gitgood: run (.+) stopped by SIGTERM while waiting for workers: (\d+) job\(s\) not yet collected stay on queue stopped at \S+ \(the workers go on with them\); run the same command again to collect their results$/.exec(last);
    expect(m, last).not.toBeNull();
    expect(m?.[1]).toBe(out);
    const waiting = (JSON.parse(await status("stopped", true)) as Status).waiting;
    expect(Number(m?.[2])).toBe(waiting);
    expect(waiting).toBeGreaterThan(0);
  }, 120_000);
});
