import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { commitsAfter, firstParentLine, readCommit, requireCommits } from "../../src/git/commits.js";
import { configValue } from "../../src/git/config.js";
import { commitDiff, fileDiff, patchBetween, patchEntries, plainDiff } from "../../src/git/diff.js";
import { branchAuthorEmails, lastBranchCommitTime } from "../../src/git/history.js";
import { objectStoreKb } from "../../src/git/objects.js";
import { abortRebase, continueRebase, rebaseInProgress, startPausedRebase, stoppedCommit } from "../../src/git/rebase.js";
import { headCommit, symbolicRef } from "../../src/git/refs.js";
import { Repo } from "../../src/git/repo.js";
import { installStore } from "../../src/git/packs.js";
import { initSandboxRepo, openSandboxRepo } from "../../src/git/shared-clone.js";
import { countMatchingLines, listFiles, readBlob, treeOf } from "../../src/git/trees.js";
import {
  addPaths,
  applyToIndex,
  checkoutBranch,
  commitStaged,
  mergeNoCommit,
  readTreeIntoIndex,
  resetIndex,
  unmergedPaths,
} from "../../src/git/worktree.js";
import { Fixture, useFixtures } from "../helpers/fixture.js";

const fixture = useFixtures();

/** A repository made and opened the way a sandbox makes its own, holding every object of the fixture's branches. */
async function sandboxRepo(f: Fixture, name = "work"): Promise<Repo> {
  const dir = path.join(f.scratch(name), "repo");
  const gitDir = await initSandboxRepo(dir, "gitgood", "full");
  const tips = f.git("for-each-ref", "--format=%(objectname)", "refs/heads").split("\n");
  await installStore(await Repo.open(f.dir), { packs: [{ tips, exclude: [], shallow: [] }], shallow: [] }, gitDir, null);
  return openSandboxRepo(dir);
}

const person = { name: "Grace \"Amazing\" Hopper", email: "grace@example.com", date: "1700000000 +0130" };

describe("the environment a Repo carries", () => {
  const saved = process.env.GIT_CONFIG_GLOBAL;
  afterEach(() => {
    if (saved === undefined) delete process.env.GIT_CONFIG_GLOBAL;
    else process.env.GIT_CONFIG_GLOBAL = saved;
  });

  it("reaches every git process; a sandbox repository never reads the user's global config", async () => {
    const f = fixture();
    f.commit("one", { "a.py": "1\n" });
    const global = path.join(f.scratch("home"), "gitconfig");
    writeFileSync(global, "[gitgood]\n\tprobe = from-global\n");
    process.env.GIT_CONFIG_GLOBAL = global;
    expect(await configValue(await Repo.open(f.dir), "gitgood.probe")).toBe("from-global");
    expect(await configValue(await sandboxRepo(f), "gitgood.probe")).toBeNull();
    const scoped = await Repo.open(f.dir, { env: { GIT_CONFIG_GLOBAL: path.join(f.dir, "missing") } });
    expect(await configValue(scoped, "gitgood.probe")).toBeNull();
    expect(await configValue(scoped, "core.autocrlf")).toBe("false");
  });
});

describe("commits", () => {
  it("reads a commit's people, dates and message byte for byte", async () => {
    const f = fixture();
    const c1 = f.commit("first", { "a.py": "1\n" });
    f.write({ "a.py": "2\n" });
    f.git("add", "-A");
    const message = "Subject with 'quotes' and \"doubles\"\n\n  indented body line  \r\n\ttab\n";
    const file = path.join(f.scratch("msg"), "m");
    writeFileSync(file, message);
    f.git("-c", "user.name=Other", "commit", "-q", "--cleanup=verbatim", "-F", file);
    const c2 = f.head();
    const info = await readCommit(await Repo.open(f.dir), c2);
    expect(info).toMatchObject({
      oid: c2,
      tree: f.git("rev-parse", `${c2}^{tree}`),
      parents: [c1],
      subject: f.git("log", "-1", "--format=%s", c2),
      committedIso: f.git("log", "-1", "--format=%cI", c2),
    });
    expect(info.message).toBe(message.replace(/\n+$/, ""));
    expect(info.author).toEqual({ name: "Ada Fixture", email: "ada@example.com", date: f.git("log", "-1", "--format=%ad", "--date=raw", c2) });
    expect((await readCommit(await Repo.open(f.dir), c1)).parents).toEqual([]);
  });

  it("names the first commit a repository cannot read", async () => {
    const f = fixture();
    const c1 = f.commit("one", { "a.py": "1\n" });
    const repo = await Repo.open(f.dir);
    await expect(requireCommits(repo, [c1])).resolves.toBeUndefined();
    const absent = "0".repeat(40);
    const tree = f.git("rev-parse", `${c1}^{tree}`);
    await expect(requireCommits(repo, [c1, tree, absent])).rejects.toMatchObject({ code: "MISSING_COMMIT", data: { commit: tree } });
    await expect(readCommit(repo, absent)).rejects.toMatchObject({ code: "MISSING_COMMIT" });
  });

  it("walks the first-parent line and the commits after a base, oldest first", async () => {
    const f = fixture();
    const c1 = f.commit("one", { "a.py": "1\n" });
    f.checkout("side", true);
    f.commit("side", { "b.py": "b\n" });
    f.checkout("main");
    const c2 = f.commit("two", { "a.py": "2\n" });
    const m = f.merge("side");
    const c3 = f.commit("three", { "a.py": "3\n" });
    const repo = await Repo.open(f.dir);
    expect(await firstParentLine(repo, c3, 3)).toEqual([c2, m, c3]);
    expect(await firstParentLine(repo, c3, 10)).toEqual([c1, c2, m, c3]);
    expect(await commitsAfter(repo, c2)).toEqual(f.git("rev-list", "--reverse", `${c2}..HEAD`).split("\n"));
    expect(await commitsAfter(repo, c3)).toEqual([]);
  });
});

describe("trees, refs and files", () => {
  it("reads blobs exactly, trees, HEAD, symbolic refs and files", async () => {
    const f = fixture();
    const bytes = Buffer.from([0xff, 0x00, 0x0d, 0x0a, 0x41]);
    const c1 = f.commit("one", { "bin.dat": bytes, "dir/crlf.py": "x = 1\r\n\r\n", "dir/sp ace.py": "  \n", "notes.txt": "a\nb\n" });
    f.git("symbolic-ref", "refs/remotes/origin/HEAD", "refs/heads/main");
    const repo = await Repo.open(f.dir);
    expect((await readBlob(repo, c1, "bin.dat"))?.equals(bytes)).toBe(true);
    expect((await readBlob(repo, "HEAD", "dir/crlf.py"))?.toString("utf8")).toBe("x = 1\r\n\r\n");
    expect(await readBlob(repo, c1, "nope.py")).toBeNull();
    expect(await readBlob(repo, c1, "dir")).toBeNull();
    expect(await treeOf(repo, c1)).toBe(f.git("rev-parse", `${c1}^{tree}`));
    expect(await headCommit(repo)).toBe(c1);
    expect(await symbolicRef(repo, "HEAD")).toBe("refs/heads/main");
    expect(await symbolicRef(repo, "refs/remotes/origin/HEAD")).toBe("refs/heads/main");
    expect(await symbolicRef(repo, "refs/heads/main")).toBeNull();
    expect(await listFiles(repo, c1)).toEqual(["bin.dat", "dir/crlf.py", "dir/sp ace.py", "notes.txt"]);
    expect(await countMatchingLines(repo, c1, "[^[:space:]]", ["*.py"])).toBe(1);
    expect(await countMatchingLines(repo, c1, "[^[:space:]]", ["*.py", "*.txt"])).toBe(3);
    expect(await configValue(repo, "no.such-key")).toBeNull();
  });

  it("reads branch history facts and the size of the object store", async () => {
    const f = fixture();
    f.commit("one", { "a.py": "1\n".repeat(5000) });
    f.git("-c", "user.email=Other@Example.com", "commit", "-q", "--allow-empty", "-m", "two", "--author=Other <Other@Example.com>");
    const repo = await Repo.open(f.dir);
    const emails: string[] = [];
    for await (const e of branchAuthorEmails(repo)) emails.push(e);
    expect(emails).toEqual(["Other@Example.com", "ada@example.com"]);
    expect(await lastBranchCommitTime(repo)).toBe(Number(f.git("log", "-1", "--format=%ct")));
    expect(await objectStoreKb(repo)).toBeGreaterThan(0);
    const empty = new Fixture();
    try {
      expect(await lastBranchCommitTime(await Repo.open(empty.dir))).toBeNull();
    } finally {
      empty.remove();
    }
  });
});

describe("work tree and index", () => {
  it("merges without committing, lists unmerged paths and commits with exact people and message", async () => {
    const f = fixture();
    f.commit("base", { "a.py": "1\n2\n3\n", "b.py": "b\n" });
    f.checkout("side", true);
    const side = f.commit("side", { "a.py": "1\nS\n3\n", "b.py": null });
    f.checkout("main");
    const main = f.commit("main", { "a.py": "1\nM\n3\n", "b.py": "B\n" });
    const repo = await sandboxRepo(f);
    await checkoutBranch(repo, "gitgood/test", main);
    expect(await symbolicRef(repo, "HEAD")).toBe("refs/heads/gitgood/test");
    expect(await mergeNoCommit(repo, side)).toBe(false);
    expect(await unmergedPaths(repo)).toEqual(["a.py", "b.py"]);
    writeFileSync(path.join(repo.dir, "a.py"), "1\nMS\n3\n");
    await addPaths(repo, ["a.py", "b.py"]);
    expect(await unmergedPaths(repo)).toEqual([]);
    const messageFile = path.join(f.scratch("msg"), "m");
    writeFileSync(messageFile, "Merge side\n\n  kept as is  \n\n\n\tend\n");
    const committer = { ...person, name: "Committer", date: "1700000100 -0700" };
    const oid = await commitStaged(repo, { messageFile, cleanup: "verbatim", author: person, committer });
    expect(await headCommit(repo)).toBe(oid);
    const show = (format: string) => f.gitIn(repo.dir, "log", "-1", `--format=${format}`, "--date=raw", oid);
    expect(show("%an|%ae|%ad|%cn|%ce|%cd")).toBe(`${person.name}|${person.email}|${person.date}|Committer|${person.email}|1700000100 -0700`);
    // cat-file's output comes trimmed at the end by the fixture helper.
    expect(f.gitIn(repo.dir, "cat-file", "commit", oid).split("\n\n").slice(1).join("\n\n")).toBe("Merge side\n\n  kept as is  \n\n\n\tend");
    expect(show("%P")).toBe(`${main} ${side}`);
    expect(await mergeNoCommit(repo, side)).toBe(true);
  });

  it("resets, reads a tree into the index and applies a binary patch to it, byte for byte", async () => {
    const f = fixture();
    const before = f.commit("before", { "a.py": "1\n2\n", "gone.py": "g\n", "img.bin": Buffer.from([0, 1, 2]) });
    const after = f.commit("after", {
      "a.py": "1\r\n2\r\nthree\r\n",
      "gone.py": null,
      "img.bin": Buffer.from([0, 9, 2, 255]),
      "new file.py": "n\n",
    });
    const repo = await sandboxRepo(f);
    await checkoutBranch(repo, "gitgood/test", after);
    await resetIndex(repo, before);
    expect(await headCommit(repo)).toBe(before);
    expect(readFileSync(path.join(repo.dir, "a.py"), "utf8")).toBe("1\r\n2\r\nthree\r\n");
    expect(await patchEntries(repo, "HEAD", after)).toEqual([
      { status: "M", path: "a.py" },
      { status: "D", path: "gone.py" },
      { status: "M", path: "img.bin" },
      { status: "A", path: "new file.py" },
    ]);
    const patch = await patchBetween(repo, "HEAD", after);
    expect(patch).toContain("GIT binary patch");
    await applyToIndex(repo, Buffer.from(patch, "latin1"));
    expect(f.gitIn(repo.dir, "write-tree")).toBe(f.git("rev-parse", `${after}^{tree}`));
    await resetIndex(repo);
    expect(f.gitIn(repo.dir, "write-tree")).toBe(f.git("rev-parse", `${before}^{tree}`));
    await readTreeIntoIndex(repo, after);
    expect(f.gitIn(repo.dir, "write-tree")).toBe(f.git("rev-parse", `${after}^{tree}`));
  });
});

describe("diffs", () => {
  it("shows a commit's patch, one file's diff and plain diffs the way git does", async () => {
    const f = fixture();
    const c1 = f.commit("one", { "a.py": "1\n", "b.py": "b\n" });
    const c2 = f.commit("two", { "a.py": "1\n2\n" });
    const repo = await sandboxRepo(f);
    await checkoutBranch(repo, "gitgood/test", c2);
    const opts = ["--no-color", "--no-ext-diff", "--no-textconv", "--no-renames", "-U3", "--src-prefix=a/", "--dst-prefix=b/"];
    expect(await commitDiff(repo, c2)).toBe(`${f.git("diff-tree", "-p", "--root", "--no-commit-id", ...opts, c2)}\n`);
    expect(await commitDiff(repo, c1)).toContain("new file mode 100644");
    writeFileSync(path.join(repo.dir, "a.py"), "1\n2\n3\n");
    expect(await fileDiff(repo, "a.py", "HEAD")).toContain("+3\n");
    expect(await fileDiff(repo, "a.py")).toContain("+3\n");
    expect(await fileDiff(repo, "b.py")).toBe("");
    expect(await plainDiff(repo, c1, { to: c2 })).toBe(`${f.git("diff", c1, c2)}\n`);
    expect(await plainDiff(repo, c1, { paths: ["b.py"] })).toBe("");
    expect(await plainDiff(repo, c1, { paths: ["a.py"] })).toContain("+3\n");
  });
});

describe("paused interactive rebase", () => {
  it("pauses before the first step, stops on a conflict naming its commit, aborts and finishes", async () => {
    const f = fixture();
    const base = f.commit("base", { "a.py": "0\n" });
    const c1 = f.commit("one", { "a.py": "1\n" });
    const c2 = f.commit("two", { "a.py": "2\n" });
    const repo = await sandboxRepo(f);
    await checkoutBranch(repo, "gitgood/test", c2);
    const env = { GIT_COMMITTER_NAME: "R", GIT_COMMITTER_EMAIL: "r@example.com", GIT_COMMITTER_DATE: "1700000000 +0000" };
    const listed = await startPausedRebase(repo, base, env);
    expect(listed.map((short, i) => [c1, c2][i]?.startsWith(short))).toEqual([true, true]);
    expect(rebaseInProgress(repo)).toBe(true);
    expect(await headCommit(repo)).toBe(base);
    const messagesDir = f.scratch("messages");
    const swapped = await continueRebase(repo, { env, messagesDir, todo: `pick ${c2}\npick ${c1}\n` });
    expect(swapped.code).toBe(1);
    expect(stoppedCommit(repo)).toBe(c2);
    expect(await unmergedPaths(repo)).toEqual(["a.py"]);
    await abortRebase(repo);
    expect(rebaseInProgress(repo)).toBe(false);
    expect(await headCommit(repo)).toBe(c2);
    await startPausedRebase(repo, base, env);
    writeFileSync(path.join(messagesDir, "m1"), "Reworded one\n");
    const done = await continueRebase(repo, {
      env,
      messagesDir,
      todo: `pick ${c1}\nexec git commit --amend -q --no-verify -F "$GITGOOD_MESSAGES/m1"\npick ${c2}\n`,
    });
    expect(done.code).toBe(0);
    expect(rebaseInProgress(repo)).toBe(false);
    expect(existsSync(path.join(repo.gitDir, "rebase-merge"))).toBe(false);
    expect(f.gitIn(repo.dir, "log", "--format=%s", `${base}..HEAD`).split("\n")).toEqual(["two", "Reworded one"]);
    expect(await treeOf(repo, "HEAD")).toBe(f.git("rev-parse", `${c2}^{tree}`));
  });
});
