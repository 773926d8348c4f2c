import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { pausedRebaseWithoutGit, todoSubject } from "../../src/git/own-rebase.js";
import { continueRebase, pausedRebaseByGit, startPausedRebase } from "../../src/git/rebase.js";
import { keepStoredBytes } from "../../src/git/stored-bytes.js";
import { checkOutOnly } from "../../src/git/sparse.js";
import { checkoutBranch } from "../../src/git/worktree.js";
import { Fixture, fixtureEnv } from "../helpers/fixture.js";
import { countGitProcesses } from "../helpers/git-count.js";
import { clockless, filesBelow, gitOn, ownSandboxes, type OwnSandbox } from "../helpers/own-sandbox.js";

/*
 * The paused interactive rebase of an IR set-up written without git: the oracle is real git. Each case
 * makes two sandboxes as `Sandbox.create` does, writes the first checkout at the chain's tip in both
 * (own-checkout.ts), then starts the paused rebase with git (`git rebase -i` and the pausing editor) in
 * one and through `startPausedRebase` in the other; every file of the git directory but the objects
 * must be the same bytes (reflogs but the first checkout's clock), and what git does next from both
 * (`rebase --continue` with any todo, `--abort`, `--edit-todo`) must end the same.
 */

const BRANCH = "gitgood/ir";
const COMMITTER = { GIT_COMMITTER_NAME: "Tip Committer", GIT_COMMITTER_EMAIL: "tip@example.com", GIT_COMMITTER_DATE: "1704100000 +0130" };
const source = new Fixture();
const fixtures: Fixture[] = [source];
const outsideDirs: string[] = [];
const sandboxes = ownSandboxes();
afterAll(() => {
  fixtures.forEach((f) => f.remove());
  sandboxes.cleanup();
  outsideDirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
});

/** Commits what is staged with `message` kept as given (trailing spaces, several lines). */
function commitVerbatim(f: Fixture, message: string, files: Record<string, string | null>): string {
  f.write(files);
  f.git("add", "-A");
  f.git("commit", "-q", "--allow-empty", "--cleanup=verbatim", "-m", message);
  return f.head();
}

source.commit("varied", {
  "zz/file.txt": "zz\n",
  "a/x.py": "ax\n",
  "a.txt": "one\ntwo\nthree\n",
  "bbb/deep/er/z.md": "deep\n",
  "caf\u00e9/na\u00efve.txt": "utf8\n",
  ".gitattributes": "* text=auto\n*.bat text eol=crlf\n",
  "run.bat": "@echo off\r\necho hi\r\n",
});
source.write({ "tool.sh": "#!/bin/sh\n" });
symlinkSync("a.txt", path.join(source.dir, "link"));
source.git("add", "-A");
source.git("update-index", "--chmod=+x", "tool.sh");
source.git("commit", "-q", "-m", "an executable and a link");
const base = source.head();
source.commit("Change a.txt's first line", { "a.txt": "ONE\ntwo\nthree\n" });
commitVerbatim(source, "\n\nA subject   \nover two lines\t\n\nand a body\n", { "zz/file.txt": "zz2\n", "new/in/folder.txt": "new\n" });
commitVerbatim(source, "\t Caf\u00e9: r\u00e9sum\u00e9 with  two spaces,\ta tab \u2014 and #hash", { "a.txt": "ONE\ntwo\nTHREE\n", "a/x.py": null });
source.commit("fixup typo", { "a.txt": "ONE\nTWO\nTHREE\n", "run.bat": "@echo off\r\necho hello\r\n" });
const tip = source.head();

type Side = OwnSandbox;
const git = gitOn;
/** Runs git on a sandbox and returns its exit code, output and complaint, the sandbox's folder written as <sandbox>. */
function tryGit(side: Side, env: Record<string, string>, ...args: string[]): { code: number; out: string } {
  const root = path.dirname(path.dirname(side.own));
  try {
    const out = execFileSync("git", args, { env: fixtureEnv({ GIT_DIR: side.own, GIT_WORK_TREE: side.work, ...env }), cwd: side.work, stdio: ["ignore", "pipe", "pipe"] }).toString("utf8");
    return { code: 0, out: out.split(root).join("<sandbox>") };
  } catch (err) {
    const e = err as { status?: number; stdout?: Buffer; stderr?: Buffer };
    return { code: e.status ?? -1, out: `${String(e.stdout)}${String(e.stderr)}`.split(root).join("<sandbox>") };
  }
}

/** The todo as git first wrote it: git reads only its commands (gitgood does not write git's comment). */
const BACKUP = "rebase-merge/git-rebase-todo.backup";
const commandsOf = (file: string): string =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l !== "" && !l.startsWith("#"))
    .join("\n");

/**
 * Every file of the git directory but the objects, with its bytes (reflogs without the first checkout's
 * clock; the index only while no file was written to the work tree, as its stat data are the file's own).
 */
function gitDirFiles(side: Side, written: boolean): Record<string, string> {
  const files: Record<string, string> = {};
  for (const f of filesBelow(side.own)) {
    if (f.startsWith("objects/") || f.endsWith("/") || (written && f === "index")) continue;
    const full = path.join(side.own, f);
    files[f] = f.startsWith("logs/") ? clockless(full) : f === BACKUP ? commandsOf(full) : readFileSync(full).toString(f === "index" ? "hex" : "utf8");
  }
  return files;
}

/** What git and the file system say of a sandbox. */
function seen(side: Side): Record<string, unknown> {
  const work = filesBelow(side.work);
  return {
    files: gitDirFiles(side, work.length > 0),
    work: work.map((f) => (f.endsWith("/") ? f : `${f} ${readFileSync(path.join(side.work, f), "utf8")}`)),
    listed: work.length > 0 ? git(side, "ls-files", "-s", "-t") : git(side, "ls-files", "-s", "-t", "--debug"),
    status: tryGit(side, {}, "status"),
    porcelain: git(side, "status", "--porcelain=v2", "--branch", "-uall"),
    log: tryGit(side, {}, "log", "--format=%H %T %an %cn %cd %s", "HEAD", BRANCH),
  };
}

/**
 * Two sandboxes at the chain's tip: the paused rebase started by git in one, through `startPausedRebase`
 * in the other. Both keep files as stored (the attributes file of a Git-work sandbox) unless `plain`.
 */
async function byGitAndOwn(from: Fixture, chainBase: string, chainTip: string, plain = false): Promise<{ byGit: Side; own: Side; processes: number; listed: string[] }> {
  const [byGit, own] = [await sandboxes.make(from, BRANCH), await sandboxes.make(from, BRANCH)];
  for (const side of [byGit, own]) {
    if (!plain) keepStoredBytes(side.own);
    await checkoutBranch(side.repo, BRANCH, chainTip);
  }
  const byGitListed = await pausedRebaseByGit(byGit.repo, chainBase, COMMITTER);
  const { processes, result: listed } = await countGitProcesses(() => startPausedRebase(own.repo, chainBase, COMMITTER));
  expect(listed).toEqual(byGitListed);
  await Promise.all([byGit.repo.close(), own.repo.close()]);
  return { byGit, own, processes, listed };
}

/** The todos an agent's plan becomes (see todo.ts's gitTodo), and others git takes. */
function todos(chain: string[], messages: string): Record<string, string> {
  const [c1, c2, c3, c4] = chain as [string, string, string, string];
  const amend = (name: string): string => `exec git commit --amend --allow-empty --no-verify -q --cleanup=whitespace -F "${messages}/${name}"`;
  return {
    picks: `pick ${c1}\npick ${c2}\npick ${c3}\npick ${c4}\n`,
    folds: `pick ${c1}\nfixup ${c2}\n${amend("m1")}\nfixup -C ${c3}\npick ${c4}\n${amend("m2")}\n`,
    reorderConflict: `pick ${c1}\npick ${c4}\npick ${c3}\npick ${c2}\n`,
    dropAndReword: `drop ${c1}\npick ${c3}\npick ${c2}\n${amend("m1")}\nfixup ${c4}\n`,
    gitsOwnForms: `p ${c1} first\ns ${c2}\nexec true\nf ${c3}\nbreak\nd ${c4}\n`,
  };
}

/** How each todo of `todos` ends: git's exit code, and whether a rebase is left in progress. */
const STOPS: Record<string, [number, boolean]> = {
  picks: [0, false],
  folds: [0, false],
  reorderConflict: [1, true],
  dropAndReword: [1, true],
  gitsOwnForms: [0, true],
};
const rebaseLeft = (side: Side): boolean => existsSync(path.join(side.own, "rebase-merge"));

describe("the paused interactive rebase of a tool-only sandbox without git", () => {
  it("writes the rebase's state files, HEAD, ORIG_HEAD, reflog and index git writes, byte for byte, and starts no git", async () => {
    const { byGit, own, processes, listed } = await byGitAndOwn(source, base, tip);
    expect(processes).toBe(0);
    expect(listed).toHaveLength(4);
    const ownSeen = seen(own);
    expect(ownSeen).toEqual(seen(byGit));
    // The reflog line carries the committer and date the set-up hands git.
    expect(readFileSync(path.join(own.own, "logs", "HEAD"), "utf8")).toContain(`${tip} ${base} Tip Committer <tip@example.com> 1704100000 +0130\trebase (start): checkout ${base}\n`);
    expect(Object.keys(ownSeen.files as object).filter((f) => f.startsWith("rebase-merge/"))).toHaveLength(11);
    expect(() => git(own, "fsck", "--strict", "--no-dangling")).not.toThrow();
    // Without the attributes file (a sandbox that converts as the project asks), the same.
    const plain = await byGitAndOwn(source, base, tip, true);
    expect(plain.processes).toBe(0);
    expect(seen(plain.own)).toEqual(seen(plain.byGit));
  });

  it("git carries on from it as from its own: any todo, a conflict, a stop, the abort, the agent's own --edit-todo", async () => {
    const messages = source.scratch("messages");
    writeFileSync(path.join(messages, "m1"), "A new message\n\nwith a body\n");
    writeFileSync(path.join(messages, "m2"), "Last one, reworded\n");
    const chain = (await byGitAndOwn(source, base, tip)).listed;
    for (const [name, todo] of Object.entries(todos(chain, messages))) {
      const { byGit, own } = await byGitAndOwn(source, base, tip);
      const results = [];
      for (const side of [byGit, own]) {
        const r = await continueRebase(side.repo, { env: COMMITTER, messagesDir: messages, todo });
        await side.repo.close();
        results.push({ code: r.code, stderr: r.stderr.split(path.dirname(path.dirname(side.own))).join("<sandbox>"), ...seen(side) });
      }
      expect(results[1], name).toEqual(results[0]);
      // Each todo goes where it is meant to: through, or stopped on a conflict or at its break.
      expect([results[0]?.code, rebaseLeft(byGit)], name).toEqual(STOPS[name]);
      const [afterGit, afterOwn] = [byGit, own].map((side) => ({ abort: tryGit(side, COMMITTER, "rebase", "--abort"), ...seen(side) }));
      expect(afterOwn, `${name}, then --abort`).toEqual(afterGit);
    }

    const { byGit, own } = await byGitAndOwn(source, base, tip);
    const shown = source.scratch("shown");
    const [gitSide, ownSide] = [byGit, own].map((side, i) => {
      // The agent's editor: it keeps what it was shown and moves the second pick first.
      const editor = `f() { cp "$1" "${shown}/${i}"; { sed -n 2p "${shown}/${i}"; sed -n 1p "${shown}/${i}"; sed -n 3,4p "${shown}/${i}"; } > "$1"; }; f`;
      const edit = tryGit(side, { ...COMMITTER, GIT_SEQUENCE_EDITOR: editor }, "rebase", "--edit-todo");
      return { edit, shown: readFileSync(path.join(shown, String(i)), "utf8"), ...seen(side), carryOn: tryGit(side, COMMITTER, "rebase", "--continue"), after: seen(side) };
    });
    expect(ownSide).toEqual(gitSide);
    expect(gitSide?.shown).toContain("# You are editing the todo file of an ongoing interactive rebase.");
    expect(gitSide?.carryOn.code).toBe(0);
  });

  it("a chain with one commit, with an empty commit, with a merge or a commit with an encoding, or a sandbox not as the first checkout left it, goes to git, with git's result", async () => {
    const one = await byGitAndOwn(source, chainBelow(tip, 1), tip);
    expect(one.processes).toBe(0);
    expect(seen(one.own)).toEqual(seen(one.byGit));

    const withEmpty = Fixture.copyOf(source);
    fixtures.push(withEmpty);
    withEmpty.commit("nothing changed");
    withEmpty.commit("after it", { "a.txt": "after\n" });
    const empty = await byGitAndOwn(withEmpty, base, withEmpty.head());
    expect(empty.processes).toBe(1);
    expect(seen(empty.own)).toEqual(seen(empty.byGit));

    const withMerge = Fixture.copyOf(source);
    fixtures.push(withMerge);
    withMerge.checkout("side", true);
    withMerge.commit("side", { "side.txt": "side\n" });
    withMerge.checkout("main");
    withMerge.merge("side");
    const merged = await byGitAndOwn(withMerge, base, withMerge.head());
    expect(merged.processes).toBe(1);
    expect(seen(merged.own)).toEqual(seen(merged.byGit));

    const withEncoding = Fixture.copyOf(source);
    fixtures.push(withEncoding);
    withEncoding.git("config", "i18n.commitEncoding", "ISO-8859-1");
    withEncoding.commit("latin", { "a.txt": "latin\n" });
    const encoded = await byGitAndOwn(withEncoding, base, withEncoding.head());
    expect(encoded.processes).toBe(1);
    expect(seen(encoded.own)).toEqual(seen(encoded.byGit));

    // Patterns (a sandbox whose conflicts were checked out), an ORIG_HEAD, attributes of the git directory's own that convert.
    const changes = [
      (side: Side) => checkOutOnly(side.own, ["a.txt"]),
      (side: Side) => writeFileSync(path.join(side.own, "ORIG_HEAD"), `${tip}\n`),
      (side: Side) => writeFileSync(path.join(side.own, "info", "attributes"), "*.txt text\n"),
    ];
    for (const change of changes) {
      const side = await sandboxes.make(source, BRANCH);
      await checkoutBranch(side.repo, BRANCH, tip);
      change(side);
      expect(await pausedRebaseWithoutGit(side.repo, base, COMMITTER)).toBeNull();
      expect(existsSync(path.join(side.own, "rebase-merge"))).toBe(false);
      await side.repo.close();
    }
    // Another committer environment than the set-up's three variables.
    const other = await sandboxes.make(source, BRANCH);
    await checkoutBranch(other.repo, BRANCH, tip);
    expect(await pausedRebaseWithoutGit(other.repo, base, { ...COMMITTER, GIT_REFLOG_ACTION: "x" })).toBeNull();
    expect(await pausedRebaseWithoutGit(other.repo, base, { GIT_COMMITTER_NAME: "only a name" })).toBeNull();
    await other.repo.close();
  });

  it("never writes through a link planted in the git directory: rebase-merge, ORIG_HEAD or HEAD's reflog as links to elsewhere", async () => {
    const outside = mkdtempSync(path.join(os.tmpdir(), "gitgood-outside-"));
    outsideDirs.push(outside);
    const plants: [string, (side: Side) => void][] = [
      ["rebase-merge", (side) => symlinkSync(outside, path.join(side.own, "rebase-merge"))],
      ["ORIG_HEAD", (side) => symlinkSync(path.join(outside, "orig"), path.join(side.own, "ORIG_HEAD"))],
      [
        "logs/HEAD",
        (side) => {
          writeFileSync(path.join(outside, "log"), readFileSync(path.join(side.own, "logs", "HEAD")));
          rmSync(path.join(side.own, "logs", "HEAD"));
          symlinkSync(path.join(outside, "log"), path.join(side.own, "logs", "HEAD"));
        },
      ],
    ];
    const before = (): string[] => filesBelow(outside).map((f) => `${f} ${f.endsWith("/") ? "" : readFileSync(path.join(outside, f), "utf8")}`);
    for (const [name, plant] of plants) {
      const side = await sandboxes.make(source, BRANCH);
      await checkoutBranch(side.repo, BRANCH, tip);
      plant(side);
      const was = before();
      expect(await pausedRebaseWithoutGit(side.repo, base, COMMITTER), name).toBeNull();
      expect(before(), name).toEqual(was);
      await side.repo.close();
    }
  });

  it("reads a todo subject as git's %s and todo parser do, and leaves to git one a todo would not hold as it is", () => {
    expect(todoSubject(Buffer.from("\n \nFirst line  \r\nsecond\t\n\nbody\n"))).toBe("First line second");
    expect(todoSubject(Buffer.from(" \t leading blanks,\tand a tab\n"))).toBe("leading blanks,\tand a tab");
    for (const bad of ["", "\n\n", " \t \n", "nul\0\n", "\x1b[31mred\n", "line\vtab\n"]) expect(todoSubject(Buffer.from(bad)), JSON.stringify(bad)).toBeNull();
    expect(todoSubject(Buffer.from([0xff, 0x41, 0x0a]))).toBeNull();
  });
});

/** The commit `n` first parents below `commit` in the source. */
function chainBelow(commit: string, n: number): string {
  return source.git("rev-parse", `${commit}~${n}`);
}
