import { spawn, type ChildProcess } from "node:child_process";
import { GitGoodError } from "../errors.js";
import { runOnThread } from "./threads.js";

/** Environment every git process runs with: deterministic, non-interactive, no optional locks. */
export function gitEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    LC_ALL: "C",
    LANG: "C",
    GIT_TERMINAL_PROMPT: "0",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_OPTIONAL_LOCKS: "0",
    GIT_PAGER: "cat",
    GIT_ASKPASS: "",
    SSH_ASKPASS: "",
    ...extra,
  };
}

export interface SpawnOptions {
  cwd: string;
  env?: Record<string, string | undefined>;
  /** Written to stdin, then stdin is closed. */
  input?: string | Buffer;
  /** Exit codes that are not failures (default: only 0). */
  okCodes?: readonly number[];
}

/** How a git process ended: its exit code, its output as bytes and its error output as text. */
export interface RunResult {
  code: number;
  stdout: Buffer;
  stderr: string;
}

/** The git command `args` run: the first argument after the leading `-c NAME=VALUE` settings. */
function subcommand(args: readonly string[]): string {
  let i = 0;
  while (args[i] === "-c") i += 2;
  return args[i] ?? "";
}

function describeFailure(args: readonly string[], code: number | null, stderr: string): GitGoodError {
  const firstLine = stderr.split("\n").find((l) => l.trim() !== "")?.trim() ?? `exit code ${code}`;
  return new GitGoodError("GIT_FAILED", `git ${subcommand(args)} failed: ${firstLine}`, {
    args: [...args],
    exitCode: code,
    stderr: stderr.slice(0, 4000),
  });
}

function startGit(args: readonly string[], opts: SpawnOptions): ChildProcess {
  const child = spawn("git", args, {
    cwd: opts.cwd,
    env: gitEnv(opts.env),
    stdio: ["pipe", "pipe", "pipe"],
  });
  child.stdin?.on("error", () => {
    /* the process may exit before reading all input; its exit code tells what happened */
  });
  if (opts.input !== undefined) child.stdin?.end(opts.input);
  else child.stdin?.end();
  return child;
}

function notFound(): GitGoodError {
  return new GitGoodError("GIT_NOT_FOUND", "git was not found on PATH; install git 2.38 or newer");
}

function waitExit(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve, reject) => {
    if (child.exitCode !== null) return resolve(child.exitCode);
    child.once("error", (err: NodeJS.ErrnoException) => {
      if (err.code === "ENOENT") reject(notFound());
      else reject(err);
    });
    child.once("close", (code) => resolve(code));
  });
}

/** Runs git to completion on this thread: its exit code (null when killed) and its output. */
async function runHere(args: readonly string[], opts: SpawnOptions): Promise<{ code: number | null; stdout: Buffer; stderr: Buffer }> {
  const child = startGit(args, opts);
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout?.on("data", (b: Buffer) => out.push(b));
  child.stderr?.on("data", (b: Buffer) => err.push(b));
  const code = await waitExit(child);
  return { code, stdout: Buffer.concat(out), stderr: Buffer.concat(err) };
}

/** Runs git to completion from a git thread (`useGitThreads`) when there are any, else on this thread. */
async function runAnywhere(args: readonly string[], opts: SpawnOptions): Promise<{ code: number | null; stdout: Buffer; stderr: Buffer }> {
  const threaded = runOnThread({ args, cwd: opts.cwd, env: gitEnv(opts.env), input: opts.input });
  if (!threaded) return runHere(args, opts);
  const r = await threaded;
  if ("spawnError" in r) {
    if (r.spawnError === "ENOENT") throw notFound();
    throw new GitGoodError("GIT_FAILED", `git ${args[0] ?? ""} could not be started: ${r.spawnError}`, { args: [...args] });
  }
  return r;
}

/** Runs git to completion and returns its output. Throws GIT_FAILED on an unexpected exit code. */
export async function runGit(args: readonly string[], opts: SpawnOptions): Promise<RunResult> {
  const ran = await runAnywhere(args, opts);
  const code = ran.code ?? -1;
  const result = { code, stdout: ran.stdout, stderr: ran.stderr.toString("utf8") };
  const ok = opts.okCodes ?? [0];
  if (!ok.includes(code)) throw describeFailure(args, code, result.stderr);
  return result;
}

/**
 * Streams git's stdout split on `separator` (NUL by default), yielding each record as a string.
 * The final record is yielded even without a trailing separator. After the stream ends the exit code
 * is checked; a failure throws GIT_FAILED with git's own first line of complaint.
 */
export async function* streamGit(
  args: readonly string[],
  opts: SpawnOptions & { separator?: number },
): AsyncGenerator<string, void, undefined> {
  const sep = opts.separator ?? 0;
  const child = startGit(args, opts);
  const err: Buffer[] = [];
  child.stderr?.on("data", (b: Buffer) => err.push(b));
  const exit = waitExit(child);
  exit.catch(() => undefined);
  let rest: Buffer | null = null;
  let finished = false;
  try {
    for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
      let buf: Buffer = rest ? Buffer.concat([rest, chunk]) : chunk;
      let start = 0;
      let idx: number;
      while ((idx = buf.indexOf(sep, start)) !== -1) {
        yield buf.toString("utf8", start, idx);
        start = idx + 1;
      }
      rest = start < buf.length ? buf.subarray(start) : null;
      buf = Buffer.alloc(0);
    }
    if (rest && rest.length > 0) yield rest.toString("utf8");
    finished = true;
  } finally {
    if (!finished && child.exitCode === null) child.kill();
  }
  const code = await exit;
  const ok = opts.okCodes ?? [0];
  if (code === null || !ok.includes(code)) {
    throw describeFailure(args, code, Buffer.concat(err).toString("utf8"));
  }
}
