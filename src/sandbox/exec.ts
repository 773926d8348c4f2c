import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { GitGoodError } from "../errors.js";
import { agentEnvironment } from "./agent-env.js";
import { DiskWatch, treeBytes } from "./disk-watch.js";
import { isolatedCommand, isolates, type Isolation, type LimitName } from "./isolation.js";

/** How `Sandbox.exec` runs a program: its time limit, environment, working directory, the output kept, its input, and what may stop it. */
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
  /** A directory of gitgood's (the tool socket, the `gitgood` shim) the program may read; `Sandbox.seenAt` says where it sees it. */
  shared?: string;
  /**
   * Give the program a pipe back to gitgood as file descriptor 3 (no path names it), read into
   * `ExecResult.channel`, at most `maxOutput` bytes of its beginning.
   */
  channel?: boolean;
  /** Written to that pipe (file descriptor 3) as soon as the program starts, when `channel` is asked for. */
  channelInput?: Buffer;
  /**
   * The program acts for an agent (the agent's own program, or a command it asked for): of the host's
   * variables it gets only the allow-list and what the user passes with `--pass-env` (never the host's keys),
   * then `env`. Every isolated program (one given a place) is treated so, whatever this says.
   */
  agent?: boolean;
}

/**
 * Where a program runs isolated: its work tree (the only directory it may write), the isolation around
 * it, and the work tree's size its disk limit counts from (measured at the first program that has none,
 * and kept there for the programs after it: the programs of one attempt share one).
 */
export interface ExecPlace {
  work: string;
  isolation: Isolation;
  disk?: { baseline: number | null };
}

/** How a program run in a sandbox ended: exit code or signal, its output, and whether a limit or the caller stopped it. */
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
  /** What the program wrote to file descriptor 3 when `channel` was asked for (else empty). */
  channel: Buffer;
  /** The limit of its isolation it ran into (and was stopped or refused for), else null. */
  limit: LimitName | null;
}

/** How often the cgroups of a running program are asked whether it ran into a limit. */
const LIMIT_POLL_MS = 200;

/** Exit codes of a program killed by SIGXCPU or SIGXFSZ as bubblewrap and shells report them (128 + signal). */
const SIGNAL_LIMITS: ReadonlyMap<NodeJS.Signals | number, LimitName> = new Map<NodeJS.Signals | number, LimitName>([
  ["SIGXCPU", "cpu"],
  [152, "cpu"],
  ["SIGXFSZ", "disk"],
  [153, "disk"],
]);

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

/** Every process group started here and still alive, killed when gitgood itself exits (then what to do after the kill). */
const groups = new Map<number, (() => void) | undefined>();
let exitHookInstalled = false;

function killGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    /* already gone */
  }
}

/**
 * A random token every program started here carries in its environment (`GITGOOD_WATCH`), so that the
 * watchdog can find the ones it was never told of: a kill can land after a program's exec and before this
 * process has told the watchdog its group.
 */
const WATCH_VAR = "GITGOOD_WATCH";
const watchToken = randomBytes(12).toString("hex");

/**
 * Kills the process groups it is told of once this process is gone, also after a SIGKILL, which no
 * exit hook sees: a shell in a session of its own reads "+ PID" and "- PID" lines, and at the end of
 * its input (this process died, the pipe closed) kills the groups still listed, then every process
 * whose environment carries this process's token (one `grep` over /proc), with its group.
 */
const WATCHDOG = [
  "trap '' INT TERM HUP",
  "token=$1",
  "set --",
  'while read -r op pid; do',
  '  if [ "$op" = + ]; then set -- "$@" "$pid"',
  '  else for p do shift; [ "$p" = "$pid" ] || set -- "$@" "$p"; done',
  "  fi",
  "done",
  'for p do kill -KILL "-$p" 2>/dev/null; done',
  `for f in $(grep -lsz "^${WATCH_VAR}=$token$" /proc/[0-9]*/environ 2>/dev/null); do`,
  '  p=${f#/proc/}; p=${p%/environ}',
  '  kill -KILL "-$p" 2>/dev/null || kill -KILL "$p" 2>/dev/null',
  "done",
].join("\n");

let watchdog: ChildProcess | null | undefined;

/** Starts the watchdog once, before the first program: told of each group right after its start, and finding by the token any program it was not told of. */
function startWatchdog(): void {
  if (watchdog !== undefined) return;
  watchdog = null;
  try {
    const w = spawn("sh", ["-c", WATCHDOG, "gitgood-watchdog", watchToken], { stdio: ["pipe", "ignore", "ignore"], detached: true });
    w.on("error", () => {
      watchdog = null;
    });
    w.stdin?.on("error", () => undefined);
    // Neither the watchdog nor its pipe keeps this process alive.
    w.unref();
    (w.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    watchdog = w;
  } catch {
    watchdog = null;
  }
}

function tellWatchdog(line: string): void {
  watchdog?.stdin?.write(`${line}\n`);
}

function trackGroup(pid: number, afterKill?: () => void): void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once("exit", () => {
      for (const [g, after] of groups) {
        killGroup(g);
        after?.();
      }
    });
  }
  groups.set(pid, afterKill);
  tellWatchdog(`+ ${pid}`);
}

function untrackGroup(pid: number): void {
  groups.delete(pid);
  tellWatchdog(`- ${pid}`);
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
 * gitgood's own exit (a kill included) kills the program and everything it started. With `place`, the
 * program runs in its isolation (with namespaces, killing bubblewrap ends everything inside). Never
 * rejects for the program's own failure: its exit code and output are the result. Rejects only when it
 * cannot be started at all.
 */
export async function execIn(dir: string, argv: readonly string[], opts: ExecOptions = {}, place?: ExecPlace): Promise<ExecResult> {
  const [file] = argv;
  if (!file) throw new GitGoodError("BAD_ARGUMENTS", "exec needs a program to run");
  // The work tree may grow by the disk limit from its size before the attempt's first program.
  const limits = place && isolates(place.isolation) ? place.isolation.limits : undefined;
  const disk = place ? (place.disk ?? { baseline: null }) : null;
  const measuredNow = limits !== undefined && disk !== null && disk.baseline === null;
  if (limits && disk && place) disk.baseline ??= await treeBytes(place.work);
  const env: NodeJS.ProcessEnv = { ...process.env };
  // Whatever runs isolated is a repository's or an agent's code (a test run, an environment's set-up, an agent's
  // command): it gets the allow-list and what the user passes, never the host's keys, which it could print into a log.
  const scrub = opts.agent === true || place !== undefined;
  const changes = scrub ? agentEnvironment(process.env, place?.isolation.passEnv ?? [], opts.env ?? {}) : (opts.env ?? {});
  for (const [k, v] of Object.entries(changes)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  env[WATCH_VAR] = watchToken;
  let cmd;
  try {
    cmd = place ? isolatedCommand(place.isolation, { work: place.work, cwd: dir, shared: opts.shared, env }, argv) : { file, args: argv.slice(1), env };
  } catch (err) {
    if (err instanceof GitGoodError) throw err;
    // The cgroups of the limits could not be made: the program does not start without them.
    throw new GitGoodError("EXEC_FAILED", `cannot start ${file}: its limits cannot be set up (${err instanceof Error ? err.message : String(err)})`, { argv: [...argv] });
  }
  const limit = opts.maxOutput ?? DEFAULT_MAX_OUTPUT;
  const out = new Capped(limit, opts.keep ?? "head");
  const err = new Capped(limit, opts.keep ?? "head");
  const back = new Capped(limit, "head");
  return new Promise<ExecResult>((resolve, reject) => {
    if (opts.signal?.aborted) {
      void cmd.limits?.release();
      reject(new GitGoodError("ABORTED", `not started: ${file} was cancelled before it began`));
      return;
    }
    startWatchdog();
    const child = spawn(cmd.file, cmd.args, { cwd: dir, env: cmd.env, stdio: opts.channel ? ["pipe", "pipe", "pipe", "pipe"] : ["pipe", "pipe", "pipe"], detached: true });
    let timedOut = false;
    let aborted = false;
    let killed = false;
    let stoppedFor: LimitName | null = null;
    const pid = child.pid;
    if (pid !== undefined) trackGroup(pid, cmd.afterKill);
    const stop = (): void => {
      if (pid !== undefined) killGroup(pid);
      if (!killed) {
        killed = true;
        cmd.afterKill?.();
      }
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
    const overLimit = (limit: LimitName): void => {
      stoppedFor ??= limit;
      stop();
    };
    const watch = limits && place && disk?.baseline != null ? new DiskWatch(place.work, disk.baseline, limits.disk, () => overLimit("disk"), measuredNow) : null;
    // A fork refused for the process limit, or a process killed for memory, stops the program at once.
    const groupWatch = cmd.limits
      ? setInterval(() => {
          const hit = cmd.limits?.hit();
          if (hit) overLimit(hit);
        }, LIMIT_POLL_MS)
      : null;
    child.stdout.on("data", (b: Buffer) => out.push(b));
    child.stderr.on("data", (b: Buffer) => err.push(b));
    const fd3 = opts.channel ? child.stdio[3] : null;
    if (fd3 && "on" in fd3) fd3.on("data", (b: Buffer) => back.push(b));
    if (fd3 && "write" in fd3 && opts.channelInput) {
      fd3.on("error", () => undefined);
      fd3.write(opts.channelInput);
    }
    child.stdin.on("error", () => undefined);
    child.stdin.end(opts.input ?? "");
    const finish = (): void => {
      if (timer) clearTimeout(timer);
      watch?.stop();
      if (groupWatch) clearInterval(groupWatch);
      opts.signal?.removeEventListener("abort", onAbort);
      if (pid !== undefined) {
        // The leader is gone; anything it left running in its group goes with it.
        killGroup(pid);
        untrackGroup(pid);
      }
    };
    child.on("error", (e) => {
      finish();
      void cmd.limits?.release();
      const why = cmd.file === file ? e.message : `${cmd.file} (the ${place?.isolation.mode} isolation) cannot run: ${e.message}`;
      reject(new GitGoodError("EXEC_FAILED", `cannot start ${file}: ${why}`, { argv: [...argv] }));
    });
    child.on("close", (code, signal) => {
      finish();
      const limit = stoppedFor ?? cmd.limits?.hit() ?? SIGNAL_LIMITS.get(signal ?? code ?? 0) ?? null;
      // The result comes once the program's cgroups are gone (removal never rejects).
      void (cmd.limits?.release() ?? Promise.resolve()).then(() => resolve({
        code,
        signal,
        stdout: out.value,
        stderr: err.value,
        timedOut,
        aborted,
        dropped: { stdout: out.dropped, stderr: err.dropped },
        channel: back.value,
        limit: limits ? limit : null,
      }));
    });
  });
}
