import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { GitGoodError } from "../../src/errors.js";
import { mine } from "../../src/mining/mine.js";
import { Fixture, useFixtures } from "../helpers/fixture.js";

const fixture = useFixtures();

/** A repository with merge and chain samples. */
function richRepo(): Fixture {
  const f = fixture();
  f.commit("base", { "a.py": Fixture.lines("a", 20), "b.py": Fixture.lines("b", 20) });
  f.commit("sep", { "README.md": "r\n" });
  for (let i = 0; i < 3; i++) f.commit(`b ${i}`, { "b.py": Fixture.lines(`b${i}-`, 20) });
  f.checkout("side", true);
  f.commit("side", { "a.py": Fixture.lines("side", 20) });
  f.checkout("main");
  f.commit("main", { "a.py": Fixture.lines("main", 20) });
  f.merge("side", { "a.py": Fixture.lines("resolved", 20) });
  for (let i = 0; i < 4; i++) f.commit(`a ${i}`, { "a.py": Fixture.lines(`a${i}-`, 20) });
  return f;
}

async function expectError(p: Promise<unknown>, code: string): Promise<GitGoodError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(GitGoodError);
  expect((err as GitGoodError).code).toBe(code);
  return err as GitGoodError;
}

/** Hash of every file under a directory (names, sizes and bytes). */
function snapshot(dir: string): string {
  const h = createHash("sha256");
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const p = path.join(d, name);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else h.update(`${path.relative(dir, p)}\0${st.size}\0`).update(readFileSync(p));
    }
  };
  walk(dir);
  return h.digest("hex");
}

describe("bad input", () => {
  it("rejects a path that is not a repository, or does not exist", async () => {
    const f = fixture();
    const plain = f.scratch("plain");
    const e = await expectError(mine({ repoPath: plain }), "NOT_A_REPOSITORY");
    expect(e.message).toMatch(/not a git repository/);
    await expectError(mine({ repoPath: path.join(plain, "nope") }), "NOT_FOUND");
  });

  it("rejects an empty repository with a clear message", async () => {
    const f = fixture();
    const e = await expectError(mine({ repoPath: f.dir }), "EMPTY_REPOSITORY");
    expect(e.message).toMatch(/nothing to mine/);
  });

  it("rejects bad options before touching git", async () => {
    const f = richRepo();
    await expectError(mine({ repoPath: f.dir, minChain: 5, maxChain: 4 }), "BAD_OPTION");
    await expectError(mine({ repoPath: f.dir, languages: ["klingon"] }), "BAD_OPTION");
    await expectError(mine({ repoPath: f.dir, name: "no-slash" }), "BAD_OPTION");
  });

  it("mines a bare clone exactly like its source", async () => {
    const f = richRepo();
    const bare = path.join(f.scratch("bare"), "widgets.git");
    f.git("clone", "-q", "--bare", f.dir, bare);
    const a = await mine({ repoPath: f.dir, name: "o/r" });
    const b = await mine({ repoPath: bare, name: "o/r" });
    expect(b.summary.bare).toBe(true);
    expect(a.samples.length).toBeGreaterThan(1);
    expect(b.samples).toEqual(a.samples);
  });

  it("says a shallow clone is shallow and skips what lies beyond the boundary", async () => {
    const f = richRepo();
    const shallow = path.join(f.scratch("shallow"), "repo");
    f.git("clone", "-q", "--depth", "3", "--no-single-branch", `file://${f.dir}`, shallow);
    const r = await mine({ repoPath: shallow, name: "o/r" });
    expect(r.summary.shallow).toBe(true);
    expect(r.summary.warnings.join(" ")).toMatch(/shallow clone/);
    // The last three commits on main edit a.py: the run reaches the boundary, so its length is unknown.
    expect(r.samples.filter((s) => s.sample_type === "file_commit_chain")).toEqual([]);
    expect(r.summary.dropped.file_commit_chain.shallow).toBeGreaterThan(0);
  });

  it("skips and counts what a partial clone lacks, without hanging or fetching", async () => {
    const f = richRepo();
    const src = path.join(f.scratch("src"), "repo");
    f.git("clone", "-q", "--bare", f.dir, src);
    f.gitIn(src, "config", "uploadpack.allowFilter", "true");
    const partial = path.join(f.scratch("partial"), "repo");
    f.git("clone", "-q", "--bare", "--filter=blob:none", `file://${src}`, partial);
    rmSync(src, { recursive: true, force: true }); // the promisor remote is gone
    const r = await mine({ repoPath: partial, name: "o/r" });
    expect(r.summary.partial_clone).toBe(true);
    expect(r.summary.dropped.merge.missing_objects).toBe(1);
    expect(r.summary.unreadable_commits).toBeGreaterThan(5);
    expect(r.samples).toEqual([]);
  });

  it("never writes to the repository it reads", async () => {
    const f = richRepo();
    const before = snapshot(path.join(f.dir, ".git"));
    const work = snapshot(f.dir);
    const r = await mine({ repoPath: f.dir });
    expect(r.samples.length).toBeGreaterThan(1);
    expect(snapshot(path.join(f.dir, ".git"))).toBe(before);
    expect(snapshot(f.dir)).toBe(work);
  });

  it("gives byte-identical results on every run", async () => {
    const f = richRepo();
    const a = await mine({ repoPath: f.dir, jobs: 1 });
    const b = await mine({ repoPath: f.dir, jobs: 4 });
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
  });

  it("refuses a file where a repository is expected", async () => {
    const f = fixture();
    const dir = f.scratch("x");
    mkdirSync(path.join(dir, "sub"));
    await expectError(mine({ repoPath: path.join(dir, "sub") }), "NOT_A_REPOSITORY");
  });
});
