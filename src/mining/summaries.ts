/** Every path mining meets, numbered once: summaries hold numbers, not strings. */
export class PathTable {
  private readonly numbers = new Map<string, number>();
  private readonly names: string[] = [];

  /** The number of `path`, a new one when it has none. */
  id(path: string): number {
    let id = this.numbers.get(path);
    if (id === undefined) {
      id = this.names.length;
      this.numbers.set(path, id);
      this.names.push(path);
    }
    return id;
  }

  /** The number of `path`, or -1 when it has none. */
  find(path: string): number {
    return this.numbers.get(path) ?? -1;
  }

  name(id: number): string {
    return this.names[id] ?? "";
  }
}

export interface CommitLines {
  /** Changed lines (+ and -) over all files; binary files count 0. */
  total: number;
  /** Changed lines of each of the commit's files (by path number). */
  perFile: Map<number, number>;
  /** Changed files not of a mined language (path numbers). */
  otherFiles: readonly number[];
}

const KNOWN = 1;
const UNREADABLE = 2;

/**
 * What chain mining needs to know of each non-merge commit (by its number in the CommitGraph): the
 * files of a mined language it adds or modifies (a deletion or a type change ends a chain, so those are
 * not listed), which of them it adds, whether its diff could be read, and line counts for the commits
 * of runs that could be chains. Kept in flat arrays: one pool of path numbers (an added file's number
 * stored as its complement), a start and a count per commit, so a history costs a few bytes a commit.
 */
export class CommitSummaries {
  private readonly flags: Uint8Array;
  private readonly start: Int32Array;
  private readonly count: Int32Array;
  private pool = new Int32Array(1024);
  private used = 0;
  /** Line counts: read only for the commits of runs that could be chains (chainCandidates). */
  readonly lines = new Map<number, CommitLines>();

  constructor(size: number) {
    this.flags = new Uint8Array(size);
    this.start = new Int32Array(size);
    this.count = new Int32Array(size);
  }

  /** Records commit i's files (path numbers, each once) and which of them it adds. */
  set(i: number, files: readonly number[], added: (file: number) => boolean): void {
    if (this.used + files.length > this.pool.length) {
      const bigger = new Int32Array(Math.max(this.used + files.length, this.pool.length * 2));
      bigger.set(this.pool.subarray(0, this.used));
      this.pool = bigger;
    }
    this.start[i] = this.used;
    this.count[i] = files.length;
    for (const f of files) this.pool[this.used++] = added(f) ? ~f : f;
    this.flags[i] = (this.flags[i] ?? 0) | KNOWN;
  }

  /** Commit i's diff cannot be read: it ends every run, whatever else was known of it. */
  markUnreadable(i: number): void {
    this.flags[i] = (this.flags[i] ?? 0) | UNREADABLE;
    this.count[i] = 0;
    this.lines.delete(i);
  }

  unreadable(i: number): boolean {
    return ((this.flags[i] ?? 0) & UNREADABLE) !== 0;
  }

  /** Files of a mined language commit i adds or modifies. */
  fileCount(i: number): number {
    return this.count[i] ?? 0;
  }

  /** The k-th of them (path number). */
  file(i: number, k: number): number {
    const f = this.pool[(this.start[i] ?? 0) + k] ?? 0;
    return f < 0 ? ~f : f;
  }

  /** Whether commit i adds `file` (rather than modifies it). */
  adds(i: number, file: number): boolean {
    const from = this.start[i] ?? 0;
    const to = from + (this.count[i] ?? 0);
    for (let k = from; k < to; k++) if (this.pool[k] === ~file) return true;
    return false;
  }

  /** How many commits are unreadable. */
  unreadableCount(): number {
    let n = 0;
    for (const f of this.flags) if (f & UNREADABLE) n++;
    return n;
  }
}
