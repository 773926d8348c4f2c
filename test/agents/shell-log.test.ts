import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, openSync, closeSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { gitRecorder, objectsNotHeld, recordedGitCommands, shellResultText } from "../../src/agents/shell-log.js";

const started = (pid: number, ...args: string[]): string => `c\0${pid}\0${args.length}\0${args.map((a) => `${a}\0`).join("")}`;
const ended = (pid: number, code: number, ...ids: string[]): string => `e\0${pid}\0${code}\0${ids.length}\0${ids.map((a) => `${a}\0`).join("")}`;

describe("the git commands an external agent's recording git wrote", () => {
  it("reads each record as a command line, quoting what a shell would need quoted, with how it ended", () => {
    const bytes = Buffer.from(started(7, "log", "--all", "-S", "a word") + started(8, "status") + ended(8, 0) + ended(7, 0) + started(9, "commit", "-m", "it's"));
    expect(recordedGitCommands(bytes)).toEqual([
      { command: "git log --all -S 'a word'", exit: 0, missing: [] },
      { command: "git status", exit: 0, missing: [] },
      { command: `git commit -m 'it'\\''s'`, exit: null, missing: [] },
    ]);
  });

  it("skips bytes that start no record, matches an end to its own process, and stops at a record cut short", () => {
    const id = "ABCDEF0123456789abcdef0123456789abcdef01";
    const bytes = Buffer.from(`junk\0${started(3, "show", id)}${ended(4, 1)}${ended(3, 128, id, "not-hex")}${started(5, "reflog")}3\0show\0`);
    expect(recordedGitCommands(bytes)).toEqual([
      { command: `git show ${id}`, exit: 128, missing: [id.toLowerCase()] },
      { command: "git reflog", exit: null, missing: [] },
    ]);
    expect(recordedGitCommands(Buffer.alloc(0))).toEqual([]);
  });

  it("writes a result text the audit reads the ids back from", () => {
    const c = { command: "git show 1234567", exit: 128, missing: ["1234567"] };
    expect(shellResultText(c)).toBe("exit 128\nobjects not in the repository: 1234567");
    expect(objectsNotHeld(shellResultText(c))).toEqual(["1234567"]);
    expect(objectsNotHeld(shellResultText({ ...c, missing: [] }))).toEqual([]);
    expect(shellResultText({ ...c, exit: null, missing: [] })).toBe("did not end");
  });
});

describe("the recording git, run for real", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "gitgood-shell-log-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const repo = path.join(dir, "repo");
  mkdirSync(repo);
  const git = (...args: string[]): string => {
    const r = spawnSync("git", args, { cwd: repo, encoding: "utf8", env: { ...process.env, GIT_AUTHOR_NAME: "a", GIT_AUTHOR_EMAIL: "a@x", GIT_COMMITTER_NAME: "a", GIT_COMMITTER_EMAIL: "a@x" } });
    return r.stdout.trim();
  };
  git("init", "-q", "-b", "main");
  git("commit", "-q", "--allow-empty", "-m", "first");
  const head = git("rev-parse", "HEAD");
  const absent = "0123456789abcdef0123456789abcdef01234567";

  /** Runs a shell script with the recording git first on PATH and descriptor 3 open on a file; returns what it recorded. */
  function recorded(script: string): ReturnType<typeof recordedGitCommands> {
    const shared = path.join(dir, "shared");
    const env = gitRecorder(shared, shared, process.env.PATH ?? "/usr/bin:/bin");
    const file = path.join(dir, "channel");
    const fd = openSync(file, "w");
    try {
      const r = spawnSync("sh", ["-c", script], { cwd: repo, env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "ignore", fd] });
      expect(r.status).toBe(0);
    } finally {
      closeSync(fd);
    }
    return recordedGitCommands(readFileSync(file));
  }

  it("records the exit status of each command and the ids named that the repository does not hold", () => {
    const got = recorded(
      [
        `git show ${absent}`,
        `git -C ${repo} cat-file -p ${absent.slice(0, 12)}`,
        `git rev-parse ${absent}`,
        `git show ${head.slice(0, 10)}~0 HEAD`,
        "git show HEAD:nothing-here.txt",
        `git log -1 --format=%H -- ${absent}`,
        "git commit --allow-empty -q -m 1234567890",
        "git status --short",
        "true",
      ].join("; "),
    );
    expect(got).toEqual([
      { command: `git show ${absent}`, exit: 128, missing: [absent] },
      { command: `git -C ${repo} cat-file -p ${absent.slice(0, 12)}`, exit: 128, missing: [absent.slice(0, 12)] },
      // A full id rev-parse echoes without looking: exit 0, but not held.
      { command: `git rev-parse ${absent}`, exit: 0, missing: [absent] },
      { command: `git show ${head.slice(0, 10)}~0 HEAD`, exit: 0, missing: [] },
      { command: "git show HEAD:nothing-here.txt", exit: 128, missing: [] },
      { command: `git log -1 --format=%H -- ${absent}`, exit: 0, missing: [] },
      { command: "git commit --allow-empty -q -m 1234567890", exit: 0, missing: [] },
      { command: "git status --short", exit: 0, missing: [] },
    ]);
  });

  it("passes git's exit status and output through", () => {
    const shared = path.join(dir, "shared2");
    const env = gitRecorder(shared, shared, process.env.PATH ?? "/usr/bin:/bin");
    const r = spawnSync("sh", ["-c", `git cat-file -t ${head}; git cat-file -e ${absent}`], { cwd: repo, env: { ...process.env, ...env }, encoding: "utf8", stdio: ["ignore", "pipe", "pipe", "ignore"] });
    expect(r.stdout).toBe("commit\n");
    expect(r.status).toBe(1);
  });

  it("runs git unrecorded in a child that has no descriptor 3 and a fresh environment (an MCP client's server)", () => {
    const shared = path.join(dir, "shared3");
    const env = gitRecorder(shared, shared, process.env.PATH ?? "/usr/bin:/bin");
    // What an MCP client passes its stdio server: PATH (the recorder first) and little else.
    const fresh = { PATH: env.PATH ?? "", HOME: process.env.HOME ?? dir };
    const r = spawnSync("sh", ["-c", "git rev-parse --is-inside-work-tree"], { cwd: repo, env: fresh, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    expect([r.status, r.stdout, r.stderr]).toEqual([0, "true\n", ""]);
  });
});
