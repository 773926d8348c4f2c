import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { GitGoodError } from "../errors.js";
import { gitEnv } from "./process.js";
import { at } from "../util/at.js";

interface GitObject {
  oid: string;
  type: string;
  content: Buffer;
}

interface Pending {
  name: string;
  resolve: (obj: GitObject | null) => void;
  reject: (err: Error) => void;
}

/**
 * One long-lived `git cat-file --batch` process. Requests are answered in order; a name git cannot
 * find (`missing`, `ambiguous`) answers null instead of failing, so partial clones and racing refs are
 * data, not crashes. Names must not contain a newline.
 */
export class CatFile {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly queue: Pending[] = [];
  private buf: Buffer = Buffer.alloc(0);
  private chunks: Buffer[] = [];
  private buffered = 0;
  private needed = 0;
  private failure: Error | null = null;
  private closed = false;

  constructor(cwd: string, env: Record<string, string | undefined> = {}) {
    this.child = spawn("git", ["cat-file", "--batch"], {
      cwd,
      env: gitEnv({ GIT_NO_LAZY_FETCH: "1", ...env }),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stderr = "";
    this.child.stderr.on("data", (b: Buffer) => (stderr += b.toString("utf8")));
    this.child.stdout.on("data", (b: Buffer) => this.onData(b));
    this.child.stdin.on("error", () => undefined);
    this.child.on("error", (err: NodeJS.ErrnoException) =>
      this.fail(err.code === "ENOENT" ? new GitGoodError("GIT_NOT_FOUND", "git was not found on PATH") : err),
    );
    this.child.on("close", (code) => {
      if (!this.closed || this.queue.length > 0) {
        const line = stderr.split("\n").find((l) => l.trim()) ?? `exit code ${code}`;
        this.fail(new GitGoodError("GIT_FAILED", `git cat-file stopped: ${line.trim()}`, { exitCode: code }));
      }
    });
  }

  /** Reads one object by any name git understands (`oid`, `tree:path`, `HEAD:file`). */
  read(name: string): Promise<GitObject | null> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.closed) return Promise.reject(new GitGoodError("INTERNAL", "cat-file reader is closed"));
    if (/[\n\r]/.test(name)) return Promise.resolve(null);
    return new Promise((resolve, reject) => {
      this.queue.push({ name, resolve, reject });
      this.child.stdin.write(`${name}\n`);
    });
  }

  /** Closes stdin and waits for git to exit. Outstanding requests are still answered. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.child.exitCode !== null || this.failure) return;
    await new Promise<void>((resolve) => {
      this.child.once("close", () => resolve());
      this.child.stdin.end();
    });
  }

  private fail(err: Error): void {
    if (this.failure) return;
    this.failure = err;
    for (const p of this.queue.splice(0)) p.reject(err);
  }

  private onData(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    // Join chunks only once a whole answer can be there, so large blobs are copied once.
    if (this.buffered < this.needed) return;
    this.buf = this.chunks.length === 1 ? at(this.chunks, 0) : Buffer.concat(this.chunks);
    this.chunks = [];
    this.needed = 0;
    for (;;) {
      const head = this.queue[0];
      if (!head) break;
      const nl = this.buf.indexOf(10);
      if (nl === -1) break;
      const header = this.buf.toString("utf8", 0, nl);
      if (header.endsWith(" missing") || header.endsWith(" ambiguous")) {
        this.buf = this.buf.subarray(nl + 1);
        this.queue.shift();
        head.resolve(null);
        continue;
      }
      const parts = header.split(" ");
      const size = Number(parts[2]);
      if (parts.length !== 3 || !Number.isInteger(size)) {
        this.fail(new GitGoodError("GIT_FAILED", `unexpected answer from git cat-file: ${header.slice(0, 200)}`));
        return;
      }
      const end = nl + 1 + size;
      if (this.buf.length < end + 1) {
        this.needed = end + 1;
        break;
      }
      const content = Buffer.from(this.buf.subarray(nl + 1, end));
      this.buf = this.buf.subarray(end + 1);
      this.queue.shift();
      head.resolve({ oid: parts[0] ?? "", type: parts[1] ?? "", content });
    }
    if (this.buf.length > 0) this.chunks.push(this.buf);
    this.buffered = this.buf.length;
    this.buf = Buffer.alloc(0);
  }
}
