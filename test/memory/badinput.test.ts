import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { branchMemory, commitMemory, logMemory, memoryContext, mergeMemory } from "../../src/memory/index.js";
import { Fixture } from "../helpers/fixture.js";
import { memoryFixture, openWorkspace, porcelain, readIn } from "../helpers/memory.js";

const cleanup: (() => void)[] = [];
async function setup() {
  const made = await memoryFixture();
  cleanup.push(() => made.fx.remove());
  return made;
}
afterEach(() => {
  for (const f of cleanup.splice(0)) f();
});

/** Everything the user owns that an operation could touch: refs, HEAD, index and work tree. */
function snapshot(fx: Fixture): string {
  return [
    fx.git("for-each-ref", "--format=%(refname) %(objectname)"),
    fx.git("symbolic-ref", "-q", "HEAD"),
    fx.git("ls-files", "-s"),
    porcelain(fx),
    fx.git("diff"),
    fx.git("diff", "--cached"),
  ].join("\n--\n");
}

describe("bad input changes nothing and says what is wrong", () => {
  it("unknown branch", async () => {
    const { fx, ws } = await setup();
    const before = snapshot(fx);
    await expect(mergeMemory(ws, { branch: "nope", outcome: "x" })).rejects.toMatchObject({
      code: "UNKNOWN_BRANCH",
      message: "there is no branch 'nope'",
    });
    await expect(memoryContext(ws, { branch: "nope" })).rejects.toMatchObject({ code: "UNKNOWN_BRANCH" });
    expect(snapshot(fx)).toBe(before);
  });

  it("a git branch without memory", async () => {
    const { fx, ws } = await setup();
    fx.git("branch", "plain", "HEAD~1");
    const before = snapshot(fx);
    await expect(mergeMemory(ws, { branch: "plain", outcome: "x" })).rejects.toMatchObject({ code: "NO_MEMORY_BRANCH" });
    fx.checkout("plain");
    await expect(commitMemory(ws, { contribution: "x" })).rejects.toMatchObject({ code: "NOT_INITIALIZED" });
    fx.checkout("main");
    fx.git("branch", "plain2");
    fx.checkout("plain2");
    await expect(commitMemory(ws, { contribution: "x" })).rejects.toMatchObject({ code: "NO_MEMORY_BRANCH" });
    fx.checkout("main");
    expect(snapshot(fx).replace(/\n[^\n]*plain2[^\n]*/, "")).toBe(before);
  });

  it("merging a branch into itself", async () => {
    const { fx, ws } = await setup();
    const before = snapshot(fx);
    await expect(mergeMemory(ws, { branch: "main", outcome: "x" })).rejects.toMatchObject({
      code: "SELF_MERGE",
      message: "cannot merge branch 'main' into itself",
    });
    expect(snapshot(fx)).toBe(before);
  });

  it("a workspace that is not a git repository", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "gitgood-memory-plain-"));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    await expect(openWorkspace(dir)).rejects.toMatchObject({ code: "NOT_A_REPOSITORY" });
    await expect(openWorkspace(path.join(dir, "missing"))).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("a bare repository, a detached HEAD, a bad folder name", async () => {
    const bare = new Fixture({ bare: true });
    cleanup.push(() => bare.remove());
    await expect(openWorkspace(bare.dir)).rejects.toMatchObject({ code: "NOT_A_WORKSPACE" });
    const { fx, ws } = await setup();
    await expect(openWorkspace(fx.dir, { memoryDir: "../out" })).rejects.toMatchObject({ code: "BAD_OPTION" });
    fx.git("checkout", "-q", "--detach");
    await expect(logMemory(ws, { note: "x" })).rejects.toMatchObject({ code: "DETACHED_HEAD" });
  });

  it("memory not started yet", async () => {
    const fx = new Fixture();
    cleanup.push(() => fx.remove());
    fx.commit("base", { "a.txt": "a\n" });
    const ws = await openWorkspace(fx.dir);
    await expect(memoryContext(ws)).rejects.toMatchObject({ code: "NOT_INITIALIZED" });
    await expect(commitMemory(ws, { contribution: "x" })).rejects.toThrow(/run 'gitgood memory init' first/);
  });

  it("a dirty index: COMMIT refuses staged files and keeps both versions", async () => {
    const { fx, ws } = await setup();
    fx.write({ "src/app.txt": "staged\n" });
    fx.git("add", "src/app.txt");
    fx.write({ "src/app.txt": "work tree\n" });
    await logMemory(ws, { note: "pending" });
    const before = snapshot(fx);
    const logBefore = readIn(fx, ".GCC/branches/main/log.md");
    const err = await commitMemory(ws, { contribution: "x" }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "DIRTY_INDEX", data: { files: ["src/app.txt"] } });
    expect((err as Error).message).toMatch(/^the index holds staged changes \(src\/app\.txt\); a memory commit records the work tree and never staged work/);
    expect(snapshot(fx)).toBe(before);
    expect(fx.git("show", ":src/app.txt")).toBe("staged");
    expect(readIn(fx, "src/app.txt")).toBe("work tree\n");
    expect(readIn(fx, ".GCC/branches/main/commit.md")).not.toContain("## Commit 1");
    expect(readIn(fx, ".GCC/branches/main/log.md")).toBe(logBefore);
  });

  it("a dirty index or work tree: MERGE refuses uncommitted code", async () => {
    const { fx, ws } = await setup();
    await branchMemory(ws, { name: "feat", purpose: "p" });
    fx.checkout("main");
    fx.write({ "README.md": "changed\n" });
    fx.git("add", "README.md");
    const before = snapshot(fx);
    await expect(mergeMemory(ws, { branch: "feat", outcome: "x" })).rejects.toMatchObject({
      code: "DIRTY_WORKTREE",
      data: { files: ["README.md"] },
    });
    expect(snapshot(fx)).toBe(before);
  });

  it("BRANCH keeps a staged index and uncommitted changes, and refuses bad or taken names", async () => {
    const { fx, ws } = await setup();
    fx.write({ "src/app.txt": "staged\n" });
    fx.git("add", "src/app.txt");
    fx.write({ "src/app.txt": "work tree\n" });
    await expect(branchMemory(ws, { name: "bad..name", purpose: "p" })).rejects.toMatchObject({ code: "BAD_BRANCH_NAME" });
    await expect(branchMemory(ws, { name: "-x", purpose: "p" })).rejects.toMatchObject({ code: "BAD_BRANCH_NAME" });
    await expect(branchMemory(ws, { name: "main", purpose: "p" })).rejects.toMatchObject({ code: "BRANCH_EXISTS" });
    await expect(branchMemory(ws, { name: "ok", purpose: " " })).rejects.toMatchObject({ code: "BAD_INPUT" });
    await branchMemory(ws, { name: "ok", purpose: "p" });
    expect(fx.git("show", ":src/app.txt")).toBe("staged");
    expect(readIn(fx, "src/app.txt")).toBe("work tree\n");
  });

  it("an unfinished git merge", async () => {
    const { fx, ws } = await setup();
    fx.git("checkout", "-q", "-b", "side");
    fx.commit("side", { "src/app.txt": "side\n" });
    fx.checkout("main");
    fx.commit("main", { "src/app.txt": "main\n" });
    fx.tryGit("merge", "side");
    const before = snapshot(fx);
    await expect(commitMemory(ws, { contribution: "x" })).rejects.toMatchObject({ code: "OPERATION_IN_PROGRESS" });
    expect(snapshot(fx)).toBe(before);
  });
});
