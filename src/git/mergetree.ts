import { isGitGoodError } from "../errors.js";
import { mapPool } from "../util/pool.js";
import { CatFile } from "./catfile.js";
import { privateObjectStore } from "./objects.js";
import { MERGE_CONFIG, type Repo } from "./repo.js";
import type { TreeChange } from "./trees.js";
import { diffTreesVia } from "./treewalk.js";
import { atLeast } from "./version.js";

export interface MergePair {
  /** The merge commit being re-merged. */
  commit: string;
  parents: readonly [string, string];
}

type RemergeOutcome =
  | { commit: string; ok: true; tree: string; clean: boolean; conflicted: string[] }
  | { commit: string; ok: false; error: string };

const MERGE_TREE_ARGS = ["merge-tree", "--write-tree", "-z", "--name-only", "--no-messages", "--allow-unrelated-histories"];

/**
 * Re-merges commit pairs with `git merge-tree --write-tree`, without a work tree or index. The trees
 * and blobs git writes go to a private, temporary object directory that borrows the repository's
 * objects as an alternate, so the repository itself is never written to. With git >= 2.40 merges are
 * batched through `--stdin` (one process per job); older git runs one process per merge, `jobs` at once.
 */
export class Remerger {
  private readonly env: Record<string, string>;
  private readonly removeQuarantine: () => void;
  private reader: CatFile | null = null;

  constructor(
    private readonly repo: Repo,
    private readonly jobs: number,
  ) {
    const store = privateObjectStore(repo);
    this.removeQuarantine = store.remove;
    this.env = store.env;
  }

  get batched(): boolean {
    return atLeast(this.repo.version, 2, 40);
  }

  /** Yields one outcome per pair, in completion order. A pair git cannot merge is an outcome with an error. */
  async *remergeAll(pairs: readonly MergePair[]): AsyncGenerator<RemergeOutcome> {
    if (!this.batched) {
      yield* mapPool(pairs, this.jobs, (p) => this.remergeOne(p));
      return;
    }
    const chunkSize = Math.ceil(pairs.length / Math.max(1, this.jobs)) || 1;
    const chunks: MergePair[][] = [];
    for (let i = 0; i < pairs.length; i += chunkSize) chunks.push(pairs.slice(i, i + chunkSize));
    for await (const outcomes of mapPool(chunks, this.jobs, (c) => this.remergeBatch(c))) yield* outcomes;
  }

  /** Reads objects of the merge results (and of the repository). */
  objects(): CatFile {
    this.reader ??= new CatFile(this.repo.dir, this.env);
    return this.reader;
  }

  /** The paths that differ between two trees or commits, re-merge results included: read by `objects()`, no process. */
  changes(from: string, to: string): Promise<TreeChange[]> {
    return diffTreesVia(this.objects(), from, to);
  }

  async close(): Promise<void> {
    await this.reader?.close();
    this.reader = null;
    this.removeQuarantine();
  }

  private async remergeOne(pair: MergePair): Promise<RemergeOutcome> {
    try {
      const r = await this.repo.run([...MERGE_CONFIG, ...MERGE_TREE_ARGS, pair.parents[0], pair.parents[1]], {
        env: this.env,
        okCodes: [0, 1],
      });
      const tokens = r.stdout.toString("utf8").split("\0");
      const tree = tokens[0] ?? "";
      const conflicted = tokens.slice(1).filter((t) => t !== "");
      return { commit: pair.commit, ok: true, tree, clean: r.code === 0, conflicted };
    } catch (err) {
      return { commit: pair.commit, ok: false, error: isGitGoodError(err) ? err.message : String(err) };
    }
  }

  /**
   * One `merge-tree --stdin` process for many pairs. Each answer is: status, tree, conflicted paths,
   * then an empty record. If git dies part-way (a missing object, say), the pairs it did not answer
   * are re-merged one by one so that one bad merge costs only itself.
   */
  private async remergeBatch(pairs: readonly MergePair[]): Promise<RemergeOutcome[]> {
    const out: RemergeOutcome[] = [];
    const input = pairs.map((p) => `${p.parents[0]} ${p.parents[1]}\n`).join("");
    let current: string[] = [];
    try {
      for await (const token of this.repo.stream([...MERGE_CONFIG, ...MERGE_TREE_ARGS, "--stdin"], {
        env: this.env,
        input,
        okCodes: [0, 1],
      })) {
        if (token !== "") {
          current.push(token);
          continue;
        }
        const pair = pairs[out.length];
        if (!pair) break;
        const [status, tree, ...conflicted] = current;
        out.push({ commit: pair.commit, ok: true, tree: tree ?? "", clean: status === "1", conflicted });
        current = [];
      }
    } catch {
      /* fall through: whatever was not answered is retried alone */
    }
    for (const pair of pairs.slice(out.length)) out.push(await this.remergeOne(pair));
    return out;
  }
}
