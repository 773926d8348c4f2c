import { spawn } from "node:child_process";
import path from "node:path";
import { GitGoodError } from "../errors.js";

export interface ExecOptions {
  /** Seconds before the whole process group is killed (default: no limit). */
  timeout?: number;
  /** Added to (or, with a value of undefined, removed from) the environment the program gets. */
  env?: Record<string, string | undefined>;
  /** Working directory relative to the work tree (default: the work tree itself); it may not leave it. */
  cwd?: string;
  /** Bytes kept of stdout and of stderr each; the rest is counted and dropped (default 1 MiB). */
  maxOutput?: number;
  /** Which end of a long output to keep: the beginning (default) or the end (where a log's last error is). */
  keep?: "head" | "tail";
  /** Written to the program's stdin, which is then closed. */
  input?: string | Buffer;
  /** Aborting kills the whole process group at once. */
  signal?: AbortSignal;
}

export interface ExecResult {
  /** Exit code, or null when the program was killed by a signal. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: Buffer;
  /** Killed because the time limit ran out. */
  timedOut: boolean;
  /** Killed because the caller aborted. */
  aborted: boolean;
  /** Bytes dropped beyond `maxOutput`, per stream. */
  dropped: { stdout: number; stderr: number };
}

const DEFAULT_MAX_OUTPUT = 1 << 20;

/** Keeps the first (or last) `limit` bytes of a stream and counts the rest. */
class Capped {
  private parts: Buffer[] = [];
  private kept = 0;
  dropped = 0;

  constructor(
    private readonly limit: number,
    private readonly keep: "head" | "tail",
  ) {}

  push(chunk: Buffer): void {
    if (this.keep === "tail") {
      const all = Buffer.concat([...this.parts, chunk]);
      const cut = Math.max(0, all.length - this.limit);
      this.dropped += cut;
      this.parts = [all.subarray(cut)];
      this.kept = all.length - cut;
      return;
    }
    const room = this.limit - this.kept;
    if (room <= 0) {
      this.dropped += chunk.length;
      return;
    }
    const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
    this.parts.push(part);
    this.kept += part.length;
    this.dropped += chunk.length - part.length;
  }

  get value(): Buffer {
    return Buffer.concat(this.parts);
  }
}

/** Every process group started here and still alive, killed when gitgood itself exits. */
const groups = new Set<number>();
let exitHookInstalled = false;

function killGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    /* already gone */
  }
}

function trackGroup(pid: number): void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once("exit", () => {
      for (const g of groups) killGroup(g);
    });
  }
  groups.add(pid);
}

/** Resolves `cwd` (relative to `root`) and refuses anything that leaves `root`. */
export function execDir(root: string, cwd: string | undefined): string {
  if (cwd === undefined || cwd === "" || cwd === ".") return root;
  const full = path.resolve(root, cwd);
  const rel = path.relative(root, full);
  if (rel.startsWith("..") || path.isAbsolute(rel)) {
    throw new GitGoodError("PATH_OUTSIDE", `the working directory ${cwd} is outside the sandbox's work tree`, { cwd });
  }
  return full;
}

/**
 * Runs `argv` (no shell) in `dir` as the leader of a new process group, so that a time-out, an abort or
 * gitgood's own exit kills the program and everything it started. Never rejects for the program's own
 * failure: its exit code and output are the result. Rejects only when it cannot be started at all.
 */
export function execIn(dir: string, argv: readonly string[], opts: ExecOptions = {}): Promise<ExecResult> {
  const [file, ...args] = argv;
  if (!file) return Promise.reject(new GitGoodError("BAD_ARGUMENTS", "exec needs a program to run"));
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  const limit = opts.maxOutput ?? DEFAULT_MAX_OUTPUT;
  const out = new Capped(limit, opts.keep ?? "head");
  const err = new Capped(limit, opts.keep ?? "head");
  return new Promise<ExecResult>((resolve, reject) => {
    if (opts.signal?.aborted) {
      reject(new GitGoodError("ABORTED", `not started: ${file} was cancelled before it began`));
      return;
    }
    const child = spawn(file, args, { cwd: dir, env, stdio: ["pipe", "pipe", "pipe"], detached: true });
    let timedOut = false;
    let aborted = false;
    const pid = child.pid;
    if (pid !== undefined) trackGroup(pid);
    const stop = (): void => {
      if (pid !== undefined) killGroup(pid);
    };
    const timer =
      opts.timeout !== undefined
        ? setTimeout(() => {
            timedOut = true;
            stop();
          }, opts.timeout * 1000)
        : null;
    const onAbort = (): void => {
      aborted = true;
      stop();
    };
    opts.signal?.addEventListener("abort", onAbort);
    child.stdout.on("data", (b: Buffer) => out.push(b));
    child.stderr.on("data", (b: Buffer) => err.push(b));
    child.stdin.on("error", () => undefined);
    child.stdin.end(opts.input ?? "");
    const finish = (): void => {
      if (timer) clearTimeout(timer);
      opts.signal?.removeEventListener("abort", onAbort);
      if (pid !== undefined) {
        // The leader is gone; anything it left running in its group goes with it.
        killGroup(pid);
        groups.delete(pid);
      }
    };
    child.on("error", (e) => {
      finish();
      reject(new GitGoodError("EXEC_FAILED", `cannot start ${file}: ${e.message}`, { argv: [...argv] }));
    });
    child.on("close", (code, signal) => {
      finish();
      resolve({
        code,
        signal,
        stdout: out.value,
        stderr: err.value,
        timedOut,
        aborted,
        dropped: { stdout: out.dropped, stderr: err.dropped },
      });
    });
  });
}
