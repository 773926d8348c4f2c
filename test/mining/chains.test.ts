import { existsSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { ChainSample } from "../../src/dataset/sample.js";
import { mine, type MineOptions } from "../../src/mining/mine.js";
import { Fixture } from "../helpers/fixture.js";
import { committerDate, numstat } from "../helpers/oracle.js";

/** The history every test starts from, built once: each test gets a copy (a file copy, no git process). */
let template: Fixture | null = null;
const made: Fixture[] = [];
afterEach(() => {
  for (const f of made.splice(0)) f.remove();
});
afterAll(() => template?.remove());

function fixture(): Fixture {
  if (!template) {
    template = new Fixture();
    template.commit("base", { "a.py": Fixture.lines("a", 30), "b.py": Fixture.lines("b", 30), "README.md": "hello\n" });
    // Files added in `base` would otherwise extend every run down to their addition.
    template.commit("separator", { "README.md": "hello again\n" });
  }
  const f = Fixture.copyOf(template);
  made.push(f);
  return f;
}

async function chains(f: Fixture, opts: Partial<MineOptions> = {}) {
  const r = await mine({ repoPath: f.dir, type: "file_commit_chain", name: "acme/widgets", ...opts });
  return { samples: r.samples as ChainSample[], summary: r.summary };
}

/**
 * Commits `n` changes to `file`, each appending a distinct line; returns the hashes, oldest first. The
 * file is read from the work tree, which holds what HEAD does after every commit.
 */
function touch(f: Fixture, file: string, n: number, extra: Record<string, string> = {}): string[] {
  const out: string[] = [];
  const full = path.join(f.dir, file);
  let head = f.head();
  for (let i = 0; i < n; i++) {
    const prev = existsSync(full) ? readFileSync(full, "utf8").trimEnd() + "\n" : "";
    const content = prev + `change ${out.length} of ${file} ${head.slice(0, 6)}\n`;
    head = f.commit(`edit ${file} #${i}`, { [file]: content, ...extra });
    out.push(head);
  }
  return out;
}

describe("chain mining", () => {
  it("finds a maximal run of 3 with its oldest, newest, branch, purity and difficulty", async () => {
    const f = fixture();
    const run = touch(f, "a.py", 3);
    f.commit("unrelated", { "b.py": "other\n" });
    const { samples, summary } = await chains(f);
    expect(samples).toHaveLength(1);
    const s = samples[0] as ChainSample;
    expect(s.id).toBe("acme_widgets_file_commit_chain_0000");
    expect(s.scenario).toEqual({
      file: "a.py",
      branch: "main",
      times_seen_consecutively: 3,
      purity: 1,
      newest_commit: run[2],
      oldest_commit: run[0],
      contains_non_pl_files: false,
      committed_at: committerDate(f, run[2] ?? ""),
    });
    expect(s.difficulty).toBe("easy");
    expect(summary.samples.file_commit_chain).toEqual({ total: 1, easy: 1, medium: 0, hard: 0 });
  });

  it("drops runs of 2 and of 7 (never cuts a long run) and honours --min-chain/--max-chain", async () => {
    const f = fixture();
    touch(f, "a.py", 2);
    f.commit("break", { "README.md": "x\n" });
    touch(f, "b.py", 7);
    const { samples, summary } = await chains(f);
    expect(samples).toEqual([]);
    expect(summary.dropped.file_commit_chain.too_short).toBe(1);
    expect(summary.dropped.file_commit_chain.too_long).toBe(1);
    const wide = await chains(f, { maxChain: 7 });
    expect(wide.samples.map((s) => [s.scenario.file, s.scenario.times_seen_consecutively])).toEqual([["b.py", 7]]);
    const loose = await chains(f, { minChain: 2, maxChain: 7 });
    expect(loose.samples.map((s) => s.scenario.file)).toEqual(["a.py", "b.py"]);
  });

  it("drops a chain whose file is added in its oldest commit", async () => {
    const f = fixture();
    f.commit("pause", { "README.md": "x\n" });
    touch(f, "new.py", 3);
    const { samples, summary } = await chains(f);
    expect(samples).toEqual([]);
    expect(summary.dropped.file_commit_chain.file_added).toBe(1);
  });

  it("breaks a run at a merge commit on the first-parent line", async () => {
    const f = fixture();
    touch(f, "a.py", 2);
    f.checkout("side", true);
    f.commit("side", { "b.py": "side\n" });
    f.checkout("main");
    f.merge("side");
    touch(f, "a.py", 2);
    const { samples, summary } = await chains(f);
    expect(samples).toEqual([]);
    expect(summary.dropped.file_commit_chain.too_short).toBe(2);
  });

  it("computes purity over all files of the chain's commits, with git's own line counts", async () => {
    const f = fixture();
    f.commit("setup", { "p.py": Fixture.lines("p", 10), "notes.txt": "n\n" });
    f.commit("separator 2", { "README.md": "s\n" });
    const c1 = f.commit("c1", { "p.py": Fixture.lines("p", 12), "notes.txt": "n\nmore\nmore\nmore\nmore\n" });
    const c2 = f.commit("c2", { "p.py": Fixture.lines("p", 15) });
    const c3 = f.commit("c3", { "p.py": Fixture.lines("p", 16), "b.py": "changed\n" + Fixture.lines("b", 30).slice(3) });
    f.commit("end", { "README.md": "bye\n" });
    let fileLines = 0;
    let allLines = 0;
    for (const c of [c1, c2, c3]) {
      const stat = numstat(f, c);
      fileLines += stat.get("p.py") ?? 0;
      for (const n of stat.values()) allLines += n;
    }
    const { samples } = await chains(f);
    const s = samples.find((x) => x.scenario.file === "p.py");
    expect(s).toBeDefined();
    expect(s?.scenario.purity).toBe(Math.round((fileLines / allLines) * 100) / 100);
    expect(s?.scenario.purity).toBe(0.5);
    expect(s?.difficulty).toBe("hard");
    expect(s?.scenario.contains_non_pl_files).toBe(true);
    expect(s?.scenario.non_pl_files).toEqual(["notes.txt"]);
  });

  it("rounds purity like the published code (0.875 -> 0.88, medium) and drops impure chains", async () => {
    const f = fixture();
    f.commit("setup", { "q.py": "", "data.csv": "" });
    f.commit("separator 2", { "README.md": "s\n" });
    // 7 changed lines in q.py and 1 in data.csv over the chain: purity 0.875.
    f.commit("q1", { "q.py": "1\n2\n3\n", "data.csv": "x\n" });
    f.commit("q2", { "q.py": "1\n2\n3\n4\n5\n" });
    f.commit("q3", { "q.py": "1\n2\n3\n4\n5\n6\n7\n" });
    f.commit("stop", { "README.md": "r\n" });
    // 1 changed line in r.py and 9 elsewhere: purity 0.3, dropped.
    f.commit("setup r", { "r.py": "0\n" });
    f.commit("separator 3", { "README.md": "t\n" });
    f.commit("r1", { "r.py": "1\n", "big.txt": "1\n2\n3\n" });
    f.commit("r2", { "r.py": "2\n", "big.txt": "1\n" });
    f.commit("r3", { "r.py": "3\n", "big.txt": "1\n2\n3\n4\n" });
    const { samples, summary } = await chains(f);
    expect(samples.map((s) => [s.scenario.file, s.scenario.purity, s.difficulty])).toEqual([["q.py", 0.88, "medium"]]);
    expect(summary.dropped.file_commit_chain.impure).toBe(1);
  });

  it("counts binary files as zero changed lines", async () => {
    const g = fixture();
    g.commit("setup", { "img.bin": Buffer.from([0, 1, 2]) });
    // Every commit rewrites img.bin, but binary changes count 0 lines, so the chain stays pure.
    for (let i = 0; i < 3; i++) {
      g.commit(`edit ${i}`, { "a.py": Fixture.lines(`v${i}`, 2), "img.bin": Buffer.from([0, i + 10, 3]) });
    }
    const { samples } = await chains(g);
    expect(samples.map((s) => [s.scenario.file, s.scenario.purity, s.scenario.non_pl_files])).toEqual([
      ["a.py", 1, ["img.bin"]],
    ]);
  });

  it("credits a run to the first branch in ref order and yields it once", async () => {
    const f = fixture();
    f.checkout("feature", true);
    const run = touch(f, "a.py", 3);
    f.git("branch", "aaa");
    f.git("update-ref", "refs/remotes/origin/feature", "HEAD");
    f.git("symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/feature");
    f.git("tag", "t1");
    f.checkout("main");
    f.commit("main moves on", { "README.md": "m\n" });
    const { samples } = await chains(f);
    expect(samples.map((s) => [s.scenario.branch, s.scenario.oldest_commit, s.scenario.newest_commit])).toEqual([
      ["aaa", run[0], run[2]],
    ]);
  });

  it("mines a branch that points into another branch's run as its own run", async () => {
    const f = fixture();
    const run = touch(f, "a.py", 5);
    f.git("branch", "old", run[2] as string);
    const { samples } = await chains(f);
    expect(samples.map((s) => [s.scenario.branch, s.scenario.times_seen_consecutively, s.scenario.newest_commit])).toEqual([
      ["old", 3, run[2]],
      ["main", 5, run[4]],
    ]);
  });

  it("mines a run on a merged and deleted side branch, credited to the first branch containing it", async () => {
    const f = fixture();
    f.checkout("topic", true);
    const run = touch(f, "b.py", 3);
    f.checkout("main");
    f.commit("main work", { "README.md": "m\n" });
    f.merge("topic");
    f.git("branch", "-D", "topic");
    f.git("branch", "zzz");
    // The run is reachable from main only through the merge's second parent: a side line.
    expect((await chains(f)).samples.map((s) => [s.scenario.branch, s.scenario.oldest_commit, s.scenario.newest_commit])).toEqual([
      ["main", run[0], run[2]],
    ]);
    f.git("branch", "topic", run[2] as string);
    expect((await chains(f)).samples.map((s) => s.scenario.branch)).toEqual(["topic"]);
  });

  it("ends a chain at a commit that deletes the file: only additions and modifications count", async () => {
    const f = fixture();
    const run = touch(f, "a.py", 3);
    const gone = f.commit("delete a.py", { "a.py": null });
    f.commit("after", { "README.md": "x\n" });
    const { samples } = await chains(f);
    expect(samples.map((s) => [s.scenario.file, s.scenario.oldest_commit, s.scenario.newest_commit, s.scenario.times_seen_consecutively])).toEqual([
      ["a.py", run[0], run[2], 3],
    ]);
    expect(samples.some((s) => s.scenario.newest_commit === gone)).toBe(false);
    // Two changes and a deletion are no chain.
    const g = fixture();
    touch(g, "b.py", 2);
    g.commit("delete b.py", { "b.py": null });
    const short = await chains(g);
    expect(short.samples).toEqual([]);
    expect(short.summary.dropped.file_commit_chain.too_short).toBe(1);
  });

  it("gives two chains where a line forks: each line's run is maximal on its own line", async () => {
    const f = fixture();
    const shared = touch(f, "a.py", 2);
    f.checkout("side", true);
    const [side] = touch(f, "a.py", 1);
    f.checkout("main");
    const [ahead] = touch(f, "a.py", 1);
    const { samples } = await chains(f);
    const found = samples.map((s) => [s.scenario.branch, s.scenario.oldest_commit, s.scenario.newest_commit]);
    expect(found).toContainEqual(["main", shared[0], ahead]);
    expect(found).toContainEqual(["side", shared[0], side]);
    expect(new Set(samples.map((s) => s.scenario.newest_commit))).toEqual(new Set([ahead, side]));
  });

  it("mines both sides of a fork after the side is merged and deleted", async () => {
    const f = fixture();
    const shared = touch(f, "a.py", 2);
    f.checkout("pr", true);
    const pr = touch(f, "a.py", 2);
    f.checkout("main");
    const [ahead] = touch(f, "a.py", 1);
    f.commit("more main", { "README.md": "m\n" });
    f.merge("pr");
    f.git("branch", "-D", "pr");
    const { samples } = await chains(f);
    const found = samples.map((s) => [s.scenario.branch, s.scenario.oldest_commit, s.scenario.newest_commit, s.scenario.times_seen_consecutively]);
    expect(found).toContainEqual(["main", shared[0], ahead, 3]);
    expect(found).toContainEqual(["main", shared[0], pr[1], 4]);
    expect(found).toHaveLength(2);
  });

  it("credits a side-line run to the first branch in ref order whose history holds it", async () => {
    const f = fixture();
    f.checkout("pr", true);
    const run = touch(f, "b.py", 3);
    f.checkout("main");
    f.commit("main work", { "README.md": "m\n" });
    f.merge("pr");
    f.git("branch", "-D", "pr");
    // "dev" sorts before "main" and holds the merge too; "aaa" sorts first but does not hold it.
    f.git("branch", "dev");
    f.git("branch", "aaa", "HEAD~1");
    const { samples } = await chains(f);
    expect(samples.map((s) => [s.scenario.branch, s.scenario.newest_commit])).toEqual([["dev", run[2]]]);
  });

  it("skips and counts a commit whose blob is missing from a damaged copy, and mines the rest", async () => {
    const f = fixture();
    const good = touch(f, "a.py", 3);
    f.commit("pause", { "README.md": "p\n" });
    const bad = touch(f, "b.py", 3);
    f.commit("end", { "README.md": "e\n" });
    // Remove the loose object of b.py as the middle commit wrote it: two commits can no longer be diffed.
    const blob = f.git("rev-parse", `${bad[1]}:b.py`);
    rmSync(path.join(f.dir, ".git", "objects", blob.slice(0, 2), blob.slice(2)));
    const { samples, summary } = await chains(f);
    expect(summary.partial_clone).toBe(false);
    expect(summary.unreadable_commits).toBe(2);
    expect(samples.map((s) => [s.scenario.file, s.scenario.oldest_commit, s.scenario.newest_commit])).toEqual([["a.py", good[0], good[2]]]);
  });
});
