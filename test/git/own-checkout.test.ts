import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkoutWithoutGit } from "../../src/git/own-checkout.js";
import type { WorkTreeMode } from "../../src/git/shared-clone.js";
import { checkOutOnly } from "../../src/git/sparse.js";
import { checkoutBranch, checkoutBranchAndTree, checkoutTreeOnly } from "../../src/git/worktree.js";
import { Fixture, fixtureEnv } from "../helpers/fixture.js";
import { countGitProcesses } from "../helpers/git-count.js";
import { clockless, filesBelow, gitOn, ownSandboxes, type OwnSandbox } from "../helpers/own-sandbox.js";

/*
 * The first checkout of a tool-only sandbox written without git: the oracle is real git. Each case makes
 * two sandboxes' git directories as `Sandbox.create` does (gitgood's own, the source's objects borrowed
 * through alternates), checks the commit out in one with `git checkout -q -B` and in the other through
 * `checkoutBranch` (gitgood's writer where it can); the index files must be the same bytes, and the refs,
 * reflogs (but the clock), work trees and what git says of both the same.
 */

const BRANCH = "gitgood/mcr";
const source = new Fixture();
const fixtures: Fixture[] = [source];
const outsideDirs: string[] = [];
afterAll(() => {
  fixtures.forEach((f) => f.remove());
  sandboxes.cleanup();
  outsideDirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
});

source.commit("varied", {
  // Folders of several lengths in the root and below: git's cache of trees orders them shortest first.
  "zz/file.txt": "zz\n",
  "a/x.py": "ax\n",
  "a.txt": "a dot\n",
  "a-b/y": "y\n",
  "bbb/deep/er/still/z.md": "deep\n",
  "b/one": "1\n",
  "b/two words.txt": "two\n",
  "caf\u00e9/na\u00efve.txt": "utf8\n",
  ".gitignore": "*.pyc\n",
  ".github/workflows/ci.yml": "on: push\n",
  "tool.sh": "#!/bin/sh\n",
});
source.git("update-index", "--chmod=+x", "tool.sh");
symlinkSync("a.txt", path.join(source.dir, "link"));
symlinkSync("../a", path.join(source.dir, "b", "up"));
source.git("add", "-A");
source.git("commit", "-q", "-m", "modes");
const varied = source.head();

type Side = OwnSandbox;
const sandboxes = ownSandboxes();
const sandboxOf = (from: Fixture, workTree: WorkTreeMode = "tools"): Promise<Side> => sandboxes.make(from, BRANCH, workTree);
const git = gitOn;
const gitWith = (side: Side, env: Record<string, string>, ...args: string[]): string =>
  execFileSync("git", args, { env: fixtureEnv({ GIT_DIR: side.own, GIT_WORK_TREE: side.work, ...env }), cwd: side.work }).toString("utf8");

/** What git and the file system say of a sandbox after its checkout (the index's bytes, or with files written its entries and flags). */
function seen(side: Side, written = false): Record<string, unknown> {
  const ref = path.join(side.own, "refs", "heads", ...BRANCH.split("/"));
  return {
    index: written ? git(side, "ls-files", "-s", "-t") : readFileSync(path.join(side.own, "index")).toString("hex"),
    files: filesBelow(side.own).filter((f) => !f.startsWith("objects/")),
    work: filesBelow(side.work),
    ref: readFileSync(ref, "utf8"),
    branchLog: clockless(path.join(side.own, "logs", "refs", "heads", ...BRANCH.split("/"))),
    headLog: clockless(path.join(side.own, "logs", "HEAD")),
    listed: written ? "" : git(side, "ls-files", "-s", "-t", "--debug"),
    status: git(side, "status", "--porcelain=v1", "-uall", "--branch"),
    diff: git(side, "diff", "HEAD"),
  };
}

async function byGitAndOwn(from: Fixture, commit: string, workTree: WorkTreeMode = "tools"): Promise<{ byGit: Side; own: Side; processes: number }> {
  const byGit = await sandboxOf(from, workTree);
  await byGit.repo.run(["checkout", "-q", "-B", BRANCH, commit]);
  const own = await sandboxOf(from, workTree);
  const { processes } = await countGitProcesses(() => checkoutBranch(own.repo, BRANCH, commit));
  await Promise.all([byGit.repo.close(), own.repo.close()]);
  return { byGit, own, processes };
}

describe("the first checkout of a tool-only sandbox without git", () => {
  it("writes the index (skip-worktree, cache of trees), branch and reflogs git writes, byte for byte, and starts no git", async () => {
    const { byGit, own, processes } = await byGitAndOwn(source, varied);
    expect(processes).toBe(0);
    expect(seen(own)).toEqual(seen(byGit));
    expect(git(own, "ls-files", "-t")).toMatch(/^S /);
    expect(readdirSync(own.work)).toEqual([]);
    expect(() => git(own, "fsck", "--strict", "--no-dangling")).not.toThrow();
  });

  it("what follows it in a sandbox (a merge with a conflict) ends as after git's own checkout", async () => {
    const f = Fixture.copyOf(source);
    fixtures.push(f);
    f.checkout("side", true);
    const theirs = f.commit("theirs", { "a.txt": "theirs\n", "b/one": "one side\n" });
    f.checkout("main");
    f.commit("ours", { "a.txt": "ours\n", "zz/new.txt": "new\n" });
    const ours = f.head();
    const { byGit, own, processes } = await byGitAndOwn(f, ours);
    expect(processes).toBe(0);
    for (const side of [byGit, own]) {
      expect(() => git(side, "-c", "merge.conflictStyle=merge", "merge", "--no-ff", "--no-commit", "-q", theirs)).toThrow();
    }
    const after = (side: Side): Record<string, unknown> => ({ ...seen(side, true), conflicted: readFileSync(path.join(side.work, "a.txt"), "utf8") });
    expect(after(own)).toEqual(after(byGit));
  });

  it("a full work tree, a submodule, a tree git would refuse or a sandbox already checked out is left to git, with git's result", async () => {
    const full = await byGitAndOwn(source, varied, "full");
    expect(full.processes).toBe(1);
    expect(seen(full.own, true)).toEqual(seen(full.byGit, true));

    const withSubmodule = Fixture.copyOf(source);
    fixtures.push(withSubmodule);
    withSubmodule.git("update-index", "--add", "--cacheinfo", `160000,${varied},sub`);
    withSubmodule.git("commit", "-q", "-m", "a submodule");
    const sub = await byGitAndOwn(withSubmodule, withSubmodule.head());
    expect(sub.processes).toBe(1);
    expect(seen(sub.own)).toEqual(seen(sub.byGit));

    const again = await sandboxOf(source);
    expect(await checkoutWithoutGit(again.repo, BRANCH, varied)).toBe(true);
    expect(await checkoutWithoutGit(again.repo, BRANCH, varied)).toBe(false);
    expect(await checkoutWithoutGit(again.repo, "other", varied)).toBe(false);
    const short = await sandboxOf(source);
    expect(await checkoutWithoutGit(short.repo, BRANCH, varied.slice(0, 12))).toBe(false);
    expect(existsSync(path.join(short.own, "index"))).toBe(false);
    await Promise.all([again.repo.close(), short.repo.close()]);
  });

  it("with patterns naming files (ICC's), writes them as the tree checked out next holds them, and git reads both indexes as after its own checkout and read-tree", async () => {
    const f = Fixture.copyOf(source);
    fixtures.push(f);
    const base = f.head();
    f.commit("tip", { "a.txt": "a dot, changed\n", "b/one": null, "new/deeper/file.txt": "new\n", "zz/file.txt": "zz, same size\n", "a-b/y": null, "a-b/y/inner": "now a folder\n" });
    chmodSync(path.join(f.dir, "tool.sh"), 0o755);
    f.write({ "tool.sh": "#!/bin/sh\necho tip\n" });
    f.git("add", "-A");
    f.git("commit", "-q", "-m", "tip, tool executable");
    const tip = f.git("rev-parse", "HEAD^{tree}").trim();
    const changed = f.git("diff", "--name-only", "-z", base, tip).split("\0").filter((p) => p !== "");
    const [byGit, own] = [await sandboxOf(f), await sandboxOf(f)];
    const treeIndex = (side: Side): string => path.join(path.dirname(side.own), "tip-index");
    for (const side of [byGit, own]) checkOutOnly(side.own, [...changed, "caf\u00e9/na\u00efve.txt"]);
    await byGit.repo.run(["checkout", "-q", "-B", BRANCH, base]);
    await checkoutTreeOnly(byGit.repo, tip, treeIndex(byGit));
    const { processes } = await countGitProcesses(() => checkoutBranchAndTree(own.repo, BRANCH, base, tip, treeIndex(own)));
    await Promise.all([byGit.repo.close(), own.repo.close()]);
    expect(processes).toBe(0);
    const after = (side: Side): Record<string, unknown> => {
      const withTip = { GIT_INDEX_FILE: treeIndex(side) };
      const work = filesBelow(side.work).map((p) => (p.endsWith("/") ? p : `${p} ${(lstatSync(path.join(side.work, p)).mode & 0o777).toString(8)} ${readFileSync(path.join(side.work, p), "utf8")}`));
      return {
        ...seen(side, true),
        work,
        cached: git(side, "diff", "--cached"),
        tipIndex: gitWith(side, withTip, "ls-files", "-s", "-t"),
        tipStatus: gitWith(side, withTip, "status", "--porcelain=v1", "-uall"),
        tipDiff: gitWith(side, withTip, "diff"),
      };
    };
    expect(after(own)).toEqual(after(byGit));
    expect(String(after(own).work)).toContain("tool.sh 755 #!/bin/sh\necho tip");
  });

  it("a setting it does not know, or one that changes what git writes, is left to git", async () => {
    const added = ["[index]\n\tversion = 4\n", "[feature]\n\tmanyFiles = true\n", "[core]\n\tsparseCheckoutCone = true\n", '[include]\n\tpath = "x"\n'];
    const changes = [
      ...added.map((setting) => (config: string) => config + setting),
      (config: string) => config.replace("autocrlf = false", "autocrlf = true"),
      (config: string) => config.replace("filemode = true", "filemode = false"),
    ];
    for (const change of changes) {
      const side = await sandboxOf(source);
      const setting = change(readFileSync(path.join(side.own, "config"), "utf8"));
      writeFileSync(path.join(side.own, "config"), setting);
      expect(await checkoutWithoutGit(side.repo, BRANCH, varied), setting).toBe(false);
      expect(existsSync(path.join(side.own, "index"))).toBe(false);
      await side.repo.close();
    }
  });

  it("never writes through a link planted in the git directory: the branch's folder or the index as links to elsewhere", async () => {
    const outside = mkdtempSync(path.join(os.tmpdir(), "gitgood-outside-"));
    outsideDirs.push(outside);
    const folder = await sandboxOf(source);
    symlinkSync(outside, path.join(folder.own, "refs", "heads", "gitgood"));
    expect(await checkoutWithoutGit(folder.repo, BRANCH, varied)).toBe(false);
    const index = await sandboxOf(source);
    symlinkSync(path.join(outside, "index"), path.join(index.own, "index"));
    expect(await checkoutWithoutGit(index.repo, BRANCH, varied)).toBe(false);
    const logs = await sandboxOf(source);
    mkdirSync(path.join(outside, "logs"));
    symlinkSync(path.join(outside, "logs"), path.join(logs.own, "logs"));
    expect(await checkoutWithoutGit(logs.repo, BRANCH, varied)).toBe(false);
    expect(filesBelow(outside)).toEqual(["logs/"]);
    await Promise.all([folder.repo.close(), index.repo.close(), logs.repo.close()]);
  });
});
