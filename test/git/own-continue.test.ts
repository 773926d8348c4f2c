import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { continueWithoutGit } from "../../src/git/own-continue.js";
import { continueRebase, runTodo, startPausedRebase } from "../../src/git/rebase.js";
import { keepStoredBytes } from "../../src/git/stored-bytes.js";
import { gitTodo, type TodoItem } from "../../src/scenarios/ir/todo.js";
import { checkoutBranch } from "../../src/git/worktree.js";
import { Fixture, fixtureEnv } from "../helpers/fixture.js";
import { countGitProcesses } from "../helpers/git-count.js";
import { clockless, filesBelow, gitOn, ownSandboxes, type OwnSandbox } from "../helpers/own-sandbox.js";

/*
 * The continuation of an IR set-up's paused rebase written without git (own-continue.ts): the oracle is
 * real git 2.39. Each case pauses the rebase the same way in two sandboxes (own-rebase.ts, proven equal
 * to git's own by own-rebase.test.ts), then runs the same todo with `git rebase --continue` in one and
 * through `runTodo` in the other: every file of the git directory but the objects (reflogs without the
 * first checkout's clock), the index as `ls-files --debug` and `--stage` shows it, `git status`, the raw
 * log of the branch and HEAD's and the branch's reflogs with the commits they name must be the same, and
 * `runTodo` must start no git process for the todos that need no merge (squash and reword, whose `exec`
 * lines amend HEAD's message, among them) and hand the others to git.
 */

const BRANCH = "gitgood/ir";
const COMMITTER = { GIT_COMMITTER_NAME: "Tip Committer", GIT_COMMITTER_EMAIL: "tip@example.com", GIT_COMMITTER_DATE: "1704100000 +0130" };
const source = new Fixture();
const sandboxes = ownSandboxes();
afterAll(() => {
  source.remove();
  sandboxes.cleanup();
});

let clock = 1704000000;
/** Commits `files` on the source's HEAD with `message` as given, byte for byte (no final newline added), and `author`. */
function commitRaw(message: string, files: Record<string, string | null>, author: string): string {
  source.write(files);
  source.git("add", "-A");
  const tree = source.git("write-tree");
  const file = path.join(source.scratch("messages"), "message");
  writeFileSync(file, message);
  clock += 60;
  const env = fixtureEnv({ GIT_AUTHOR_NAME: author, GIT_AUTHOR_EMAIL: `${author.toLowerCase().replace(/\W/g, "")}@example.com`, GIT_AUTHOR_DATE: `${clock} -0700`, GIT_COMMITTER_DATE: `${clock + 5} +0200` });
  const oid = execFileSync("git", ["commit-tree", tree, "-p", "HEAD", "-F", file], { cwd: source.dir, env }).toString("utf8").trim();
  source.git("update-ref", "HEAD", oid);
  return oid;
}

source.commit("root", { "a.txt": "one\ntwo\nthree\n", "d/x.txt": "x\n", "d/e/deep.txt": "deep\n", "z.txt": "z\n" });
const base = source.head();
const chain = [
  commitRaw("\n\n  \nLeading blank lines   \n\nbody\twith a tab\n\n\n", { "a.txt": "ONE\ntwo\nthree\n" }, "Ann Author"),
  commitRaw("# a hash first\nsubject after the hash  ", { "d/y.txt": "y\n" }, "Bob Builder"),
  commitRaw("CRLF subject\r\n\r\n\tTabbed body line\r\n\t\n", { "a.txt": "ONE\nTWO\nthree\n", "d/e/deep.txt": null }, "Cy Coder"),
  commitRaw("fixup! CRLF subject\n", { "new/folder/file.txt": "new\n" }, "Dee Dev"),
  commitRaw("Caf\u00e9 \u00fcn\u00efcode \u2014 subject\n\nbody line\n# not a comment to git\n", { "z.txt": "z2\n" }, "Ed \u00c9diteur"),
  commitRaw("no final newline", { "a.txt": "ONE\nTWO\nTHREE\n" }, "Fay Fixer"),
  commitRaw("  leading spaces, then   runs\tof   space \n\n\n\nwide gap\n", { "d/x.txt": "x7\n" }, "Gus Git"),
  commitRaw("Revert the last change\n", { "d/x.txt": "x\n" }, "Hal Hacker"),
];
const tip = source.head();
/** Commits `files` on the source's HEAD with the author line `author` written as it is (git itself would tidy some). */
function commitLiteral(author: string, message: string, files: Record<string, string | null>, extra = "", encoding: BufferEncoding = "utf8"): string {
  source.write(files);
  source.git("add", "-A");
  const content = `tree ${source.git("write-tree")}\nparent ${source.head()}\nauthor ${author}\ncommitter Odd Committer <odd@example.com> 1704000900 +0000\n${extra}\n${message}`;
  const file = path.join(source.scratch("messages"), "literal");
  writeFileSync(file, Buffer.from(content, encoding));
  const oid = source.git("hash-object", "-t", "commit", "-w", "--literally", file);
  source.git("update-ref", "HEAD", oid);
  return oid;
}
/** A signature header as git stores one (its lines after the first indented by a space). */
const SIGNATURE = "gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n =abcd\n -----END PGP SIGNATURE-----\n";
/** Two commits after the tip whose authors git's amend writes back tidied. */
const odd = [
  commitLiteral("J. Dotted Jr. <jr@example.com> 1704000800 +0000", "Dotted author\n", { "a.txt": "dotted\n" }),
  commitLiteral("Trailing Comma, <tc@example.com> 1704000860 -0130", "Comma author\n", { "a.txt": "comma\n" }),
];
/** Three commits after those: signed ones (an amend drops the signature) and one with a header git would carry into an amend. */
const signed = [
  commitLiteral("Sig Ned <sig@example.com> 1704001000 +0000", "Signed one\n", { "a.txt": "signed 1\n" }, SIGNATURE),
  commitLiteral("Sig Ned <sig@example.com> 1704001060 +0000", "Signed two\n", { "a.txt": "signed 2\n" }, SIGNATURE),
  commitLiteral("Sig Ned <sig@example.com> 1704001120 +0000", "Signed three\n", { "a.txt": "signed 3\n" }, SIGNATURE),
];
const custom = commitLiteral("Cus Tom <ct@example.com> 1704001180 +0000", "Custom header\n", { "a.txt": "custom\n" }, "x-custom a value\n");
const afterCustom = commitLiteral("Cus Tom <ct@example.com> 1704001240 +0000", "After the custom header\n", { "a.txt": "after custom\n" });
/** A commit whose author is written in Latin-1 (not UTF-8), and one after it. */
const latin = commitLiteral("Jos\u00e9 Latin <jl@example.com> 1704001300 +0000", "Latin-1 author\n", { "a.txt": "latin\n" }, "", "latin1");
const afterLatin = commitLiteral("Cus Tom <ct@example.com> 1704001360 +0000", "After the Latin-1 author\n", { "a.txt": "after latin\n" });
/** Commits whose messages read like the headers of git's squash message, for runs with a `fixup -C` late. */
const tricky = [
  commitLiteral("Tri Cky <tc@example.com> 1704001400 +0000", "First\n\n# This is the commit message #2:\nfake header inside\n", { "a.txt": "tricky 1\n" }),
  commitLiteral("Tri Cky <tc@example.com> 1704001460 +0000", "# The commit message #3 will be skipped:\n\n\tTabbed\n", { "a.txt": "tricky 2\n" }),
  commitLiteral("Tri Cky <tc@example.com> 1704001520 +0000", "Third\n\n\n", { "a.txt": "tricky 3\n" }),
  commitLiteral("Tri Cky <tc@example.com> 1704001580 +0000", "# Fourth, a hash and no newline", { "a.txt": "tricky 4\n" }),
];
/** A commit whose message starts with `amend!` (git comments its subject out in a `fixup -C`'s squash message). */
const amendBang = commitLiteral("Tri Cky <tc@example.com> 1704001640 +0000", "amend! # Fourth, a hash and no newline\n\nNew text\n", { "a.txt": "tricky 5\n" });

type Side = OwnSandbox;

/** Runs git on a sandbox: exit code and output, the sandbox's folder written as <sandbox>. */
function tryGit(side: Side, ...args: string[]): { code: number; out: string } {
  const root = path.dirname(path.dirname(side.own));
  try {
    const out = execFileSync("git", args, { env: fixtureEnv({ GIT_DIR: side.own, GIT_WORK_TREE: side.work }), cwd: side.work, stdio: ["ignore", "pipe", "pipe"] }).toString("utf8");
    return { code: 0, out: out.split(root).join("<sandbox>") };
  } catch (err) {
    const e = err as { status?: number; stdout?: Buffer; stderr?: Buffer };
    return { code: e.status ?? -1, out: `${String(e.stdout)}${String(e.stderr)}`.split(root).join("<sandbox>") };
  }
}

/** Every file of the git directory but the objects, with its bytes (reflogs without the first checkout's clock, the index as hex). */
function gitDirFiles(side: Side): Record<string, string> {
  const files: Record<string, string> = {};
  for (const f of filesBelow(side.own)) {
    if (f.startsWith("objects/") || f.endsWith("/")) continue;
    const full = path.join(side.own, f);
    files[f] = f.startsWith("logs/") ? clockless(full) : readFileSync(full).toString(f === "index" ? "hex" : "utf8");
  }
  return files;
}

/** What git and the file system say of a sandbox, the commits the reflogs name included. */
function seen(side: Side): Record<string, unknown> {
  return {
    files: gitDirFiles(side),
    work: filesBelow(side.work),
    debug: gitOn(side, "ls-files", "--debug", "-s", "-t"),
    stage: gitOn(side, "ls-files", "--stage"),
    status: tryGit(side, "status"),
    porcelain: gitOn(side, "status", "--porcelain=v2", "--branch", "-uall"),
    log: gitOn(side, "log", "--format=raw", BRANCH, "--"),
    reflogs: [`${BRANCH}`, "HEAD"].map((ref) => gitOn(side, "log", "-g", "--format=raw%n%gs", ref, "--").replace(/\nReflog: [^\n]*/g, "")),
    fsck: tryGit(side, "fsck", "--strict", "--no-dangling", "--no-progress"),
  };
}

/** A sandbox at the chain's tip with the rebase paused, as the IR set-up makes it. */
async function paused(chainBase: string, chainTip: string, configure?: (config: string) => string): Promise<Side> {
  const side = await sandboxes.make(source, BRANCH);
  keepStoredBytes(side.own);
  const config = path.join(side.own, "config");
  if (configure) writeFileSync(config, configure(readFileSync(config, "utf8")));
  await checkoutBranch(side.repo, BRANCH, chainTip);
  await startPausedRebase(side.repo, chainBase, COMMITTER);
  return side;
}

type Step = "pick" | "fixup" | "fixup -C" | "drop";
/** A todo as gitgood writes it: one `COMMAND ID` line per commit of `commits`, in the order given. */
function todoOf(commits: readonly string[], steps: readonly Step[], order: readonly number[] = steps.map((_, i) => i)): string {
  return order.map((i) => `${steps[i]} ${commits[i]}\n`).join("");
}

const P = "pick", F = "fixup", C = "fixup -C", D = "drop";
/** Todos that need no merge: written without git. */
const WITHOUT_GIT: Record<string, Step[]> = {
  allPicks: [P, P, P, P, P, P, P, P],
  trailingDrops: [P, P, P, P, P, P, D, D],
  oneKept: [P, D, D, D, D, D, D, D],
  fixupRuns: [P, F, F, P, F, P, F, P],
  fixupCFirst: [P, C, F, P, C, P, P, P],
  fixupCAlone: [P, P, C, P, P, C, P, P],
  lastFolded: [P, P, P, P, P, F, P, P],
  foldsThenDrops: [P, F, F, F, P, D, D, D],
  allFolded: [P, F, F, F, F, F, F, F],
  pickAfterFold: [P, F, P, P, P, P, P, P],
  fixupDropFixup: [P, P, F, P, F, D, D, D],
  // A run whose last fold undoes the one before it: the run's commit still changes its parent's tree.
  foldsUndoingEachOther: [P, P, P, P, P, P, F, F],
};
/** Messages an agent may give a squash or a reword, hostile ones among them. */
const MESSAGES = [
  "\n\n  Indented subject after blank lines   \n\n\n\n# a hash line git keeps here\ntrailing spaces and a tab \t\n\n",
  "CRLF message\r\n\r\nwith a body\r\n",
  "no final newline",
  "Caf\u00e9 \u2014 \u2713 unicode",
  "#only a hash line",
];
type Planned = Step | ["reword" | "squash", number];
/** Plans with squash and reword (their `exec` amends, as todo.ts writes them): written without git too. */
const WITH_MESSAGES: Record<string, Planned[]> = {
  rewordFirst: [["reword", 0], P, P, P, P, P, P, P],
  rewordMiddle: [P, P, P, ["reword", 1], P, P, P, P],
  rewordLast: [P, P, P, P, P, P, P, ["reword", 2]],
  rewordEach: [["reword", 0], ["reword", 1], ["reword", 2], ["reword", 3], ["reword", 4], P, P, D],
  squashes: [P, ["squash", 3], ["squash", 0], P, ["squash", 4], P, P, P],
  foldsThenSquash: [P, F, F, ["squash", 1], P, P, D, D],
  squashThenFolds: [P, ["squash", 2], F, F, P, C, F, P],
  fixupCThenSquash: [P, C, ["squash", 0], ["reword", 3], F, P, P, P],
  allSquashed: [["reword", 4], ["squash", 0], ["squash", 1], ["squash", 2], ["squash", 3], ["squash", 4], ["squash", 0], ["squash", 1]],
};

/** Runs in which a `fixup -C` comes after other folds: git first turns the messages it kept into skipped ones. */
const LATER_FIXUP_C: Record<string, Step[]> = {
  fixupCAfterFixup: [P, F, C, P, P, P, P, P],
  fixupCAfterTwo: [P, F, F, C, F, P, P, P],
  fixupCTwice: [P, C, F, C, P, P, P, P],
  fixupCEach: [P, C, C, C, C, C, C, P],
  fixupCLongRun: [P, F, C, F, F, C, F, D],
};

/** Todos git must run: a merge, or a fold git refuses. */
const BY_GIT: Record<string, [Step[], number[]?]> = {
  dropInMiddle: [[P, D, P, P, P, P, P, P]],
  reordered: [[P, P, P, P, P, P, P, P], [0, 2, 1, 3, 4, 5, 6, 7]],
  firstDropped: [[D, P, P, P, P, P, P, P]],
  // The last commit undoes the one before: folded into it, the commit would have its parent's tree, which git refuses.
  foldBackToParentTree: [[P, P, P, P, P, P, P, F]],
};

async function bothWays(chainBase: string, chainTip: string, commits: readonly string[], todo: string): Promise<{ git: Record<string, unknown>; own: Record<string, unknown>; processes: number; code: number }> {
  const [byGit, own] = [await paused(chainBase, chainTip), await paused(chainBase, chainTip)];
  const r = await continueRebase(byGit.repo, { env: COMMITTER, messagesDir: source.scratch("messages"), todo });
  const { processes, result } = await countGitProcesses(() => runTodo(own.repo, { env: COMMITTER, messagesDir: source.scratch("messages"), todo }));
  await Promise.all([byGit.repo.close(), own.repo.close()]);
  expect(result.code, todo).toBe(r.code);
  expect(commits.length).toBeGreaterThan(0);
  return { git: seen(byGit), own: seen(own), processes, code: r.code };
}

describe("the rest of a paused IR rebase without git", () => {
  it("writes what `git rebase --continue` writes, byte for byte, for every todo that needs no merge, and starts no git", async () => {
    for (const [name, steps] of Object.entries(WITHOUT_GIT)) {
      const { git, own, processes, code } = await bothWays(base, tip, chain, todoOf(chain, steps));
      expect(own, name).toEqual(git);
      expect([code, processes], name).toEqual([0, 0]);
      expect((git.files as Record<string, string>)["rebase-merge/done"], name).toBeUndefined();
    }
  });

  it("writes git's squash messages for a fixup -C after other folds, and starts no git", async () => {
    for (const [name, steps] of Object.entries(LATER_FIXUP_C)) {
      const { git, own, processes, code } = await bothWays(base, tip, chain, todoOf(chain, steps));
      expect(own, name).toEqual(git);
      expect([code, processes], name).toEqual([0, 0]);
    }
    for (const steps of [[P, F, C, C], [P, C, F, C], [P, C, C, F], [P, F, F, C]] as Step[][]) {
      const { git, own, processes, code } = await bothWays(afterLatin, tricky[3] as string, tricky, todoOf(tricky, steps));
      expect(own, steps.join(",")).toEqual(git);
      expect([code, processes], steps.join(",")).toEqual([0, 0]);
    }
  });

  it("writes what git writes for squash and reword (the amends their `exec` lines run), hostile messages among them, and starts no git", async () => {
    for (const [name, plan] of Object.entries(WITH_MESSAGES)) {
      const items: TodoItem[] = plan.map((p, i) => (typeof p === "string" ? { commit_index: i, command: p } : { commit_index: i, command: p[0], commit_msg: MESSAGES[p[1]] as string }));
      const { text, messages } = gitTodo(items, chain);
      for (const [file, message] of messages) writeFileSync(path.join(source.scratch("messages"), file), message);
      const { git, own, processes, code } = await bothWays(base, tip, chain, text);
      expect(own, name).toEqual(git);
      expect([code, processes], name).toEqual([0, 0]);
      expect((git.files as Record<string, string>).COMMIT_EDITMSG, name).toBeDefined();
    }
  });

  it("leaves to git an amend of a commit whose author git would write back tidied (a name ending in a dot or a comma)", async () => {
    for (const [at, tidied] of [[0, "author J. Dotted Jr <jr@example.com>"], [1, "author Trailing Comma <tc@example.com>"]] as const) {
      const items: TodoItem[] = [0, 1].map((i) => (i === at ? { commit_index: i, command: "reword", commit_msg: "Reworded" } : { commit_index: i, command: "pick" }));
      const { text, messages } = gitTodo(items, odd);
      for (const [file, message] of messages) writeFileSync(path.join(source.scratch("messages"), file), message);
      const { git, own, processes } = await bothWays(tip, odd[1] as string, odd, text);
      expect(own).toEqual(git);
      expect(processes).toBeGreaterThan(0);
      expect(git.log).toContain(tidied);
    }
    // Picked as they are, the same commits need no amend: written without git.
    const picked = await bothWays(tip, odd[1] as string, odd, todoOf(odd, [P, P]));
    expect(picked.own).toEqual(picked.git);
    expect(picked.processes).toBe(0);
  });

  it("drops the signature of a commit it amends, as git does, and leaves to git an amend of one with another header or an author not in UTF-8, and a `fixup -C` of an `amend!` commit", async () => {
    const plans: [string, (Step | ["reword", number])[]][] = [
      ["fold into a signed commit", [P, F, P]],
      ["reword a signed commit, then pick one", [["reword", 0], P, P]],
      ["fold, then a signed pick", [P, F, F]],
    ];
    for (const [name, plan] of plans) {
      const items: TodoItem[] = plan.map((p, i) => (typeof p === "string" ? { commit_index: i, command: p } : { commit_index: i, command: p[0], commit_msg: MESSAGES[p[1]] as string }));
      const { text, messages } = gitTodo(items, signed);
      for (const [file, message] of messages) writeFileSync(path.join(source.scratch("messages"), file), message);
      const { git, own, processes } = await bothWays(odd[1] as string, signed[2] as string, signed, text);
      expect(own, name).toEqual(git);
      expect(processes, name).toBe(0);
    }
    const carried = await bothWays(signed[2] as string, afterCustom, [custom, afterCustom], todoOf([custom, afterCustom], [P, F]));
    expect(carried.own).toEqual(carried.git);
    expect(carried.processes).toBeGreaterThan(0);
    const amended = await bothWays(tricky[2] as string, amendBang, [tricky[3] as string, amendBang], todoOf([tricky[3] as string, amendBang], [P, C]));
    expect(amended.own).toEqual(amended.git);
    expect(amended.processes).toBeGreaterThan(0);
    const notUtf8 = await bothWays(afterCustom, afterLatin, [latin, afterLatin], todoOf([latin, afterLatin], [P, F]));
    expect(notUtf8.own).toEqual(notUtf8.git);
    expect(notUtf8.processes).toBeGreaterThan(0);
  });

  it("a chain of one commit, and one whose first commit is already folded away by a fixup -C, the same", async () => {
    const one = await bothWays(chain[6] as string, tip, chain.slice(7), todoOf(chain.slice(7), [P]));
    expect(one.own).toEqual(one.git);
    expect(one.processes).toBe(0);
    const two = await bothWays(chain[3] as string, tip, chain.slice(4), todoOf(chain.slice(4), [P, C, F, D]));
    expect(two.own).toEqual(two.git);
    expect(two.processes).toBe(0);
  });

  it("hands git every todo that needs a merge or has a fold git refuses, with git's result", async () => {
    for (const [name, [steps, order]] of Object.entries(BY_GIT)) {
      const { git, own, processes } = await bothWays(base, tip, chain, todoOf(chain, steps, order));
      expect(own, name).toEqual(git);
      expect(processes, name).toBeGreaterThan(0);
    }
    // An exec line of another form, and an amend whose message file git would read otherwise or refuse, go to git too.
    const messages = source.scratch("messages");
    writeFileSync(path.join(messages, "blank"), " \t\n\r\n\n");
    writeFileSync(path.join(messages, "ok"), "A message\n");
    symlinkSync(path.join(messages, "ok"), path.join(messages, "link"));
    const amend = (file: string): string => `exec git commit --amend --allow-empty --no-verify -q --cleanup=whitespace -F "$GITGOOD_MESSAGES/${file}"\n`;
    const picks = todoOf(chain, [P, P, P, P, P, P, P, P]);
    const side = await paused(base, tip);
    for (const odd of ["exec true\n", amend("missing"), amend("blank"), amend("link"), amend("ok").replace("-q ", ""), amend("ok") + amend("ok")]) {
      expect(await continueWithoutGit(side.repo, `${picks}${odd}`, COMMITTER, messages), odd).toBe(false);
    }
    expect(await continueWithoutGit(side.repo, `${picks}${amend("ok")}`, COMMITTER, messages)).toBe(true);
    await side.repo.close();
  });

  it("leaves to git a paused state someone changed, a work tree with a file, or an environment it does not know", async () => {
    const todo = todoOf(chain, [P, F, P, P, P, P, P, P]);
    const changes: [string, (side: Side) => void][] = [
      ["a file in rebase-merge", (side) => writeFileSync(path.join(side.own, "rebase-merge", "stopped-sha"), `${chain[0]}\n`)],
      ["the todo edited", (side) => writeFileSync(path.join(side.own, "rebase-merge", "git-rebase-todo"), `pick ${chain[0]}\n`)],
      ["the index rewritten", (side) => gitOn(side, "update-index", "--no-skip-worktree", "a.txt")],
      ["ORIG_HEAD gone", (side) => rmSync(path.join(side.own, "ORIG_HEAD"))],
      ["a file in the work tree", (side) => writeFileSync(path.join(side.work, "a.txt"), "planted\n")],
      ["a note", (side) => gitOn(side, "notes", "add", "-m", "note", chain[0] as string)],
    ];
    for (const [name, change] of changes) {
      const side = await paused(base, tip);
      change(side);
      expect(await continueWithoutGit(side.repo, todo, COMMITTER, source.scratch("messages")), name).toBe(false);
      expect(existsSync(path.join(side.own, "rebase-merge", "done")), name).toBe(true);
      await side.repo.close();
    }
    // Settings under which git would sign, run rerere or start maintenance, set before the rebase was paused.
    const settings: [string, string][] = [["gpgsign = false", "gpgsign = true"], ["enabled = false", "enabled = true"], ["auto = 0", "auto = 1"]];
    for (const [from, to] of settings) {
      const configured = await paused(base, tip, (config) => config.replace(from, to));
      expect(await continueWithoutGit(configured.repo, todo, COMMITTER, source.scratch("messages")), to).toBe(false);
      await configured.repo.close();
    }
    const side = await paused(base, tip);
    expect(await continueWithoutGit(side.repo, todo, { ...COMMITTER, GIT_AUTHOR_NAME: "x" }, source.scratch("messages"))).toBe(false);
    expect(await continueWithoutGit(side.repo, todo.replace(chain[1] as string, chain[2] as string), COMMITTER, source.scratch("messages"))).toBe(false);
    process.env.GIT_NOTES_REWRITE_REF = "refs/notes/commits";
    try {
      expect(await continueWithoutGit(side.repo, todo, COMMITTER, source.scratch("messages"))).toBe(false);
    } finally {
      delete process.env.GIT_NOTES_REWRITE_REF;
    }
    expect(await continueWithoutGit(side.repo, todo, COMMITTER, source.scratch("messages"))).toBe(true);
    await side.repo.close();
  });
});
