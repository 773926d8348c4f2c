import { Worker } from "node:worker_threads";

/**
 * Git processes started from worker threads instead of the event loop. Starting a process blocks the
 * thread that starts it until the child has forked and run exec, which takes longer the more memory the
 * parent holds and the busier the machine is; an attempt's git processes are short, so with every start
 * on the event loop that wait was most of an attempt's time and parallel attempts queued behind each
 * other's starts (`run --jobs 2` was no faster than `--jobs 1`). A thread here starts the process,
 * collects its output and hands it back; only the waiting is on the event loop.
 */

/** One process to run to completion. */
export interface ThreadedRun {
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  input?: string | Buffer;
}

/** How it ended: the exit code (null when killed by a signal) and its output, or the spawn error's code. */
export type ThreadedResult = { code: number | null; stdout: Buffer; stderr: Buffer } | { spawnError: string };

// Plain CommonJS, evaluated in each thread: it needs nothing of gitgood's (so it runs from dist/ and under a
// TypeScript test runner alike).
const THREAD_SOURCE = `
const { parentPort } = require("node:worker_threads");
const { spawn } = require("node:child_process");
parentPort.on("message", (m) => {
  let settled = false;
  const reply = (value, transfer) => {
    if (settled) return;
    settled = true;
    parentPort.postMessage(value, transfer);
  };
  let child;
  try {
    child = spawn("git", m.args, { cwd: m.cwd, env: m.env, stdio: ["pipe", "pipe", "pipe"] });
  } catch (err) {
    reply({ id: m.id, spawnError: String((err && err.code) || (err && err.message) || err) });
    return;
  }
  const out = [];
  const errs = [];
  child.stdout.on("data", (b) => out.push(b));
  child.stderr.on("data", (b) => errs.push(b));
  child.stdin.on("error", () => {});
  if (m.input !== undefined) child.stdin.end(m.input);
  else child.stdin.end();
  child.once("error", (err) => reply({ id: m.id, spawnError: String(err.code || err.message) }));
  child.once("close", (code) => {
    const stdout = new Uint8Array(Buffer.concat(out));
    const stderr = new Uint8Array(Buffer.concat(errs));
    reply({ id: m.id, code, stdout, stderr }, [stdout.buffer, stderr.buffer]);
  });
});
`;

interface Reply {
  id: number;
  code?: number | null;
  stdout?: Uint8Array;
  stderr?: Uint8Array;
  spawnError?: string;
}

class GitThread {
  readonly worker = new Worker(THREAD_SOURCE, { eval: true });
  readonly waiting = new Map<number, (r: ThreadedResult) => void>();

  constructor() {
    this.worker.unref();
    this.worker.on("message", (m: Reply) => {
      const done = this.waiting.get(m.id);
      if (!done) return;
      this.waiting.delete(m.id);
      if (this.waiting.size === 0) this.worker.unref();
      if (m.spawnError !== undefined) done({ spawnError: m.spawnError });
      else done({ code: m.code ?? null, stdout: bufferOf(m.stdout), stderr: bufferOf(m.stderr) });
    });
    // A thread that dies fails what it was running, as a process that could not be started.
    this.worker.on("error", (err) => this.failAll(err.message));
    this.worker.on("exit", () => this.failAll("the git thread ended"));
  }

  private failAll(why: string): void {
    for (const done of this.waiting.values()) done({ spawnError: why });
    this.waiting.clear();
  }

  send(id: number, run: ThreadedRun, done: (r: ThreadedResult) => void): void {
    this.waiting.set(id, done);
    this.worker.ref();
    this.worker.postMessage({ id, args: run.args, cwd: run.cwd, env: run.env, input: run.input });
  }
}

function bufferOf(bytes: Uint8Array | undefined): Buffer {
  return bytes ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) : Buffer.alloc(0);
}

let threads: GitThread[] = [];
let users = 0;
let nextId = 0;
let runs = 0;

/** The git threads started now, and the processes run from git threads in this process so far. */
export function gitThreadStats(): { threads: number; runs: number } {
  return { threads: threads.length, runs };
}

/**
 * Starts `count` threads that git processes run to completion (`runGit`) are started from, until the
 * returned function is called (nested uses share the threads; the last to end stops them).
 */
export function useGitThreads(count: number): () => Promise<void> {
  users++;
  while (threads.length < count) threads.push(new GitThread());
  let ended = false;
  return async () => {
    if (ended) return;
    ended = true;
    users--;
    if (users > 0) return;
    const stopping = threads;
    threads = [];
    await Promise.all(stopping.map((t) => t.worker.terminate()));
  };
}

/** Runs `run` on the least busy git thread, or returns null when no threads are started. */
export function runOnThread(run: ThreadedRun): Promise<ThreadedResult> | null {
  if (threads.length === 0) return null;
  let best = threads[0] as GitThread;
  for (const t of threads) if (t.waiting.size < best.waiting.size) best = t;
  const id = ++nextId;
  runs++;
  return new Promise((resolve) => best.send(id, run, resolve));
}
