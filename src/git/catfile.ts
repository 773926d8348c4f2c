import { GitGoodError } from "../errors.js";
import { LongLivedGit, type Waiting } from "./long-lived.js";
import { at } from "../util/at.js";

/** An object read from the repository: its id, type and content. */
export interface GitObject {
  oid: string;
  type: string;
  content: Buffer;
}

/** What `info` tells of an object: its id, type and size, without its bytes. */
export interface ObjectInfo {
  oid: string;
  type: string;
  size: number;
}

/** One answer: the header, and the bytes when they were asked for. */
interface Answer extends ObjectInfo {
  content: Buffer | null;
}

interface Pending extends Waiting {
  /** The name as written to git: a `missing` answer repeats it. */
  name: Buffer;
  /** Whether the answer carries the object's bytes (`contents`) or only its header (`info`). */
  contents: boolean;
  resolve: (answer: Answer | null) => void;
}

const MISSING = [Buffer.from(" missing\n"), Buffer.from(" ambiguous\n")];

/**
 * The length of a `<name> missing` (or `ambiguous`) answer at the start of `buf`; "partial" when `buf` may be
 * the start of one still arriving (a name holding a line break); 0 when it is not one.
 */
function missingAnswer(buf: Buffer, name: Buffer): number | "partial" {
  for (const m of MISSING) {
    const full = name.length + m.length;
    const prefix = Math.min(buf.length, full);
    if (!buf.subarray(0, Math.min(prefix, name.length)).equals(name.subarray(0, Math.min(prefix, name.length)))) continue;
    if (buf.length >= full) {
      if (buf.subarray(name.length, full).equals(m)) return full;
      continue;
    }
    // Only a name with a line break can leave a complete header line that is still part of such an answer.
    if (buf.indexOf(10) === -1 || name.includes(10)) {
      if (buf.length <= name.length || m.subarray(0, buf.length - name.length).equals(buf.subarray(name.length))) return "partial";
    }
  }
  return 0;
}

/**
 * One long-lived `git cat-file --batch-command -z` process: `read` asks for an object's bytes, `info`
 * for its type and size only (a large blob is not sent). Requests are answered in order; a name git
 * cannot find (`missing`, `ambiguous`) answers null instead of failing, so partial clones and racing
 * refs are data, not crashes. Names are NUL-separated, so any path bytes reach git (`rev:path`).
 *
 * Git resolves each name when it is asked, so refs moved and objects written after the process started
 * are seen. While no request is waiting the process does not keep Node running (a handle nobody closes
 * does not hang the process at exit); `close` ends it.
 */
export class CatFile extends LongLivedGit<Pending> {
  private buf: Buffer = Buffer.alloc(0);
  private chunks: Buffer[] = [];
  private buffered = 0;
  private needed = 0;

  constructor(cwd: string, env: Record<string, string | undefined> = {}) {
    super(["cat-file", "--batch-command", "-z"], cwd, env);
  }

  /** Reads one object by any name git understands (`oid`, `tree:path`, `HEAD:file`, `rev^{tree}`). */
  async read(name: string | Buffer): Promise<GitObject | null> {
    const a = await this.ask(name, true);
    return a ? { oid: a.oid, type: a.type, content: a.content ?? Buffer.alloc(0) } : null;
  }

  /** The id, type and size of the object `name` names, or null when there is none. */
  async info(name: string | Buffer): Promise<ObjectInfo | null> {
    const a = await this.ask(name, false);
    return a ? { oid: a.oid, type: a.type, size: a.size } : null;
  }

  private ask(given: string | Buffer, contents: boolean): Promise<Answer | null> {
    const unusable = this.unusable();
    if (unusable) return Promise.reject(unusable);
    const name = typeof given === "string" ? Buffer.from(given, "utf8") : given;
    // A NUL ends a request, and an empty name asks for nothing.
    if (name.length === 0 || name.includes(0)) return Promise.resolve(null);
    return new Promise((resolve, reject) => {
      this.enqueue({ name, contents, resolve, reject }, Buffer.concat([Buffer.from(contents ? "contents " : "info "), name, Buffer.alloc(1)]));
    });
  }

  protected onData(chunk: Buffer): void {
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
      // A name git cannot find is repeated as given (line breaks and all), then ` missing`.
      const notFound = missingAnswer(this.buf, head.name);
      if (notFound === "partial") break;
      if (notFound > 0) {
        this.buf = this.buf.subarray(notFound);
        this.queue.shift();
        head.resolve(null);
        continue;
      }
      const nl = this.buf.indexOf(10);
      if (nl === -1) break;
      const header = this.buf.toString("utf8", 0, nl);
      const parts = header.split(" ");
      const size = Number(parts[2]);
      if (parts.length !== 3 || !Number.isInteger(size)) {
        this.fail(new GitGoodError("GIT_FAILED", `unexpected answer from git cat-file: ${header.slice(0, 200)}`));
        return;
      }
      const info = { oid: parts[0] ?? "", type: parts[1] ?? "", size };
      if (!head.contents) {
        this.buf = this.buf.subarray(nl + 1);
        this.queue.shift();
        head.resolve({ ...info, content: null });
        continue;
      }
      const end = nl + 1 + size;
      if (this.buf.length < end + 1) {
        this.needed = end + 1;
        break;
      }
      const content = Buffer.from(this.buf.subarray(nl + 1, end));
      this.buf = this.buf.subarray(end + 1);
      this.queue.shift();
      head.resolve({ ...info, content });
    }
    if (this.buf.length > 0) this.chunks.push(this.buf);
    this.buffered = this.buf.length;
    this.buf = Buffer.alloc(0);
    this.settled();
  }
}
