import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { sampleToJson, type MergeSample } from "../../src/dataset/sample.js";
import { Repo } from "../../src/git/repo.js";
import { mergeResolvable } from "../../src/git/resolvable.js";
import { mine, type MineOptions } from "../../src/mining/mine.js";
import { gitgood } from "../helpers/cli.js";
import { Fixture, useFixtures } from "../helpers/fixture.js";
import { committerDate, realMergeConflicts } from "../helpers/oracle.js";

const fixture = useFixtures();

/** What HEAD holds of `file`, as `git show` prints it, read from the work tree (which holds the same after every commit and checkout). */
function committed(f: Fixture, file: string): string {
  return readFileSync(path.join(f.dir, file), "utf8").trimEnd() + "\n";
}

/** Replaces the given 0-based lines of `text`. */
function edit(text: string, changes: Record<number, string>): string {
  const lines = text.split("\n");
  for (const [i, v] of Object.entries(changes)) lines[Number(i)] = v;
  return lines.join("\n");
}

/**
 * Makes a branch from main that sets lines in files, sets other values for the same lines on main,
 * and merges the branch into main with `resolution`. Returns the merge commit.
 */
function conflictingMerge(
  f: Fixture,
  branch: string,
  ours: Record<string, Record<number, string>>,
  theirs: Record<string, Record<number, string>>,
  resolution: Record<string, string> = {},
): string {
  const read = (file: string) => committed(f, file);
  f.checkout(branch, true);
  f.commit(`${branch} work`, Object.fromEntries(Object.entries(theirs).map(([p, c]) => [p, edit(read(p), c)])));
  f.checkout("main");
  f.commit(`main work before ${branch}`, Object.fromEntries(Object.entries(ours).map(([p, c]) => [p, edit(read(p), c)])));
  const files = Object.fromEntries(
    Object.keys(ours).map((p) => [p, resolution[p] ?? edit(read(p), ours[p] ?? {})]),
  );
  return f.merge(branch, files);
}

/**
 * Like conflictingMerge, each conflicted file resolved to ours, then `extra` written over the result
 * before the merge is committed (an evil edit, say).
 */
function mergeWithExtra(
  f: Fixture,
  branch: string,
  ours: Record<string, Record<number, string>>,
  theirs: Record<string, Record<number, string>>,
  extra: Record<string, (current: string) => string>,
): string {
  const read = (file: string) => committed(f, file);
  f.checkout(branch, true);
  f.commit(`${branch} work`, Object.fromEntries(Object.entries(theirs).map(([p, c]) => [p, edit(read(p), c)])));
  f.checkout("main");
  f.commit(`main work before ${branch}`, Object.fromEntries(Object.entries(ours).map(([p, c]) => [p, edit(read(p), c)])));
  const resolved: Record<string, string> = Object.fromEntries(Object.keys(ours).map((p) => [p, read(p)]));
  for (const [p, change] of Object.entries(extra)) resolved[p] = change(resolved[p] ?? read(p));
  return f.merge(branch, resolved);
}

async function mergeSamples(f: Fixture, opts: Partial<MineOptions> = {}) {
  const r = await mine({ repoPath: f.dir, type: "merge", name: "acme/widgets", ...opts });
  return { samples: r.samples as MergeSample[], summary: r.summary };
}

function base(f: Fixture): void {
  f.commit("base", {
    "a.py": Fixture.lines("a", 40),
    "b.py": Fixture.lines("b", 20),
    "z.py": Fixture.lines("z", 20),
    "notes.txt": Fixture.lines("n", 10),
  });
}

describe("merge mining", () => {
  it("finds easy, medium and hard conflicts exactly as a real git merge shows them", async () => {
    const f = fixture();
    base(f);
    const easy = conflictingMerge(f, "f1", { "a.py": { 3: "main" } }, { "a.py": { 3: "f1" } });
    const medium = conflictingMerge(f, "f2", { "a.py": { 10: "m1", 30: "m2" } }, { "a.py": { 10: "t1", 30: "t2" } });
    const hard = conflictingMerge(
      f,
      "f3",
      { "z.py": { 1: "m" }, "b.py": { 2: "m" } },
      { "z.py": { 1: "t" }, "b.py": { 2: "t" } },
    );
    f.checkout("clean", true);
    f.commit("clean side", { "b.py": edit(committed(f, "b.py"), { 15: "side" }) });
    f.checkout("main");
    f.merge("clean");

    const { samples, summary } = await mergeSamples(f);
    expect(samples.map((s) => s.scenario.merge_commit_hash)).toEqual([easy, medium, hard]);
    expect(samples.map((s) => s.id)).toEqual([
      "acme_widgets_merge_0000",
      "acme_widgets_merge_0001",
      "acme_widgets_merge_0002",
    ]);
    expect(samples.map((s) => s.difficulty)).toEqual(["easy", "medium", "hard"]);
    for (const s of samples) {
      const oracle = realMergeConflicts(f, s.scenario.merge_commit_hash);
      expect(s.scenario.files_in_merge_conflict).toEqual(oracle.files);
      expect(s.scenario.number_of_files_with_merge_conflict).toBe(oracle.files.length);
      expect(s.scenario.total_number_of_merge_conflicts).toBe(oracle.regions.reduce((a, b) => a + b, 0));
      expect(s.scenario.parents).toEqual([
        f.git("rev-parse", `${s.scenario.merge_commit_hash}^1`),
        f.git("rev-parse", `${s.scenario.merge_commit_hash}^2`),
      ]);
      expect(s.sample_type).toBe("merge");
    }
    expect(samples[2]?.scenario.files_in_merge_conflict).toEqual(["b.py", "z.py"]);
    expect(summary.samples.merge).toEqual({ total: 3, easy: 1, medium: 1, hard: 1 });
    expect(summary.dropped.merge.no_conflict).toBe(1);
  });

  it("ignores octopus merges and counts them", async () => {
    const f = fixture();
    base(f);
    f.checkout("o1", true);
    f.commit("o1", { "o1.py": "one\n" });
    f.checkout("main");
    f.checkout("o2", true);
    f.commit("o2", { "o2.py": "two\n" });
    f.checkout("main");
    f.git("merge", "-q", "--no-ff", "-m", "octopus", "o1", "o2");
    expect(f.git("rev-list", "--parents", "-1", "HEAD").split(" ")).toHaveLength(4);
    const { samples, summary } = await mergeSamples(f);
    expect(samples).toEqual([]);
    expect(summary.dropped.merge.octopus).toBe(1);
  });

  it("drops a merge when any conflicted file is not in a mined language", async () => {
    const f = fixture();
    base(f);
    conflictingMerge(
      f,
      "mixed",
      { "a.py": { 1: "m" }, "notes.txt": { 1: "m" } },
      { "a.py": { 1: "t" }, "notes.txt": { 1: "t" } },
    );
    const { samples, summary } = await mergeSamples(f);
    expect(samples).toEqual([]);
    expect(summary.dropped.merge.non_pl_file).toBe(1);
    // The same merge is a sample when text files are not what we mine but Python is not either.
    const onlyJava = await mergeSamples(f, { languages: ["java"] });
    expect(onlyJava.samples).toEqual([]);
  });

  it("keeps 8 conflict regions, drops 9, and honours --max-conflicts", async () => {
    const f = fixture();
    base(f);
    f.commit("big file", { "big.py": Fixture.lines("g", 100) });
    const spaced = (n: number, v: string, from: number) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [from + i * 10, `${v}${i}`]));
    const eight = conflictingMerge(f, "eight", { "big.py": spaced(8, "m", 0) }, { "big.py": spaced(8, "t", 0) });
    const nine = conflictingMerge(f, "nine", { "big.py": spaced(9, "m", 5) }, { "big.py": spaced(9, "t", 5) });
    expect(realMergeConflicts(f, eight).regions).toEqual([8]);
    expect(realMergeConflicts(f, nine).regions).toEqual([9]);
    const { samples, summary } = await mergeSamples(f);
    expect(samples.map((s) => s.scenario.merge_commit_hash)).toEqual([eight]);
    expect(samples[0]?.scenario.total_number_of_merge_conflicts).toBe(8);
    expect(summary.dropped.merge.too_many_conflicts).toBe(1);
    const strict = await mergeSamples(f, { maxConflicts: 7 });
    expect(strict.samples).toEqual([]);
    expect(strict.summary.dropped.merge.too_many_conflicts).toBe(2);
  });

  it("yields one sample per merge however many refs reach it, and mines no tags or other namespaces", async () => {
    const f = fixture();
    base(f);
    const m = conflictingMerge(f, "side", { "a.py": { 5: "m" } }, { "a.py": { 5: "t" } });
    f.git("branch", "copy");
    f.git("update-ref", "refs/remotes/origin/main", "HEAD");
    f.git("symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main");
    f.git("tag", "v1");
    // A merge reachable only from a tag and a pull-request ref is not mined.
    const hidden = conflictingMerge(f, "hidden-side", { "z.py": { 5: "m" } }, { "z.py": { 5: "t" } });
    f.git("tag", "only-tag", hidden);
    f.git("update-ref", "refs/pull/1/head", hidden);
    f.git("reset", "-q", "--hard", m);
    f.git("branch", "-D", "hidden-side");
    const { samples } = await mergeSamples(f);
    expect(samples.map((s) => s.scenario.merge_commit_hash)).toEqual([m]);
  });

  it("counts conflicts in CRLF files and in paths with spaces and non-ASCII names", async () => {
    const f = fixture();
    f.commit("base", { "dir with space/ünïcode.py": Fixture.lines("u", 20), "win.py": Fixture.lines("w", 20, "\r\n") });
    const m = conflictingMerge(
      f,
      "side",
      { "dir with space/ünïcode.py": { 2: "m" }, "win.py": { 2: "m\r", 12: "m\r" } },
      { "dir with space/ünïcode.py": { 2: "t" }, "win.py": { 2: "t\r", 12: "t\r" } },
    );
    const { samples } = await mergeSamples(f);
    expect(samples).toHaveLength(1);
    expect(samples[0]?.scenario.files_in_merge_conflict).toEqual(["dir with space/ünïcode.py", "win.py"]);
    expect(samples[0]?.scenario.total_number_of_merge_conflicts).toBe(3);
    expect(realMergeConflicts(f, m).regions).toEqual([1, 2]);
  });

  it("drops merges whose conflicts have no marker region (modify/delete only)", async () => {
    const f = fixture();
    base(f);
    f.checkout("del", true);
    f.commit("delete b", { "b.py": null });
    f.checkout("main");
    f.commit("modify b", { "b.py": edit(committed(f, "b.py"), { 1: "changed" }) });
    f.merge("del", { "b.py": "resolved\n" });
    const { samples, summary } = await mergeSamples(f);
    expect(samples).toEqual([]);
    expect(summary.dropped.merge.no_marker_conflict).toBe(1);
  });

  it("keeps a merge whose modify/delete conflict sits next to a marker conflict, without counting it", async () => {
    const f = fixture();
    base(f);
    f.checkout("side", true);
    f.commit("side", { "a.py": edit(committed(f, "a.py"), { 3: "side" }), "b.py": null });
    f.checkout("main");
    f.commit("main", {
      "a.py": edit(committed(f, "a.py"), { 3: "main" }),
      "b.py": edit(committed(f, "b.py"), { 1: "changed" }),
    });
    const merge = f.merge("side", { "a.py": edit(committed(f, "a.py"), { 3: "both" }), "b.py": null });
    expect(realMergeConflicts(f, merge)).toEqual({ files: ["a.py", "b.py"], regions: [1, 0] });
    const { samples, summary } = await mergeSamples(f);
    expect(samples.map((s) => s.scenario)).toEqual([
      {
        merge_commit_hash: merge,
        parents: [f.git("rev-parse", `${merge}^1`), f.git("rev-parse", `${merge}^2`)],
        number_of_files_with_merge_conflict: 1,
        total_number_of_merge_conflicts: 1,
        files_in_merge_conflict: ["a.py"],
        resolvable: true,
        committed_at: committerDate(f, merge),
      },
    ]);
    expect(samples[0]?.difficulty).toBe("easy");
    expect(summary.dropped.merge).toEqual({});
  });

  it("drops a merge that edits a file of another language without a conflict (an evil edit)", async () => {
    const f = fixture();
    base(f);
    const evil = mergeWithExtra(f, "evil", { "a.py": { 1: "m" } }, { "a.py": { 1: "t" } }, { "notes.txt": () => "edited\n" });
    expect(f.git("diff", "--name-only", `${evil}^1`, evil).split("\n")).toContain("notes.txt");
    const { samples, summary } = await mergeSamples(f);
    expect(samples).toEqual([]);
    expect(summary.dropped.merge.non_pl_file).toBe(1);
  });

  it("marks each kept merge resolvable or not, as mergeResolvable says, and --resolvable-only keeps the first", async () => {
    const f = fixture();
    base(f);
    // Only the conflict region changed.
    const clean = conflictingMerge(f, "r1", { "a.py": { 2: "m" } }, { "a.py": { 2: "t" } });
    // A whitespace-only edit outside the region, in the conflicted file.
    const spaced = mergeWithExtra(f, "r2", { "a.py": { 6: "m" } }, { "a.py": { 6: "t" } }, { "a.py": (t) => edit(t, { 20: "a20 " }) });
    // A Python file without a conflict edited in the merge.
    const other = mergeWithExtra(f, "r3", { "a.py": { 9: "m" } }, { "a.py": { 9: "t" } }, { "z.py": (t) => edit(t, { 0: "zz" }) });
    const { samples } = await mergeSamples(f);
    const repo = await Repo.open(f.dir);
    const byHash = new Map(samples.map((s) => [s.scenario.merge_commit_hash, s.scenario.resolvable]));
    expect(byHash.size).toBe(3);
    for (const s of samples) {
      const judged = await mergeResolvable(repo, s.scenario);
      expect(s.scenario.resolvable).toBe(judged.resolvable);
      // The reason travels with an unresolvable sample, so set-up need not re-merge to find it.
      expect(s.scenario.unresolvable_reason ?? null).toBe(judged.reason);
    }
    expect([byHash.get(clean), byHash.get(spaced), byHash.get(other)]).toEqual([true, false, false]);
    expect(sampleToJson(samples[0]!)).toMatch(/"files_in_merge_conflict":\["a\.py"\],"resolvable":true,"committed_at":"[0-9T:-]+Z"\},"sample_type":"merge"/);

    const only = await mergeSamples(f, { resolvableOnly: true });
    expect(only.samples.map((s) => s.scenario.merge_commit_hash)).toEqual([clean]);
    expect(only.samples[0]?.id).toBe("acme_widgets_merge_0000");
    expect(only.summary.unresolvable_left_out).toBe(2);
    const cli = await gitgood(["mine", f.dir, "--type", "merge", "--name", "acme/widgets", "--resolvable-only"]);
    expect(cli.code).toBe(0);
    expect(cli.stdout.trim().split("\n")).toHaveLength(1);
    expect(cli.stderr).toContain("--resolvable-only left out 2 merge samples");
    expect(cli.stderr).not.toContain("\r");
  });

  it("skips and counts a merge whose objects are missing from a damaged copy, and mines the rest", async () => {
    const f = fixture();
    base(f);
    const good = conflictingMerge(f, "good", { "a.py": { 1: "m" } }, { "a.py": { 1: "t" } });
    conflictingMerge(f, "bad", { "z.py": { 1: "m" } }, { "z.py": { 1: "t" } });
    // Remove the loose object of the bad side's z.py: git can no longer re-merge that merge.
    const blob = f.git("rev-parse", "bad:z.py");
    rmSync(path.join(f.dir, ".git", "objects", blob.slice(0, 2), blob.slice(2)));
    expect(f.tryGit("cat-file", "-e", blob).code).not.toBe(0);
    const { samples, summary } = await mergeSamples(f);
    expect(summary.partial_clone).toBe(false);
    expect(samples.map((s) => s.scenario.merge_commit_hash)).toEqual([good]);
    expect(summary.dropped.merge.missing_objects).toBe(1);
  });
});
