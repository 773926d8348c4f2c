/**
 * A commit graph kept in a few flat arrays rather than an object, a list and a string per commit, for
 * the passes that hold a whole history to the end (mining): about 50 bytes a commit instead of about
 * 200, and no per-commit object for the garbage collector to trace. Commits are numbered 0..size-1 in
 * the order they were added; a parent that is not itself a commit of the graph (cut away by a shallow
 * clone) gets a number from `size` on, so it can be named but `has` says no.
 */
export class CommitGraph {
  /** Commits of the graph; numbers at or above it name parents outside the graph. */
  readonly size: number;

  private constructor(
    size: number,
    private readonly idBytes: number,
    /** Every number's id, `idBytes` each: the commits, then the parents outside the graph. */
    private readonly ids: Buffer,
    /** Open addressing over `ids`: number + 1 at a slot, 0 for an empty one. */
    private readonly table: Int32Array,
    /** Commit i's parents are parentList[parentStart[i] .. parentStart[i + 1]). */
    private readonly parentStart: Int32Array,
    private readonly parentList: Int32Array,
    private readonly times: Float64Array,
  ) {
    this.size = size;
  }

  /** Builds the graph from commits given in order, each with its parents' ids and committer time. */
  static build(commits: Iterable<{ oid: string; parents: readonly string[]; time: number }>): CommitGraph {
    const b = new CommitGraphBuilder();
    for (const c of commits) b.add(c.oid, c.parents, c.time);
    return b.finish();
  }

  /** Every number `oid` has (a commit, or a parent outside the graph); -1 when it has none. */
  index(oid: string): number {
    const scratch = this.scratch;
    if (oid.length !== this.idBytes * 2 || scratch.write(oid, 0, "hex") !== this.idBytes) return -1;
    const mask = this.table.length - 1;
    for (let slot = scratch.readUInt32LE(0) & mask; ; slot = (slot + 1) & mask) {
      const entry = this.table[slot] ?? 0;
      if (entry === 0) return -1;
      if (this.ids.compare(scratch, 0, this.idBytes, (entry - 1) * this.idBytes, entry * this.idBytes) === 0) return entry - 1;
    }
  }

  private readonly scratch = Buffer.alloc(32);

  /** Whether number `i` is a commit of the graph (not a parent outside it). */
  has(i: number): boolean {
    return i >= 0 && i < this.size;
  }

  /** The id of number `i`, as git prints it. */
  oid(i: number): string {
    return this.ids.toString("hex", i * this.idBytes, (i + 1) * this.idBytes);
  }

  parentCount(i: number): number {
    return (this.parentStart[i + 1] ?? 0) - (this.parentStart[i] ?? 0);
  }

  /** The k-th parent of commit i (0: the first parent); -1 when it has none. */
  parent(i: number, k = 0): number {
    return k < this.parentCount(i) ? (this.parentList[(this.parentStart[i] ?? 0) + k] ?? -1) : -1;
  }

  /** Committer time of commit i, seconds since the epoch. */
  time(i: number): number {
    return this.times[i] ?? 0;
  }

  /** @internal */
  static assemble(
    size: number,
    idBytes: number,
    ids: Buffer,
    table: Int32Array,
    parentStart: Int32Array,
    parentList: Int32Array,
    times: Float64Array,
  ): CommitGraph {
    return new CommitGraph(size, idBytes, ids, table, parentStart, parentList, times);
  }
}

/** Grows a typed array (or Buffer) to at least `need` items, doubling. */
function grown<T extends Int32Array | Float64Array | Buffer>(a: T, need: number, make: (n: number) => T): T {
  if (need <= a.length) return a;
  const b = make(Math.max(need, a.length * 2));
  b.set(a);
  return b;
}

/**
 * Collects commits one by one (ids as hex), holding parents as raw ids until the end, when every id is
 * numbered and each parent resolved to its number.
 */
export class CommitGraphBuilder {
  private idBytes = 0;
  private count = 0;
  private ids = Buffer.alloc(0);
  private times = new Float64Array(0);
  /** Parents' raw ids in order, and where each commit's start. */
  private parentIds = Buffer.alloc(0);
  private parentCount = 0;
  private parentStart = new Int32Array(1);

  add(oid: string, parents: readonly string[], time: number): void {
    if (this.idBytes === 0) this.idBytes = oid.length / 2;
    const n = this.idBytes;
    this.ids = grown(this.ids, (this.count + 1) * n, (k) => Buffer.alloc(k));
    this.ids.write(oid, this.count * n, n, "hex");
    this.times = grown(this.times, this.count + 1, (k) => new Float64Array(k));
    this.times[this.count] = time;
    this.parentIds = grown(this.parentIds, (this.parentCount + parents.length) * n, (k) => Buffer.alloc(k));
    for (const p of parents) this.parentIds.write(p, this.parentCount++ * n, n, "hex");
    this.count++;
    this.parentStart = grown(this.parentStart, this.count + 1, (k) => new Int32Array(k));
    this.parentStart[this.count] = this.parentCount;
  }

  finish(): CommitGraph {
    const n = Math.max(1, this.idBytes);
    const size = this.count;
    let slots = 16;
    while (slots < 2 * (size + this.parentCount)) slots *= 2;
    const table = new Int32Array(slots);
    const mask = slots - 1;
    let ids = this.ids;
    let total = size;
    /**
     * The number of the id at `at` of `from`, once in the table. An id not there yet gets `own` when it
     * is a commit's (its place), else the next number after the commits, its id appended to `ids`.
     */
    const numberOf = (from: Buffer, at: number, own: number): number => {
      for (let slot = from.readUInt32LE(at) & mask; ; slot = (slot + 1) & mask) {
        const entry = table[slot] ?? 0;
        if (entry === 0) {
          if (own >= 0) {
            table[slot] = own + 1;
            return own;
          }
          ids = grown(ids, (total + 1) * n, (k) => Buffer.alloc(k));
          from.copy(ids, total * n, at, at + n);
          table[slot] = ++total;
          return total - 1;
        }
        if (ids.compare(from, at, at + n, (entry - 1) * n, entry * n) === 0) return entry - 1;
      }
    };
    // Commits first, so that each keeps the number of its place (git lists each commit once).
    for (let i = 0; i < size; i++) numberOf(this.ids, i * n, i);
    const parentList = new Int32Array(this.parentCount);
    for (let k = 0; k < this.parentCount; k++) parentList[k] = numberOf(this.parentIds, k * n, -1);
    const exact = Buffer.alloc(total * n);
    ids.copy(exact, 0, 0, total * n);
    return CommitGraph.assemble(
      size,
      n,
      exact,
      table,
      this.parentStart.slice(0, size + 1),
      parentList,
      this.times.slice(0, size),
    );
  }
}
