import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { identLine, stripSpace } from "../../src/git/commit-write.js";
import type { Person } from "../../src/git/commits.js";
import { openOwnRepo } from "../../src/git/own-git-dir.js";
import { Repo } from "../../src/git/repo.js";
import { addPaths, commitStaged } from "../../src/git/worktree.js";
import { Fixture, fixtureEnv } from "../helpers/fixture.js";
import { countGitProcesses } from "../helpers/git-count.js";

/*
 * Staging and committing without git in gitgood's own git directory: the oracle is real git. Each case
 * runs on two copies of one repository, one through git (`Repo.open`: not gitgood's own, so git does it)
 * and one through gitgood's writer (`openOwnRepo`); the commits must have the same id (the same bytes),
 * and git must find the same index, work tree state and history in both, and a sound object store.
 */

const ada: Person = { name: "Ada Lovelace", email: "ada@example.com", date: "1704067260 +0100" };
const bob: Person = { name: "Bob", email: "bob@example.org", date: "1704070000 -0530" };

const template = new Fixture();
template.commit("base", { "calc.py": "a = 1\nb = 2\n", "pkg/io.py": "read\n", "pkg/deep/x.txt": "x\n", "gone.txt": "g\n", "tool.sh": "#!/bin/sh\n" });
template.checkout("side", true);
template.commit("theirs", { "calc.py": "a = 1\nb = 3\n", "pkg/io.py": "read side\n", "gone.txt": "side\n" });
template.checkout("main");
template.commit("ours", { "calc.py": "a = 1\nb = 4\n", "pkg/io.py": "read ours\n", "gone.txt": null });
const fixtures: Fixture[] = [template];
afterAll(() => fixtures.forEach((f) => f.remove()));

/** A copy of the template stopped in a conflicted `git merge --no-ff --no-commit side`. */
function conflicted(): Fixture {
  const f = Fixture.copyOf(template);
  fixtures.push(f);
  expect(f.tryGit("-c", "merge.conflictStyle=merge", "merge", "--no-ff", "--no-commit", "-q", "side").code).not.toBe(0);
  return f;
}

/** What git says of a repository: its index, status, the diff of HEAD to the work tree, HEAD's history and reflog, and its merge state files. */
function seen(f: Fixture): Record<string, unknown> {
  const gitDir = path.join(f.dir, ".git");
  return {
    index: f.git("ls-files", "-s", "--debug").replace(/^\s+(ctime|mtime|dev|uid|size):.*\n/gm, ""),
    status: f.git("status", "--porcelain=v1", "-uall"),
    diff: f.git("diff", "HEAD"),
    log: f.git("log", "--format=%H %T %P %an %ae %ad %cn %ce %cd%n%B", "--date=raw"),
    reflog: readFileSync(path.join(gitDir, "logs", "HEAD"), "utf8"),
    state: readdirSync(gitDir).filter((n) => /^[A-Z_]+$/.test(n)).sort(),
  };
}

/** Does `work` on a git-run handle of `a` and on a gitgood-own handle of `b`; returns the own side's count of git processes. */
async function both(a: Fixture, b: Fixture, work: (repo: Repo) => Promise<unknown>): Promise<{ byGit: unknown; own: unknown; processes: number }> {
  const plain = await Repo.open(a.dir);
  const byGit = await work(plain);
  const ownRepo = (await openOwnRepo(b.dir, path.join(b.dir, ".git"), {})).keepReader();
  await ownRepo.reader?.info("HEAD");
  try {
    const { result: own, processes } = await countGitProcesses(() => work(ownRepo));
    return { byGit, own, processes };
  } finally {
    await ownRepo.close();
  }
}

function messageFile(f: Fixture, text: string): string {
  const file = path.join(f.scratch("message"), "message.txt");
  writeFileSync(file, text);
  return file;
}

describe("committing in gitgood's own git directory without git", () => {
  it("a resolved merge (an edit, an executable bit, a link, a deletion) is staged and committed with git's ids and no git process", async () => {
    const [a, b] = [conflicted(), conflicted()];
    for (const f of [a, b]) {
      writeFileSync(path.join(f.dir, "calc.py"), "a = 1\nb = 34\n");
      writeFileSync(path.join(f.dir, "pkg/io.py"), "read both\n", { mode: 0o755 });
      rmSync(path.join(f.dir, "gone.txt"));
      symlinkSync("calc.py", path.join(f.dir, "pkg", "link"));
    }
    const paths = ["calc.py", "pkg/io.py", "gone.txt", "pkg/link", "pkg/never-there.txt"];
    const { byGit, own, processes } = await both(a, b, async (repo) => {
      await addPaths(repo, paths);
      return commitStaged(repo, { messageFile: messageFile(a, "Merge side\n\nwith  body \n"), cleanup: "verbatim", author: ada, committer: bob });
    });
    expect(processes).toBe(0);
    expect(own).toBe(byGit);
    expect(seen(b)).toEqual(seen(a));
    expect(b.tryGit("fsck", "--strict", "--no-dangling").code).toBe(0);
    expect(b.git("cat-file", "-p", String(own))).toBe(a.git("cat-file", "-p", String(byGit)));
  });

  it("a plain commit's message is cleaned as --cleanup=whitespace does, trees the store lacks are written, and the ids are git's", async () => {
    const [a, b] = [Fixture.copyOf(template), Fixture.copyOf(template)];
    fixtures.push(a, b);
    for (const f of [a, b]) {
      mkdirSync(path.join(f.dir, "new/deeper"), { recursive: true });
      writeFileSync(path.join(f.dir, "new/deeper/file.txt"), "n\n");
      writeFileSync(path.join(f.dir, "pkg/deep/x.txt"), "changed\n");
      f.git("add", "-A");
    }
    const message = "\n\n  Subject line  \t\r\n\n\n\nbody line\t\n   \n# not a comment here\n\n\n";
    const { byGit, own, processes } = await both(a, b, (repo) =>
      commitStaged(repo, { messageFile: messageFile(a, message), cleanup: "whitespace", author: ada, committer: ada }),
    );
    expect(processes).toBe(0);
    expect(own).toBe(byGit);
    expect(seen(b)).toEqual(seen(a));
    expect(b.tryGit("fsck", "--strict", "--no-dangling").code).toBe(0);
  });

  it("stripSpace gives what git stripspace gives", () => {
    for (const text of ["", "\n\n", "one", "a  \n\n\nb\r\n\t\n", "  lead\n\ttab\n\n\nend \n\n", "x\n \n \ny", "# kept\n"]) {
      const byGit = execFileSync("git", ["stripspace"], { input: text, env: fixtureEnv() }).toString("utf8");
      expect(stripSpace(text), JSON.stringify(text)).toBe(byGit);
    }
  });

  it("an identity or date git would rewrite, nothing to commit, or a message git refuses is left to git (the same result)", async () => {
    const odd: Person = { name: "  Ada. ", email: "<ada@example.com>", date: "1704067260 +0100" };
    expect(identLine(odd)).toBeNull();
    expect(identLine({ ...ada, date: "12345 +0000" })).toBeNull();
    const [a, b] = [Fixture.copyOf(template), Fixture.copyOf(template)];
    fixtures.push(a, b);
    for (const f of [a, b]) {
      writeFileSync(path.join(f.dir, "calc.py"), "odd\n");
      f.git("add", "calc.py");
    }
    const { byGit, own, processes } = await both(a, b, (repo) =>
      commitStaged(repo, { messageFile: messageFile(a, "Odd people\n"), cleanup: "whitespace", author: odd, committer: odd }),
    );
    expect(processes).toBeGreaterThan(0);
    expect(own).toBe(byGit);
    const nothing = await both(a, b, (repo) =>
      commitStaged(repo, { messageFile: messageFile(a, "Nothing\n"), cleanup: "whitespace", author: ada, committer: ada }).catch((e: unknown) => (e as Error).name),
    );
    expect(nothing.own).toBe(nothing.byGit);
    expect(nothing.processes).toBeGreaterThan(0);
  });

  it("a path beyond a symbolic link is never read through the link: staging it is left to git, which refuses it", async () => {
    const [a, b] = [conflicted(), conflicted()];
    const outside = b.scratch("outside");
    writeFileSync(path.join(outside, "secret.txt"), "outside the work tree\n");
    for (const f of [a, b]) symlinkSync(outside, path.join(f.dir, "escape"));
    const { byGit, own } = await both(a, b, (repo) => addPaths(repo, ["escape/secret.txt"]).then(() => "staged", (e: unknown) => `refused: ${(e as Error).name}`));
    expect(own).toBe(byGit);
    expect(own).toMatch(/^refused/);
    expect(b.git("ls-files", "-s")).not.toContain("escape");
    const secret = b.git("hash-object", path.join(outside, "secret.txt"));
    expect(existsSync(path.join(b.dir, ".git", "objects", secret.slice(0, 2), secret.slice(2)))).toBe(false);
  });

  it("a .gitattributes that could change the stored bytes leaves staging to git", async () => {
    const [a, b] = [conflicted(), conflicted()];
    for (const f of [a, b]) {
      writeFileSync(path.join(f.dir, ".gitattributes"), "*.py text eol=crlf\n");
      writeFileSync(path.join(f.dir, "calc.py"), "a = 1\r\nb = 34\r\n");
    }
    const { processes } = await both(a, b, (repo) => addPaths(repo, ["calc.py"]));
    expect(b.git("ls-files", "-s", "calc.py")).toBe(a.git("ls-files", "-s", "calc.py"));
    expect(processes).toBeGreaterThan(0);
  });
});

