import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { GitGoodError } from "../errors.js";
import { gitEnv } from "./process.js";

const STDERR_KEPT = 8192;

/** A question waiting for its answer: what a failure of the process rejects. */
export interface Waiting {
  /** Fails the question with the process's error. */
  reject: (err: Error) => void;
}

/**
 * One long-lived git process that is asked questions on its standard input and answers them, in order,
 * on its standard output (`cat-file --batch-command`, `diff-tree --stdin`). A subclass writes questions
 * with `enqueue` and takes answers off `queue` as its `onData` finds them. While no question is waiting the
 * process does not keep Node running (a handle nobody closes does not hang the process at exit); `close`
 * ends it after the questions asked are answered. When the process stops on its own, every waiting question
 * and every later one fails with a GIT_FAILED error naming git's first line of error output.
 */
export abstract class LongLivedGit<W extends Waiting> {
  protected readonly child: ChildProcessWithoutNullStreams;
  /**
   * The questions asked and not yet answered, oldest first.
   * @internal
   */
  protected readonly queue: W[] = [];
  private failure: Error | null = null;
  private closed = false;
  private held = true;

  constructor(
    /** The git command and its options (`cat-file`, say), as named in errors. */
    private readonly args: readonly string[],
    cwd: string,
    env: Record<string, string | undefined>,
  ) {
    this.child = spawn("git", args, {
      cwd,
      env: gitEnv({ GIT_NO_LAZY_FETCH: "1", ...env }),
      stdio: ["pipe", "pipe", "pipe"],
    });
    // Its first error output, for the message when it stops (a long life of errors is not all kept).
    let stderr = "";
    this.child.stderr.on("data", (b: Buffer) => {
      if (stderr.length < STDERR_KEPT) stderr += b.toString("utf8");
    });
    this.child.stdout.on("data", (b: Buffer) => this.onData(b));
    this.child.stdin.on("error", () => undefined);
    this.child.on("error", (err: NodeJS.ErrnoException) =>
      this.fail(err.code === "ENOENT" ? new GitGoodError("GIT_NOT_FOUND", "git was not found on PATH") : err),
    );
    this.child.on("close", (code) => {
      if (!this.closed || this.queue.length > 0) {
        const line = stderr.split("\n").find((l) => l.trim()) ?? `exit code ${code}`;
        this.fail(new GitGoodError("GIT_FAILED", `git ${this.args[0] ?? ""} stopped: ${line.trim()}`, { exitCode: code }));
      }
    });
    this.hold(false);
  }

  /** Takes what the process wrote: answers are taken off `queue` (resolved) as they are complete. */
  protected abstract onData(chunk: Buffer): void;

  /** The process's id (undefined when it could not start). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Whether the process stopped on its own: every question to it fails from then on. */
  get failed(): boolean {
    return this.failure !== null;
  }

  /** Why a question cannot be asked now (the process failed or is closed), or null when it can. */
  protected unusable(): Error | null {
    if (this.failure) return this.failure;
    return this.closed ? new GitGoodError("INTERNAL", `the long-lived git ${this.args[0] ?? ""} is closed`) : null;
  }

  /**
   * Asks a question: `waiting` is answered when `onData` finds its answer, after every earlier one.
   * @internal
   */
  protected enqueue(waiting: W, request: Buffer): void {
    this.queue.push(waiting);
    this.hold(true);
    this.child.stdin.write(request);
  }

  /** Called by `onData` after taking answers off the queue: an empty queue no longer keeps Node running. */
  protected settled(): void {
    if (this.queue.length === 0) this.hold(false);
  }

  /** Keeps Node running while an answer is awaited, and only then. */
  private hold(on: boolean): void {
    if (on === this.held) return;
    this.held = on;
    const handles = [this.child, this.child.stdout, this.child.stderr, this.child.stdin] as unknown as { ref(): void; unref(): void }[];
    for (const h of handles) (on ? h.ref : h.unref).call(h);
  }

  /** Closes stdin and waits for git to exit. Outstanding questions are still answered. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.child.exitCode !== null || this.failure) return;
    this.hold(true);
    await new Promise<void>((resolve) => {
      this.child.once("close", () => resolve());
      this.child.stdin.end();
    });
  }

  /** Fails every waiting question and every later one with `err`. */
  protected fail(err: Error): void {
    if (this.failure) return;
    this.failure = err;
    for (const w of this.queue.splice(0)) w.reject(err);
    this.hold(false);
  }
}
