import { spawn } from "node:child_process";
import { GitGoodError } from "../errors.js";
import { gitEnv } from "./process.js";
import type { Repo } from "./repo.js";

const NL = 0x0a;
/** `<oid> missing` and `<oid> commit`, as `--batch-check=%(objectname) %(objecttype)` prints them. */
const MISSING = Buffer.from(" missing");
const COMMIT = Buffer.from(" commit");

function endsWith(buf: Buffer, start: number, end: number, suffix: Buffer): boolean {
  return end - start >= suffix.length && buf.compare(suffix, 0, suffix.length, end - suffix.length, end) === 0;
}

/**
 * Which commits name a blob the object store lacks (a damaged copy), found by one `git cat-file
 * --batch-check` fed as the commits are read: each commit's line goes before its blobs', so the
 * answer for a missing blob follows the line of the commit that names it and nothing is kept per
 * commit meanwhile. Not for a partial clone: there, asking for a missing object may fetch it.
 */
export class MissingBlobs {
  private readonly found = new Set<string>();
  private readonly done: Promise<void>;
  private readonly child;
  private current: string | null = null;
  private rest: Buffer | null = null;
  /** Lines not yet written: written in large pieces, since each write costs a system call. */
  private pending: string[] = [];
  private pendingLength = 0;

  constructor(repo: Repo) {
    this.child = spawn("git", ["cat-file", "--batch-check=%(objectname) %(objecttype)"], {
      cwd: repo.dir,
      env: gitEnv({ GIT_NO_LAZY_FETCH: "1" }),
      stdio: ["pipe", "pipe", "ignore"],
    });
    this.child.stdin.on("error", () => {
      /* the exit code tells what happened */
    });
    this.child.stdout.on("data", (chunk: Buffer) => this.read(chunk));
    this.done = new Promise((resolve, reject) => {
      this.child.once("error", reject);
      this.child.once("close", (code) =>
        code === 0 ? resolve() : reject(new GitGoodError("GIT_FAILED", `git cat-file --batch-check failed: exit code ${code}`)),
      );
    });
    this.done.catch(() => undefined);
  }

  /**
   * Asks about the blobs `commit` names (submodule commits and all-zero names left out by the caller).
   * Resolves at once, or once git has taken what was written when too much waits for it (so what
   * reads the commits slows down to git's pace rather than queueing their names here).
   */
  add(commit: string, blobs: readonly string[]): Promise<void> | undefined {
    if (blobs.length === 0) return undefined;
    const lines = `${commit}\n${blobs.join("\n")}\n`;
    this.pending.push(lines);
    this.pendingLength += lines.length;
    return this.pendingLength >= 1 << 16 ? this.flush() : undefined;
  }

  private flush(): Promise<void> | undefined {
    if (this.pending.length === 0) return undefined;
    const more = this.child.stdin.write(this.pending.join(""));
    this.pending = [];
    this.pendingLength = 0;
    if (more || this.child.exitCode !== null) return undefined;
    return new Promise((resolve) => {
      const go = (): void => {
        this.child.stdin.off("drain", go);
        this.child.off("close", go);
        resolve();
      };
      this.child.stdin.on("drain", go);
      this.child.once("close", go);
    });
  }

  /** The commits that named a missing blob, once every answer is in. */
  async commits(): Promise<Set<string>> {
    void this.flush();
    this.child.stdin.end();
    await this.done;
    return this.found;
  }

  private read(chunk: Buffer): void {
    const buf = this.rest ? Buffer.concat([this.rest, chunk]) : chunk;
    let start = 0;
    let nl: number;
    while ((nl = buf.indexOf(NL, start)) !== -1) {
      if (endsWith(buf, start, nl, COMMIT)) this.current = buf.toString("latin1", start, nl - COMMIT.length);
      else if (this.current !== null && endsWith(buf, start, nl, MISSING)) this.found.add(this.current);
      start = nl + 1;
    }
    this.rest = start < buf.length ? buf.subarray(start) : null;
  }
}
