import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isMergeSample, sampleToJson, type ChainSample, type MergeSample, type Sample } from "../../src/dataset/sample.js";
import { mine } from "../../src/mining/mine.js";
import { gitgood } from "../helpers/cli.js";
import { Fixture } from "../helpers/fixture.js";
import { committerDate } from "../helpers/oracle.js";

/*
 * `mine --since/--until` for merges and chains: a merge is in the window by its merge commit's committer
 * date, a chain by its newest commit's; every sample carries that date, and git's own dates are the oracle.
 */

let f: Fixture;
const merges: string[] = [];
const chainTips: string[] = [];

const lines = (prefix: string, changes: Record<number, string> = {}) =>
  Fixture.lines(prefix, 20)
    .split("\n")
    .map((l, i) => changes[i] ?? l)
    .join("\n");

/** A merge whose branch and main set line 3 of `file` differently. */
function conflictingMerge(file: string, n: number): string {
  f.checkout(`side${n}`, true);
  f.commit(`side ${n}`, { [file]: lines(file, { 3: `side ${n}` }) });
  f.checkout("main");
  f.commit(`main ${n}`, { [file]: lines(file, { 3: `main ${n}` }) });
  return f.merge(`side${n}`, { [file]: lines(file, { 3: `both ${n}` }) });
}

/** Three commits in a row that touch only `file`; returns the newest. */
function chain(file: string): string {
  let tip = "";
  for (let i = 0; i < 3; i++) tip = f.commit(`edit ${file} ${i}`, { [file]: `${lines(file)}\nchange ${i}\n` + "x\n".repeat(i) });
  return tip;
}

beforeAll(() => {
  f = new Fixture();
  f.commit("base", { "a.py": lines("a.py"), "b.py": lines("b.py"), "c.py": lines("c.py"), "d.py": lines("d.py"), "README.md": "r\n" });
  f.commit("separator", { "README.md": "r2\n" });
  merges.push(conflictingMerge("a.py", 1));
  chainTips.push(chain("c.py"));
  f.commit("gap", { "README.md": "r3\n" });
  merges.push(conflictingMerge("b.py", 2));
  chainTips.push(chain("d.py"));
  f.commit("end", { "README.md": "r4\n" });
});
afterAll(() => f.remove());

/** The commit a sample is dated by: its merge commit, or its chain's newest commit. */
const commitOf = (s: Sample): string => (isMergeSample(s) ? s.scenario.merge_commit_hash : (s as ChainSample).scenario.newest_commit);
const time = (commit: string) => Number(f.git("show", "-s", "--format=%ct", commit));
const iso = (seconds: number) => new Date(seconds * 1000).toISOString();

describe("mine --since/--until for merges and chains", () => {
  it("dates every sample with git's committer date of its merge commit or its chain's newest commit", async () => {
    const { samples } = await mine({ repoPath: f.dir, name: "acme/dated" });
    const mergeSamples = samples.filter((s): s is MergeSample => s.sample_type === "merge");
    const chainSamples = samples.filter((s): s is ChainSample => s.sample_type === "file_commit_chain");
    expect(mergeSamples.map((s) => s.scenario.merge_commit_hash)).toEqual(merges);
    expect(chainSamples.map((s) => s.scenario.newest_commit)).toEqual(chainTips);
    for (const s of mergeSamples) expect(s.scenario.committed_at).toBe(committerDate(f, s.scenario.merge_commit_hash));
    for (const s of chainSamples) expect(s.scenario.committed_at).toBe(committerDate(f, s.scenario.newest_commit));
  });

  it("keeps only what lies in the window, counts the rest as outside_dates, and gives the same bytes twice", async () => {
    // From the second merge's own second: the first merge and the first chain are before it.
    const since = time(merges[1] ?? "");
    const window = { since, until: null };
    const first = await mine({ repoPath: f.dir, name: "acme/dated", window });
    expect(first.samples.map(commitOf)).toEqual([merges[1], chainTips[1]]);
    expect(first.samples.map((s) => s.id)).toEqual(["acme_dated_merge_0000", "acme_dated_file_commit_chain_0000"]);
    expect(first.summary.dropped.merge.outside_dates).toBe(1);
    expect(first.summary.dropped.file_commit_chain.outside_dates).toBe(1);
    const again = await mine({ repoPath: f.dir, name: "acme/dated", window });
    expect(again.samples.map(sampleToJson)).toEqual(first.samples.map(sampleToJson));
    // Up to the second before the second merge: only the first merge and the first chain.
    const before = await mine({ repoPath: f.dir, name: "acme/dated", window: { since: null, until: since - 1 } });
    expect(before.samples.map(commitOf)).toEqual([merges[0], chainTips[0]]);
  });

  it("takes the window on the command line for every type, and refuses a bad date or an empty window in one line", async () => {
    const since = iso(time(merges[1] ?? ""));
    const r = await gitgood(["mine", f.dir, "--name", "acme/dated", "--type", "merge", "--since", since]);
    expect(r.code).toBe(0);
    const mined = r.stdout.trim().split("\n").map((l) => JSON.parse(l) as MergeSample);
    expect(mined.map((s) => s.scenario.merge_commit_hash)).toEqual([merges[1]]);
    expect(r.stderr).toMatch(/outside_dates\s+1/);
    const bad = await gitgood(["mine", f.dir, "--since", "last tuesday"]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr.trim()).toBe("gitgood: --since takes a date such as 2025-06-01 or 2025-06-01T12:00:00Z, not 'last tuesday'");
    const empty = await gitgood(["mine", f.dir, "--name", "acme/dated", "--since", "2025-06-02", "--until", "2025-06-01"]);
    expect(empty.code).not.toBe(0);
    expect(empty.stderr).toContain("--since is after --until");
  });
});
