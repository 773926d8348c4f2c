import { execFileSync } from "node:child_process";
import { lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { renderEntry, renderHeader } from "../../src/memory/entries.js";
import { commitMemory, initMemory, logMemory, memoryContext } from "../../src/memory/index.js";
import { MEMORY_TOOLS } from "../../src/memory/tools.js";
import { renderRoadmap } from "../../src/memory/roadmap.js";
import { renderTraceHeader } from "../../src/memory/trace.js";
import type { MemoryWorkspace } from "../../src/memory/memory-workspace.js";
import { gitgood } from "../helpers/cli.js";
import { Fixture } from "../helpers/fixture.js";
import { MEMORY_ENV, memoryFixture, openWorkspace, porcelain, readIn } from "../helpers/memory.js";

// The CLI cases run the built CLI (npm run build first).

const CANARY = "CANARY-5f1c: a secret outside the repository";

const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const f of cleanup.splice(0)) f();
});
function fixture(): Fixture {
  const fx = new Fixture();
  cleanup.push(() => fx.remove());
  return fx;
}
async function setup() {
  const made = await memoryFixture();
  cleanup.push(() => made.fx.remove());
  return made;
}

/** Every file below `dir` with its content, links as `-> target`: what must stay as it was. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = path.join(d, name);
      const st = lstatSync(p);
      const rel = path.relative(dir, p);
      if (st.isSymbolicLink()) out[rel] = "-> link";
      else if (st.isDirectory()) walk(p);
      else out[rel] = readFileSync(p, "utf8");
    }
  };
  walk(dir);
  return out;
}

/** A folder outside the repository that looks like a memory folder, every file holding the canary. */
function outsideMemory(fx: Fixture): string {
  const dir = fx.scratch("outside-memory");
  mkdirSync(path.join(dir, "branches", "main"), { recursive: true });
  writeFileSync(path.join(dir, "main.md"), renderRoadmap(CANARY));
  writeFileSync(path.join(dir, "branches", "main", "commit.md"), renderHeader("main", CANARY));
  writeFileSync(path.join(dir, "branches", "main", "log.md"), `${renderTraceHeader("main")}\n${CANARY}\n`);
  writeFileSync(path.join(dir, "branches", "main", "metadata.yaml"), `canary: "${CANARY}"\n`);
  return dir;
}

/**
 * Runs every memory operation an agent has. None may show the canary; each that fails fails with
 * SYMLINK_REFUSED naming the link. Returns which tools failed.
 */
async function agentOperations(ws: MemoryWorkspace, link: string): Promise<string[]> {
  const calls: [string, Record<string, unknown>][] = [
    ["memory_context", {}],
    ["memory_context", { branch: "main" }],
    ["memory_context", { log: true }],
    ["memory_log", { observation: "echo pwned", thought: "t" }],
    ["memory_commit", { contribution: "step" }],
    ["memory_branch", { name: "side", purpose: "p" }],
  ];
  const refused: string[] = [];
  for (const [tool, args] of calls) {
    const r = await MEMORY_TOOLS.call(ws, tool, { ...args, reason: "test" });
    expect(r.output).not.toContain("CANARY");
    if (r.ok) continue;
    expect(r.error?.code, `${tool} ${JSON.stringify(args)}: ${r.output}`).toBe("SYMLINK_REFUSED");
    expect(r.output).toContain(link);
    refused.push(Object.keys(args).length > 0 && tool === "memory_context" ? `${tool} ${Object.keys(args).join(",")}` : tool);
  }
  return refused;
}

describe("memory never reads or writes through symbolic links", () => {
  it(".GCC committed as a link to a folder outside: every operation is refused, naming the link", async () => {
    const fx = fixture();
    const outside = outsideMemory(fx);
    fx.write({ "README.md": "# demo\n" });
    symlinkSync(outside, path.join(fx.dir, ".GCC"));
    fx.commit("hostile: .GCC is a link");
    const before = tree(outside);
    const ws = await openWorkspace(fx.dir);
    expect(await agentOperations(ws, ".GCC in")).toEqual([
      "memory_context",
      "memory_context branch",
      "memory_context log",
      "memory_log",
      "memory_commit",
      "memory_branch",
    ]);
    await expect(initMemory(ws, { goal: "g" })).rejects.toThrow(/^\.GCC in \S+ is a symbolic link; memory is never read or written through links/);
    expect(tree(outside)).toEqual(before);
    expect(porcelain(fx)).toBe("");
  });

  it("a file of the memory committed as a link to a file outside (log.md -> ~/.bashrc) is neither written nor read", async () => {
    const { fx, ws } = await setup();
    const home = fx.scratch("home");
    const bashrc = path.join(home, ".bashrc");
    writeFileSync(bashrc, `# ${CANARY}\n`);
    const log = path.join(fx.dir, ".GCC", "branches", "main", "log.md");
    rmSync(log);
    symlinkSync(bashrc, log);
    fx.commit("hostile: log.md is a link");
    const head = fx.head();
    // Views that do not read log.md still work; everything that would read or write it is refused.
    expect(await agentOperations(ws, ".GCC/branches/main/log.md")).toEqual(["memory_context log", "memory_log", "memory_commit", "memory_branch"]);
    await expect(logMemory(ws, { note: "x" })).rejects.toThrow(/^\.GCC\/branches\/main\/log\.md in \S+ is a symbolic link/);
    expect(readFileSync(bashrc, "utf8")).toBe(`# ${CANARY}\n`);
    expect(lstatSync(log).isSymbolicLink()).toBe(true);
    expect(fx.head()).toBe(head);
  });

  it("a linked sub-folder, and main.md linked to a file outside, are refused for reading too", async () => {
    const { fx, ws } = await setup();
    const outside = outsideMemory(fx);
    const before = tree(outside);
    rmSync(path.join(fx.dir, ".GCC", "main.md"));
    symlinkSync(path.join(outside, "main.md"), path.join(fx.dir, ".GCC", "main.md"));
    await expect(memoryContext(ws)).rejects.toMatchObject({ code: "SYMLINK_REFUSED", data: { path: ".GCC/main.md" } });
    rmSync(path.join(fx.dir, ".GCC", "main.md"));
    writeFileSync(path.join(fx.dir, ".GCC", "main.md"), renderRoadmap("mine"));
    rmSync(path.join(fx.dir, ".GCC", "branches"), { recursive: true });
    symlinkSync(path.join(outside, "branches"), path.join(fx.dir, ".GCC", "branches"));
    await expect(memoryContext(ws, { branch: "main" })).rejects.toMatchObject({ code: "SYMLINK_REFUSED", data: { path: ".GCC/branches" } });
    await expect(commitMemory(ws, { contribution: "x" })).rejects.toMatchObject({ code: "SYMLINK_REFUSED" });
    expect(tree(outside)).toEqual(before);
  });

  it("a FIFO in place of a memory file is refused instead of hanging", async () => {
    const { fx, ws } = await setup();
    const main = path.join(fx.dir, ".GCC", "main.md");
    rmSync(main);
    execFileSync("mkfifo", [main]);
    await expect(memoryContext(ws)).rejects.toMatchObject({ code: "NOT_A_FILE", message: expect.stringMatching(/^\.GCC\/main\.md in \S+ is not a regular file$/) });
  });
});

describe("memory works on a whole work tree and never commits staged work", () => {
  it("refuses a sub-folder of a repository, leaving the user's staged work alone", async () => {
    const fx = fixture();
    fx.commit("base", { "README.md": "# demo\n", "sub/dir/f.txt": "f\n" });
    fx.write({ "staged.txt": "mine\n" });
    fx.git("add", "staged.txt");
    const head = fx.head();
    await expect(openWorkspace(path.join(fx.dir, "sub", "dir"))).rejects.toMatchObject({
      code: "NOT_A_WORKSPACE",
      message: expect.stringContaining(`is a folder inside the repository at ${fx.dir}, not its top`),
    });
    for (const args of [["init", "--goal", "g"], ["commit", "did x"], ["log", "note"]]) {
      const r = await gitgood(["memory", "-C", path.join(fx.dir, "sub", "dir"), ...args], { env: MEMORY_ENV });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^gitgood: \S+ is a folder inside the repository at \S+, not its top; memory works on a whole work tree: use \S+\n$/);
    }
    expect(fx.head()).toBe(head);
    expect(porcelain(fx)).toBe("A  staged.txt");
  });

  it("a failed COMMIT leaves no entry behind: memory files and index are as they were", async () => {
    const { fx, ws } = await setup();
    fx.write({ "src/app.txt": "four\n", "intent.txt": "i\n" });
    fx.git("add", "-N", "intent.txt");
    const files = [".GCC/branches/main/commit.md", ".GCC/main.md", ".GCC/branches/main/metadata.yaml", "src/app.txt"];
    const before = files.map((f) => readIn(fx, f));
    const index = fx.git("ls-files", "-s", "--debug");
    const status = porcelain(fx);
    // git cannot move the branch while its ref is locked: the commit fails after staging.
    const refLock = path.join(fx.dir, ".git", "refs", "heads", "main.lock");
    writeFileSync(refLock, "");
    await expect(commitMemory(ws, { contribution: "Counted to four.", milestones: ["four"] })).rejects.toMatchObject({ code: "GIT_FAILED" });
    expect(files.map((f) => readIn(fx, f))).toEqual(before);
    expect(porcelain(fx)).toBe(status);
    expect(fx.git("ls-files", "-s", "--debug").replace(/ctime.*\n|mtime.*\n|dev.*\n|uid.*\n|size.*\n/g, "")).toBe(
      index.replace(/ctime.*\n|mtime.*\n|dev.*\n|uid.*\n|size.*\n/g, ""),
    );
    rmSync(refLock);
    const r = await commitMemory(ws, { contribution: "Counted to four." });
    expect(r.entry).toBe(1);
    expect(readIn(fx, ".GCC/branches/main/commit.md").match(/## Commit \d+/g)).toEqual(["## Commit 1"]);
  });
});

describe("damaged memory state gives a clear one-line error", () => {
  it("a lock file that is not gitgood's is refused at once, not waited on", async () => {
    const { fx, ws } = await setup();
    const lock = path.join(fx.dir, ".git", "gitgood-memory.lock");
    writeFileSync(lock, "not a lock\n");
    await expect(logMemory(ws, { note: "x" })).rejects.toMatchObject({
      code: "CORRUPT_LOCK",
      message: `the memory lock ${lock} does not hold a process id, so it is not a lock gitgood made; if no gitgood memory command is running, delete it and try again`,
    });
    rmSync(lock);
    mkdirSync(lock);
    await expect(commitMemory(ws, { contribution: "x" })).rejects.toMatchObject({
      code: "CORRUPT_LOCK",
      message: expect.stringContaining("is not a regular file"),
    });
    rmSync(lock, { recursive: true });
    await logMemory(ws, { note: "fine again" });
  });

  it("a damaged commit.md is refused instead of renumbered, and the overview names it", async () => {
    const { fx, ws } = await setup();
    await commitMemory(ws, { contribution: "one" });
    await commitMemory(ws, { contribution: "two" });
    const file = path.join(fx.dir, ".GCC", "branches", "main", "commit.md");
    const entry = (n: number) => renderEntry({ n, date: "2024-01-01T00:00:00Z", note: null, purpose: "p", summary: "s", contribution: "c" });
    const cases: [string, string][] = [
      ["garbage\n", "it does not start with its '# Memory branch' title"],
      ["# Memory branch `main`\n\nno purpose heading\n", "its '## Purpose' section is missing"],
      [renderHeader("main", "p") + entry(2), "entry #2 stands where entry #1 belongs"],
      [renderHeader("main", "p") + entry(1) + entry(1), "entry #1 stands where entry #2 belongs"],
      [renderHeader("main", "p") + entry(1).replace("### This commit", "### Something else"), "entry #1 lacks its '### This commit' part"],
    ];
    for (const [text, why] of cases) {
      writeFileSync(file, text);
      const message = `.GCC/branches/main/commit.md is damaged (${why}); put it back with git or 'gitgood memory restore', then try again`;
      await expect(commitMemory(ws, { contribution: "three" })).rejects.toMatchObject({ code: "BAD_COMMIT_LOG", message });
      expect(readFileSync(file, "utf8")).toBe(text);
      await expect(memoryContext(ws, { branch: "main" })).rejects.toMatchObject({ code: "BAD_COMMIT_LOG" });
      expect(await memoryContext(ws)).toContain(`- \`main\` (checked out): ${message}`);
    }
    expect(fx.git("log", "-1", "--format=%(trailers:key=Memory-Entry,valueonly)")).toBe("2");
  });
});
