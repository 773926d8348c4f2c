import { LongLivedGit, type Waiting } from "./long-lived.js";

interface Asked extends Waiting {
  resolve: (answer: Buffer) => void;
}

/**
 * The line that ends every question: `diff-tree --stdin` copies a line that does not start with an object
 * id to its output as it is, and flushes. No line of its answers can equal it: a patch line starts with a
 * space, a sign, `@`, `\\` or a header word (`diff`, `index`, `old`, `new`, `deleted`, `Binary`, `---`,
 * `+++`), a commit's or tree pair's line with an object id; a base-85 line of a binary patch has no space
 * and no colon.
 */
const END = "gitgood: end of answer";
const END_LINE = Buffer.from(`${END}\n`);
const END_AFTER_LINE = Buffer.from(`\n${END}\n`);

/**
 * One long-lived `git diff-tree --stdin` process with fixed options (no `-z`): `ask` sends lines (commit
 * ids, tree pairs) and gets back everything git printed for them, as bytes. Each question is its lines and
 * then the END line, which git prints back when it has answered them all: the answer is what comes before
 * it. A line git cannot answer (an object it does not have) prints nothing but an error, so the caller
 * checks that the answer holds what it asked for. Objects written after the process started are read
 * (git looks for a missing object again before it gives up).
 */
export class DiffTreeReader extends LongLivedGit<Asked> {
  private chunks: Buffer[] = [];
  /** Bytes of `chunks` already searched for END (less the length of END_AFTER_LINE, which may straddle chunks). */
  private searched = 0;

  constructor(options: readonly string[], cwd: string, env: Record<string, string | undefined> = {}) {
    super(["diff-tree", "--stdin", ...options], cwd, env);
  }

  /** What git prints for `lines` (each without a line break), up to the END line it prints back. */
  ask(lines: readonly string[]): Promise<Buffer> {
    const unusable = this.unusable();
    if (unusable) return Promise.reject(unusable);
    const request = Buffer.from([...lines, END, ""].join("\n"), "utf8");
    return new Promise((resolve, reject) => this.enqueue({ resolve, reject }, request));
  }

  protected onData(chunk: Buffer): void {
    this.chunks.push(chunk);
    let buf = this.chunks.length === 1 ? chunk : Buffer.concat(this.chunks);
    for (;;) {
      const head = this.queue[0];
      if (!head) break;
      let end: number;
      let skip: number;
      if (buf.subarray(0, END_LINE.length).equals(END_LINE)) {
        end = 0;
        skip = END_LINE.length;
      } else {
        const at = buf.indexOf(END_AFTER_LINE, Math.max(0, this.searched - END_AFTER_LINE.length));
        if (at === -1) {
          this.searched = buf.length;
          break;
        }
        end = at + 1;
        skip = at + END_AFTER_LINE.length;
      }
      this.queue.shift();
      head.resolve(Buffer.from(buf.subarray(0, end)));
      buf = buf.subarray(skip);
      this.searched = 0;
    }
    this.chunks = buf.length > 0 ? [buf] : [];
    this.settled();
  }
}
