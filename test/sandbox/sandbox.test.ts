import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, readdirSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Repo } from "../../src/git/repo.js";
import { mergeStore } from "../../src/git/store.js";
import { currentOwner, OWNER_FILE, writeOwner } from "../../src/sandbox/owner.js";
import { Sandbox } from "../../src/sandbox/sandbox.js";
import { staleReason, sweepStale } from "../../src/sandbox/sweep.js";
import { locateSandbox } from "../../src/sandbox/locate.js";
import { chooseIsolation } from "../../src/sandbox/isolation.js";
import { openScenario, setupScenario, withScenario } from "../../src/scenarios/index.js";
import type { Fixture } from "../helpers/fixture.js";
import { buildMergeFixture, snapshot, useSandboxRoot } from "../helpers/scenarios.js";
import type { MergeSample } from "../../src/dataset/sample.js";

let root: ReturnType<typeof useSandboxRoot>;
let fx: Fixture;
let sample: MergeSample;

beforeAll(() => {
  root = useSandboxRoot();
  ({ fx, sample } = buildMergeFixture());
});
afterAll(() => {
  fx.remove();
  root.cleanup();
});

/** The id of a process that has exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
  return Number(r.stdout);
}

describe("sandbox", () => {
  it("holds only the objects its store plan names, copies no refs, and lives under the sandbox root", async () => {
    const source = await Repo.open(fx.dir);
    const [p1, p2] = sample.scenario.parents;
    const store = await mergeStore(source, p1, p2, "full");
    const sb = await Sandbox.create(source, { label: "a/b c", branch: "gitgood/test", store });
    try {
      expect(path.dirname(sb.dir)).toBe(root.root);
      expect(path.basename(sb.dir)).toMatch(/^a_b_c-/);
      expect(existsSync(path.join(sb.workDir, ".git", "objects", "info", "alternates"))).toBe(false);
      expect(await sb.text(["for-each-ref"])).toBe("");
      expect((await sb.text(["cat-file", "-t", p2])).trim()).toBe("commit");
      const merge = await sb.git(["cat-file", "-e", sample.scenario.merge_commit_hash], { okCodes: [0, 1, 128] });
      expect(merge.code).not.toBe(0);
      expect(JSON.parse(readFileSync(path.join(sb.dir, OWNER_FILE), "utf8"))).toMatchObject({ pid: process.pid, kept: false });
    } finally {
      sb.remove();
    }
    expect(existsSync(sb.dir)).toBe(false);
  });

  it("ignores the user's global git config", async () => {
    const globalConfig = path.join(root.root, "..", `global-${process.pid}.gitconfig`);
    writeFileSync(globalConfig, "[core]\n\tautocrlf = true\n[merge]\n\tconflictStyle = diff3\n");
    const previous = process.env.GIT_CONFIG_GLOBAL;
    process.env.GIT_CONFIG_GLOBAL = globalConfig;
    try {
      await withScenario(sample, fx.dir, {}, async (s) => {
        const text = readFileSync(path.join(s.sandbox.workDir, "app.py"), "utf8");
        expect(text).not.toContain("|||||||");
        expect(text).not.toContain("\r");
        expect(readFileSync(path.join(s.sandbox.workDir, "win.py"), "latin1")).toContain("\r\n");
      });
    } finally {
      if (previous === undefined) delete process.env.GIT_CONFIG_GLOBAL;
      else process.env.GIT_CONFIG_GLOBAL = previous;
    }
  });

  it("never changes the source repository: refs, HEAD, index, config, work tree, worktrees", async () => {
    const before = snapshot(fx);
    for (let i = 0; i < 2; i++) {
      const s = await setupScenario(sample, fx.dir, { keep: i === 1 });
      await s.callTool("resolve_current_merge_conflict_with", { content: "x\n", reason: "r" });
      await s.finalState();
      s.close();
    }
    expect(snapshot(fx)).toEqual(before);
  });

  it("works from a bare source repository", async () => {
    const bare = path.join(fx.scratch("bare"), "repo.git");
    fx.git("clone", "-q", "--bare", fx.dir, bare);
    await withScenario(sample, bare, {}, async (s) => {
      expect(s.definition.name).toBe("MCR");
      expect((await s.initialContext()).data).toMatchObject({ files: ["win.py", "app.py"] });
    });
  });

  it("is removed when the work with it throws", async () => {
    let dir = "";
    await expect(
      withScenario(sample, fx.dir, {}, async (s) => {
        dir = s.sandbox.dir;
        expect(existsSync(dir)).toBe(true);
        throw new Error("agent crashed");
      }),
    ).rejects.toThrow("agent crashed");
    expect(dir).not.toBe("");
    expect(existsSync(dir)).toBe(false);
  });

  it("is removed when set-up itself fails", async () => {
    const bad = { ...sample, scenario: { ...sample.scenario, merge_commit_hash: "2".repeat(40) } };
    const beforeEntries = readdirSync(root.root);
    await expect(setupScenario(bad, fx.dir)).rejects.toMatchObject({ code: "MISSING_COMMIT" });
    expect(readdirSync(root.root)).toEqual(beforeEntries);
  });

  it("a process that dies without cleaning up leaves nothing the next run trips on", async () => {
    const stale = path.join(root.root, "killed-run-abc123");
    mkdirSync(path.join(stale, "work", ".git"), { recursive: true });
    writeOwner(stale, { ...currentOwner(false), pid: deadPid() });
    const unmarked = path.join(root.root, "not-made-by-gitgood");
    mkdirSync(unmarked);
    const old = new Date(Date.now() - 3600_000);
    utimesSync(unmarked, old, old);
    const young = path.join(root.root, "being-made-now");
    mkdirSync(young);
    const kept = path.join(root.root, "kept-by-a-person");
    mkdirSync(kept);
    writeOwner(kept, { ...currentOwner(true), pid: deadPid() });
    const abandoned = path.join(root.root, "kept-long-ago");
    mkdirSync(abandoned);
    writeOwner(abandoned, { ...currentOwner(true), created: Date.now() - 30 * 24 * 3600_000 });

    expect(staleReason(stale)).toMatch(/process \d+ is gone/);
    expect(staleReason(kept)).toBeNull();
    // The next set-up sweeps the stale ones and works.
    await withScenario(sample, fx.dir, {}, async (s) => {
      expect(s.definition.name).toBe("MCR");
    });
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(unmarked)).toBe(true);
    expect(existsSync(abandoned)).toBe(false);
    expect(existsSync(young)).toBe(true);
    expect(existsSync(kept)).toBe(true);
    expect(sweepStale(root.root)).toEqual([]);
    // A directory that is not a sandbox cannot be opened as one.
    await expect(openScenario(young)).rejects.toMatchObject({ code: "NO_SANDBOX" });
    await expect(openScenario(kept)).rejects.toMatchObject({ code: "NO_SANDBOX" });
  });

  it("finds the live sandbox for the CLI: given, from the environment, or the only kept one", async () => {
    expect(locateSandbox("/x/y")).toBe("/x/y");
    process.env.GITGOOD_SANDBOX = "/from/env";
    try {
      expect(locateSandbox()).toBe("/from/env");
    } finally {
      delete process.env.GITGOOD_SANDBOX;
    }
    // The fake kept sandbox of the previous test is there; a real one makes two.
    const s = await setupScenario(sample, fx.dir, { keep: true });
    try {
      expect(() => locateSandbox()).toThrow(/2 live scenarios/);
    } finally {
      s.close();
    }
  });
});

describe("the work tree's .git", () => {
  it("is written at set-up and after every tool call with a full work tree; with a tool-only one, only before a program runs", async () => {
    const full = await setupScenario(sample, fx.dir);
    const tools = await setupScenario(sample, fx.dir, { workTree: "tools" });
    try {
      const head = (s: typeof full): string => readFileSync(path.join(s.sandbox.workDir, ".git", "HEAD"), "utf8");
      const args = { relative_path_from_project_root: "app.py", reason: "test" };
      expect(head(full)).toBe("ref: refs/heads/gitgood/mcr\n");
      // Nothing but gitgood's tools reads a tool-only sandbox: its .git costs nothing until a program runs.
      expect(existsSync(path.join(tools.sandbox.workDir, ".git"))).toBe(false);
      await tools.callTool("view_file_at", args);
      expect(existsSync(path.join(tools.sandbox.workDir, ".git"))).toBe(false);
      for (const s of [full, tools]) {
        s.sandbox.isolate(chooseIsolation({ mode: "none" }));
        const seen = await s.sandbox.exec(["git", "log", "-1", "--format=%H"], {});
        expect(String(seen.stdout).trim()).toBe(sample.scenario.parents[0]);
      }
      // Tool calls that move the repository (the last resolution commits the merge): the full view follows
      // at once, the tool-only one at the next program.
      const resolve = { content: "x\n", reason: "test" };
      while (!full.isDone()) await full.callTool("resolve_current_merge_conflict_with", resolve);
      while (!tools.isDone()) await tools.callTool("resolve_current_merge_conflict_with", resolve);
      const branch = (s: typeof full): string => readFileSync(path.join(s.sandbox.workDir, ".git", "refs", "heads", "gitgood", "mcr"), "utf8").trim();
      expect(branch(full)).not.toBe(sample.scenario.parents[0]);
      expect(branch(tools)).toBe(sample.scenario.parents[0]);
      const seen = await tools.sandbox.exec(["git", "log", "-1", "--format=%P"], {});
      expect(String(seen.stdout).trim()).toBe(sample.scenario.parents.join(" "));
    } finally {
      full.close();
      tools.close();
    }
  });
});
