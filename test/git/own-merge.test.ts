import { chmodSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { mergeWithoutGitMerge } from "../../src/git/own-merge.js";
import { checkoutBranch, mergeNoCommit } from "../../src/git/worktree.js";
import { Fixture } from "../helpers/fixture.js";
import { countGitProcesses } from "../helpers/git-count.js";
import { filesBelow, gitOn, ownSandboxes, type OwnSandbox } from "../helpers/own-sandbox.js";

/*
 * A tool-only sandbox's merge made of `git merge-tree` and files gitgood writes: the oracle is real
 * `git merge --no-ff --no-commit`. Each case makes two sandboxes as `Sandbox.create` does, checks the
 * first parent out in both, merges the second with git in one and through `mergeNoCommit` in the other;
 * the index files must be the same bytes, and the state files, work trees (bytes and modes) and what git
 * says of both the same.
 */

const BRANCH = "gitgood/mcr";
const fixtures: Fixture[] = [];
const sandboxes = ownSandboxes();
const outsideDirs: string[] = [];
afterAll(() => {
  fixtures.forEach((f) => f.remove());
  sandboxes.cleanup();
  outsideDirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
});

/** A repository whose `main` and `side` conflict in every way this writer takes, and merge cleanly elsewhere. */
function conflicting(): { f: Fixture; ours: string; theirs: string } {
  const f = new Fixture();
  fixtures.push(f);
  f.commit("base", {
    "calc.py": "a = 1\nb = 2\nc = 3\n",
    "pkg/deep/io.py": "read\nwrite\n",
    "dossier \u00e9t\u00e9/notes.txt": "n\n",
    "caf\u00e9 n\u00e4me.txt": "one\n",
    "run.sh": "#!/bin/sh\necho base\n",
    "gone.txt": "g\n",
    "kept.txt": "k\n",
    "same.txt": "s\n",
    "img.bin": Buffer.from([0, 1, 2, 3, 0, 255]),
    "tool.sh": "#!/bin/sh\necho tool\n",
  });
  // run.sh is executable in the index only (the sides' commits make it a mode conflict too), tool.sh on disk as well (it stays executable).
  f.git("update-index", "--chmod=+x", "run.sh");
  chmodSync(path.join(f.dir, "tool.sh"), 0o755);
  f.git("add", "tool.sh");
  f.git("commit", "-q", "-m", "exec");
  f.checkout("side", true);
  const theirs = f.commit("theirs", {
    "calc.py": "a = 1\nb = 3\nc = 3\n",
    "pkg/deep/io.py": "read side\nwrite\n",
    "dossier \u00e9t\u00e9/notes.txt": "side\n",
    "caf\u00e9 n\u00e4me.txt": "side\n",
    "run.sh": "#!/bin/sh\necho side\n",
    "gone.txt": "changed on the side\n",
    "kept.txt": null,
    "both.txt": "added on the side\n",
    "new/folder/file.txt": "new\n",
    "img.bin": Buffer.from([0, 9, 9, 9, 0, 255]),
    "tool.sh": "#!/bin/sh\necho side tool\n",
  });
  f.checkout("main");
  const ours = f.commit("ours", {
    "calc.py": "a = 1\nb = 4\nc = 3\n",
    "pkg/deep/io.py": "read ours\nwrite\n",
    "dossier \u00e9t\u00e9/notes.txt": "ours\n",
    "caf\u00e9 n\u00e4me.txt": "ours\n",
    "run.sh": "#!/bin/sh\necho ours\n",
    "gone.txt": null,
    "kept.txt": "changed here\n",
    "both.txt": "added here\n",
    "same.txt": "s, ours only\n",
    "img.bin": Buffer.from([0, 7, 7, 7, 0, 255]),
    "tool.sh": "#!/bin/sh\necho our tool\n",
  });
  return { f, ours, theirs };
}

/** What git and the file system say of a sandbox stopped in a merge. */
function seen(side: OwnSandbox): Record<string, unknown> {
  const state = Object.fromEntries(
    ["MERGE_HEAD", "MERGE_MSG", "MERGE_MODE", "AUTO_MERGE", "ORIG_HEAD"].map((n) => [n, readFileSync(path.join(side.own, n), "utf8")]),
  );
  const work = filesBelow(side.work).map((f) => (f.endsWith("/") ? f : `${f} ${(lstatSync(path.join(side.work, f)).mode & 0o777).toString(8)} ${readFileSync(path.join(side.work, f)).toString("hex")}`));
  return {
    index: readFileSync(path.join(side.own, "index")).toString("hex"),
    files: filesBelow(side.own).filter((f) => !f.startsWith("objects/") && f !== "logs/HEAD"),
    state,
    work,
    listed: gitOn(side, "ls-files", "-s", "-t", "--debug"),
    status: gitOn(side, "status", "--porcelain=v1", "-uall"),
    diff: gitOn(side, "diff"),
  };
}

async function byGitAndOwn(f: Fixture, ours: string, theirs: string): Promise<{ byGit: OwnSandbox; own: OwnSandbox; processes: number; clean: boolean[] }> {
  const byGit = await sandboxes.make(f, BRANCH);
  await checkoutBranch(byGit.repo, BRANCH, ours);
  const merged = await byGit.repo.run(["-c", "merge.conflictStyle=merge", "merge", "--no-ff", "--no-commit", "-q", theirs], { okCodes: [0, 1] });
  const own = await sandboxes.make(f, BRANCH);
  await checkoutBranch(own.repo, BRANCH, ours);
  const { result, processes } = await countGitProcesses(() => mergeNoCommit(own.repo, theirs));
  await Promise.all([byGit.repo.close(), own.repo.close()]);
  return { byGit, own, processes, clean: [merged.code === 0, result] };
}

describe("a tool-only sandbox's merge through git merge-tree", () => {
  it("leaves the index, the conflicted files and the merge's state files git merge leaves, byte for byte, with one git process", async () => {
    const { f, ours, theirs } = conflicting();
    const { byGit, own, processes, clean } = await byGitAndOwn(f, ours, theirs);
    expect(clean).toEqual([false, false]);
    expect(processes).toBe(1);
    expect(seen(own)).toEqual(seen(byGit));
    expect(seen(own).work).toContainEqual(expect.stringMatching(/^tool\.sh 755 /));
    expect(() => gitOn(own, "fsck", "--strict", "--no-dangling")).not.toThrow();
  });

  it("after git's own checkout (the index is compared with the one gitgood would write) the merge is written the same way", async () => {
    const { f, ours, theirs } = conflicting();
    const byGit = await sandboxes.make(f, BRANCH);
    await byGit.repo.run(["checkout", "-q", "-B", BRANCH, ours]);
    const { result, processes } = await countGitProcesses(() => mergeNoCommit(byGit.repo, theirs));
    const own = (await byGitAndOwn(f, ours, theirs)).own;
    await byGit.repo.close();
    expect([result, processes]).toEqual([false, 1]);
    const { state, index, work } = seen(byGit);
    expect({ state, index, work }).toEqual((({ state, index, work }) => ({ state, index, work }))(seen(own)));
  });

  it("a clean merge, a rename conflict or an attributes file is left to git merge, with git's result", async () => {
    const renamed = new Fixture();
    fixtures.push(renamed);
    renamed.commit("base", { "old.txt": "a\nb\nc\nd\ne\n", "x.txt": "x\n" });
    renamed.checkout("side", true);
    renamed.write({ "old.txt": null, "moved.txt": "a\nb\nc\nd\ne\n" });
    const theirs = renamed.commit("move");
    renamed.checkout("main");
    const ours = renamed.commit("delete", { "old.txt": null, "x.txt": "y\n" });
    const rename = await byGitAndOwn(renamed, ours, theirs);
    expect(rename.clean).toEqual([false, false]);
    expect(rename.processes).toBe(3);
    expect(seen(rename.own)).toEqual(seen(rename.byGit));

    const attributes = conflicting();
    attributes.f.checkout("side");
    const attributed = attributes.f.commit("attributes", { ".gitattributes": "*.py text eol=crlf\n" });
    attributes.f.checkout("main");
    const withAttributes = await byGitAndOwn(attributes.f, attributes.ours, attributed);
    expect(withAttributes.processes).toBe(3);
    expect(seen(withAttributes.own)).toEqual(seen(withAttributes.byGit));

    const cleanly = new Fixture();
    fixtures.push(cleanly);
    cleanly.commit("base", { "a.txt": "a\n", "b.txt": "b\n" });
    cleanly.checkout("side", true);
    const side = cleanly.commit("side", { "b.txt": "side\n" });
    cleanly.checkout("main");
    const main = cleanly.commit("main", { "a.txt": "main\n" });
    const clean = await byGitAndOwn(cleanly, main, side);
    expect(clean.clean).toEqual([true, true]);
    expect(clean.processes).toBe(3);
  });

  it("never writes through a link planted in the work tree or where a state file goes", async () => {
    const { f, ours, theirs } = conflicting();
    const outside = mkdtempSync(path.join(os.tmpdir(), "gitgood-outside-"));
    outsideDirs.push(outside);
    const folder = await sandboxes.make(f, BRANCH);
    await checkoutBranch(folder.repo, BRANCH, ours);
    symlinkSync(outside, path.join(folder.work, "pkg"));
    expect(await mergeWithoutGitMerge(folder.repo, theirs)).toBeNull();
    const message = await sandboxes.make(f, BRANCH);
    await checkoutBranch(message.repo, BRANCH, ours);
    symlinkSync(path.join(outside, "MERGE_MSG"), path.join(message.own, "MERGE_MSG"));
    expect(await mergeWithoutGitMerge(message.repo, theirs)).toBeNull();
    expect(readdirSync(outside)).toEqual([]);
    await Promise.all([folder.repo.close(), message.repo.close()]);
  });
});
