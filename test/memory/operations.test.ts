import { afterEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  branchMemory,
  commitMemory,
  diffMemory,
  logMemory,
  memoryContext,
  mergeMemory,
  restoreMemory,
} from "../../src/memory/index.js";
import type { Fixture } from "../helpers/fixture.js";
import { memoryFixture, memoryTemplate, parents, porcelain, readIn } from "../helpers/memory.js";

const fixtures: Fixture[] = [];
async function setup(opts: Parameters<typeof memoryFixture>[0] = {}) {
  const made = await memoryFixture(opts);
  fixtures.push(made.fx);
  return made;
}
afterEach(() => {
  for (const fx of fixtures.splice(0)) fx.remove();
});

describe("init", () => {
  it("commits the memory folder alone, with the layout of the issue", async () => {
    const { fx } = await setup();
    fx.write({ "staged.txt": "mine\n" });
    expect(fx.git("show", "--name-only", "--format=", "HEAD").split("\n")).toEqual([
      ".GCC/branches/main/commit.md",
      ".GCC/branches/main/log.md",
      ".GCC/branches/main/metadata.yaml",
      ".GCC/main.md",
    ]);
    expect(fx.git("log", "-1", "--format=%an <%ae>%n%(trailers:key=Memory-Branch,valueonly)")).toBe("Ada Fixture <ada@example.com>\nmain");
    expect(readIn(fx, ".GCC/main.md")).toContain("## Goal\n\nMake the demo app count to five.\n");
    const meta = parse(readIn(fx, ".GCC/branches/main/metadata.yaml")) as { file_structure: { files: string[] } };
    expect(meta.file_structure.files).toEqual(["README.md", "src/app.txt"]);
  });

  it("works in a repository without commits and with a configured folder name", async () => {
    const { Fixture } = await import("../helpers/fixture.js");
    const fx = new Fixture();
    fixtures.push(fx);
    const { openWorkspace } = await import("../helpers/memory.js");
    const { initMemory } = await import("../../src/memory/index.js");
    const ws = await openWorkspace(fx.dir, { memoryDir: "notes/mem" });
    await initMemory(ws, { goal: "g" });
    expect(fx.git("ls-tree", "-r", "--name-only", "HEAD")).toContain("notes/mem/branches/main/commit.md");
    await expect(initMemory(ws, { goal: "again" })).rejects.toMatchObject({ code: "ALREADY_INITIALIZED" });
  });
});

describe("commit", () => {
  it("records code and memory in one commit, with entry, summary, roadmap and metadata", async () => {
    const { fx, ws } = await setup();
    fx.write({ "src/app.txt": "one\ntwo\nthree\nfour\n", "src/new.txt": "n\n", "README.md": null });
    const r1 = await commitMemory(ws, { contribution: "Counted to four.", milestones: ["four works"], todos: ["add five"] });
    expect(r1).toMatchObject({ branch: "main", entry: 1, summary: "Counted to four." });
    expect(fx.head()).toBe(r1.commit);
    expect(porcelain(fx)).toBe("");
    expect(fx.git("show", "--name-status", "--format=", "HEAD").split("\n").sort()).toEqual(
      [
        "M\t.GCC/branches/main/commit.md",
        "M\t.GCC/branches/main/metadata.yaml",
        "M\t.GCC/main.md",
        "D\tREADME.md",
        "M\tsrc/app.txt",
        "A\tsrc/new.txt",
      ].sort(),
    );
    expect(fx.git("log", "-1", "--format=%s%n%(trailers:key=Memory-Entry,valueonly)")).toBe("memory(main): Counted to four.\n1");
    const r2 = await commitMemory(ws, { contribution: "Counted to five." });
    expect(r2.summary).toBe("Counted to four.\nCounted to five.");
    const r3 = await commitMemory(ws, { contribution: "Tidied.", summary: "Counts to five, tidy." });
    expect(r3.entry).toBe(3);
    const commitMd = readIn(fx, ".GCC/branches/main/commit.md");
    expect(commitMd).toContain("## Commit 3 · 2024-01-01T00:02:00Z\n\n### Branch purpose\n\nMain line of work toward the goal.\n\n### Progress so far\n\nCounts to five, tidy.\n\n### This commit\n\nTidied.\n");
    expect(readIn(fx, ".GCC/main.md")).toContain("## Milestones\n\n- four works\n\n## To-do\n\n- add five\n");
    const meta = parse(readIn(fx, ".GCC/branches/main/metadata.yaml")) as { file_structure: { files: string[] }; env_config: unknown };
    expect(meta.file_structure.files).toEqual(["src/app.txt", "src/new.txt"]);
    // The paper's env_config segment: the tree's top level, the dependency manifests, the platform.
    expect(meta.env_config).toEqual({ file_tree: { "src/": 2 }, dependencies: [], environment: { platform: process.platform, arch: process.arch } });
    expect(fx.git("rev-list", "--count", "HEAD")).toBe("5");
  });

  it("takes untracked files into the commit, and never staged work", async () => {
    const { fx, ws } = await setup();
    fx.write({ "a.txt": "a\n" });
    fx.git("add", "a.txt");
    fx.write({ "b.txt": "b\n" });
    await expect(commitMemory(ws, { contribution: "both" })).rejects.toMatchObject({ code: "DIRTY_INDEX", data: { files: ["a.txt"] } });
    expect(porcelain(fx)).toBe("A  a.txt\n?? b.txt");
    fx.git("restore", "--staged", "a.txt");
    await commitMemory(ws, { contribution: "both" });
    expect(fx.git("ls-tree", "--name-only", "HEAD").split("\n")).toEqual([".GCC", "README.md", "a.txt", "b.txt", "src"]);
  });
});

describe("log", () => {
  it("appends timestamped records without committing them", async () => {
    const { fx, ws } = await setup();
    await logMemory(ws, { observation: "three only", thought: "need more", action: "add four" });
    await logMemory(ws, { note: "plain note" });
    expect(readIn(fx, ".GCC/branches/main/log.md")).toBe(
      "# Trace of memory branch `main`\n\n### 2024-01-01T00:00:00Z\n- observation: three only\n- thought: need more\n- action: add four\n\n### 2024-01-01T00:01:00Z\n- note: plain note\n",
    );
    expect(porcelain(fx)).toBe(" M .GCC/branches/main/log.md");
    await expect(logMemory(ws, { thought: "  " })).rejects.toMatchObject({ code: "BAD_INPUT" });
  });
});

describe("branch", () => {
  it("creates and checks out a git branch with fresh memory, saving the parent's pending trace first", async () => {
    const { fx, ws } = await setup();
    const base = fx.head();
    await logMemory(ws, { note: "before branching" });
    fx.write({ "src/app.txt": "wip\n" });
    const r = await branchMemory(ws, { name: "try-loop", purpose: "Try a loop instead of a list." });
    expect(fx.git("symbolic-ref", "--short", "HEAD")).toBe("try-loop");
    expect(r.saved).not.toBeNull();
    expect(parents(fx, r.saved ?? "")).toEqual([base]);
    expect(fx.git("show", "--name-only", "--format=", r.saved ?? "")).toBe(".GCC/branches/main/log.md");
    expect(fx.git("show", `${r.saved}:.GCC/branches/main/log.md`)).toContain("before branching");
    expect(fx.git("rev-parse", "main")).toBe(r.saved);
    expect(parents(fx, r.commit)).toEqual([r.saved]);
    expect(fx.git("show", "--name-only", "--format=", "HEAD").split("\n")).toEqual([
      ".GCC/branches/try-loop/commit.md",
      ".GCC/branches/try-loop/log.md",
      ".GCC/branches/try-loop/metadata.yaml",
    ]);
    expect(readIn(fx, ".GCC/branches/try-loop/commit.md")).toBe("# Memory branch `try-loop`\n\n## Purpose\n\nTry a loop instead of a list.\n");
    expect(porcelain(fx)).toBe(" M src/app.txt");
  });
});

/** Memory on main and on a branch feat, each with its own commits (built once, copied for each test). */
const withTwoBranches = memoryTemplate(async ({ fx, ws }) => {
  await branchMemory(ws, { name: "feat", purpose: "Add a counter file." });
  await logMemory(ws, { observation: "no counter yet" });
  fx.write({ "counter.txt": "5\n" });
  await commitMemory(ws, { contribution: "Wrote counter.txt." });
  await logMemory(ws, { action: "after commit on feat" });
  await commitMemory(ws, { contribution: "Checked the counter." });
  fx.checkout("main");
  fx.write({ "README.md": "# demo\nmore\n" });
  await commitMemory(ws, { contribution: "Extended README." });
});

async function twoBranches() {
  const made = await withTwoBranches();
  fixtures.push(made.fx);
  return made;
}

describe("merge", () => {
  it("returns the other branch's context, then makes a merge commit of code and memory", async () => {
    const { fx, ws } = await twoBranches();
    const ours = fx.head();
    const theirs = fx.git("rev-parse", "feat");
    const r = await mergeMemory(ws, { branch: "feat", outcome: "A counter file exists." });
    expect(r.context).toContain("# Memory branch `feat`");
    expect(r.context).toContain("Wrote counter.txt.\nChecked the counter.");
    expect(parents(fx, "HEAD")).toEqual([ours, theirs]);
    expect(r).toMatchObject({ into: "main", branch: "feat", entry: 2, commit: fx.head(), memoryConflicts: [] });
    expect(readIn(fx, "counter.txt")).toBe("5\n");
    expect(porcelain(fx)).toBe("");
    expect(readIn(fx, ".GCC/main.md")).toContain("- Merged `feat` into `main`: A counter file exists.\n");
    const commitMd = readIn(fx, ".GCC/branches/main/commit.md");
    expect(commitMd).toMatch(/## Commit 2 · \S+ · merge of feat\n/);
    expect(commitMd).toContain("Extended README.\nMerged `feat`: A counter file exists.");
    expect(commitMd).toContain("Merged branch `feat`, whose purpose was: Add a counter file.");
    const trace = readIn(fx, ".GCC/branches/main/log.md");
    expect(trace).toMatch(/## Trace merged from `feat` \(\S+\)\n\n### \S+\n- observation: no counter yet\n\n### \S+\n- action: after commit on feat\n$/);
    expect(fx.git("log", "-1", "--format=%(trailers:key=Memory-Merged,valueonly)")).toBe("feat");
  });

  it("resolves memory conflicts by keeping both sides, tagged", async () => {
    const { fx, ws } = await setup();
    await branchMemory(ws, { name: "feat", purpose: "p" });
    await commitMemory(ws, { contribution: "feat step", todos: ["from feat"], milestones: ["feat milestone"] });
    fx.checkout("main");
    await commitMemory(ws, { contribution: "main step", todos: ["from main"] });
    const r = await mergeMemory(ws, { branch: "feat", outcome: "joined" });
    expect(r.memoryConflicts).toEqual([".GCC/main.md"]);
    const md = readIn(fx, ".GCC/main.md");
    expect(md).toContain("<!-- memory merge kept both sides; from `main`: -->");
    expect(md).toContain("<!-- from `feat`: -->");
    expect(md).toContain("- from main");
    expect(md).toContain("- from feat");
    expect(md).toContain("- feat milestone");
    expect(parents(fx, "HEAD")).toHaveLength(2);
    expect(porcelain(fx)).toBe("");
  });

  it("reports code conflicts, aborts, and leaves everything as it was", async () => {
    const { fx, ws } = await setup();
    await branchMemory(ws, { name: "feat", purpose: "p" });
    fx.write({ "src/app.txt": "uno\n" });
    await commitMemory(ws, { contribution: "spanish" });
    fx.checkout("main");
    fx.write({ "src/app.txt": "eins\n" });
    await commitMemory(ws, { contribution: "german" });
    const head = fx.head();
    fx.write({ "untracked.txt": "keep\n" });
    const err = await mergeMemory(ws, { branch: "feat", outcome: "x" }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: "MERGE_CONFLICT", data: { files: ["src/app.txt"] } });
    expect((err as Error).message).toMatch(/conflicts in code \(src\/app\.txt\); the merge was aborted/);
    expect(fx.head()).toBe(head);
    expect(fx.tryGit("rev-parse", "-q", "--verify", "MERGE_HEAD").code).not.toBe(0);
    expect(porcelain(fx)).toBe("?? untracked.txt");
    expect(readIn(fx, "src/app.txt")).toBe("eins\n");
  });

  it("saves a pending trace before merging and refuses branches already merged", async () => {
    const { fx, ws } = await twoBranches();
    await logMemory(ws, { note: "pending on main" });
    const r = await mergeMemory(ws, { branch: "feat", outcome: "done" });
    const first = parents(fx, r.commit)[0] ?? "";
    expect(fx.git("log", "-1", "--format=%s", first)).toBe("memory(main): save pending memory before merging feat");
    await expect(mergeMemory(ws, { branch: "feat", outcome: "again" })).rejects.toMatchObject({ code: "ALREADY_MERGED" });
  });
});

describe("context", () => {
  it("overview shows goal, roadmap, branches with their last entry, and memory commit ids", async () => {
    const { fx, ws } = await twoBranches();
    await commitMemory(ws, { contribution: "roadmap", todos: ["write docs"], milestones: ["counted"] });
    const text = await memoryContext(ws);
    expect(text).toContain("## Goal\n\nMake the demo app count to five.");
    expect(text).toContain("## Milestones\n\n- counted");
    expect(text).toContain("## To-do\n\n- write docs");
    expect(text).toMatch(/- `feat`: Add a counter file\. — 2 commit\(s\); last #2 \(\S+\): Checked the counter\./);
    expect(text).toMatch(/- `main` \(checked out\): Main line of work toward the goal\. — 2 commit\(s\); last #2 \(\S+\): roadmap/);
    expect(text).toContain(`- ${fx.git("rev-parse", "--short", "HEAD")} memory(main): roadmap`);
  });

  it("branch view scrolls through entries; commit view shows one entry by number or commit id", async () => {
    const { fx, ws } = await setup();
    for (let i = 1; i <= 14; i++) await commitMemory(ws, { contribution: `step ${i}` });
    const last = await memoryContext(ws, { branch: "main" });
    expect(last).toContain("## Entries 5-14 of 14, oldest first");
    expect(last).toContain("[scroll: older entries with skip 10]");
    const older = await memoryContext(ws, { branch: "main", skip: 10, count: 3 });
    expect(older).toContain("## Entries 2-4 of 14");
    expect(older).toContain("### This commit\n\nstep 4\n");
    expect(older).not.toContain("step 5\n\n##");
    expect(older).toContain("[scroll: older entries with skip 13; newer entries with skip 7]");
    const byNumber = await memoryContext(ws, { commit: "3" });
    expect(byNumber).toContain("## Commit 3 · ");
    expect(byNumber).toContain("### This commit\n\nstep 3");
    const rev = fx.git("rev-parse", "HEAD~11");
    const byRev = await memoryContext(ws, { commit: rev });
    expect(byRev).toContain(`(commit ${rev.slice(0, 12)})`);
    expect(byRev).toContain("### This commit\n\nstep 3");
    await expect(memoryContext(ws, { commit: "99" })).rejects.toMatchObject({ code: "UNKNOWN_ENTRY" });
    await expect(memoryContext(ws, { commit: "HEAD~14" })).rejects.toMatchObject({ code: "NOT_A_MEMORY_COMMIT" });
  });

  it("reads another branch from git, the log window, and metadata segments", async () => {
    const { ws } = await twoBranches();
    const feat = await memoryContext(ws, { branch: "feat" });
    expect(feat).toContain("# Memory branch `feat`\n");
    expect(feat).not.toContain("(checked out)");
    const log = await memoryContext(ws, { log: true, branch: "feat", count: 2 });
    expect(log).toMatch(/lines 6-7 of 7\n\n### \S+\n- action: after commit on feat\n\n\[scroll: older lines with skip 2\]/);
    const seg = await memoryContext(ws, { metadata: "file_structure", branch: "feat" });
    expect(seg).toContain("- counter.txt");
    await expect(memoryContext(ws, { metadata: "nope" })).rejects.toMatchObject({ code: "UNKNOWN_SEGMENT" });
    await expect(memoryContext(ws, { log: true, metadata: "x" })).rejects.toMatchObject({ code: "BAD_INPUT" });
  });

  it("never exceeds the character limit and pages the rest by offset", async () => {
    const { ws } = await setup({ contextLimit: 600 });
    for (let i = 1; i <= 6; i++) await commitMemory(ws, { contribution: `step ${i} ${"word ".repeat(30)}` });
    const full = await memoryContext(ws, { branch: "main", limit: 1_000_000, offset: 0 });
    expect(full.length).toBeLessThanOrEqual(600);
    let offset = 0;
    let pages = 0;
    let sawLast = false;
    for (; pages < 50; pages++) {
      const w = await memoryContext(ws, { branch: "main", offset });
      expect(w.length).toBeLessThanOrEqual(600);
      if (w.includes("step 6")) sawLast = true;
      const next = /the rest from offset (\d+)/.exec(w);
      if (!next) break;
      offset = Number(next[1]);
    }
    expect(pages).toBeGreaterThan(3);
    expect(sawLast).toBe(true);
  });
});

describe("diff and restore", () => {
  it("diffs memory states and restores one as a new commit, saving pending memory first", async () => {
    const { fx, ws } = await setup();
    const r1 = await commitMemory(ws, { contribution: "first", todos: ["t1"] });
    fx.write({ "code.txt": "v2\n" });
    const r2 = await commitMemory(ws, { contribution: "second", todos: ["t2"] });
    const d = await diffMemory(ws, { from: r1.commit, to: r2.commit });
    expect(d).toContain("+- t2");
    expect(d).toContain("+second");
    expect(d).not.toContain("diff --git a/code.txt");
    expect(d).toContain("+    - code.txt");
    expect(await diffMemory(ws, { from: r2.commit })).toBe("");

    await logMemory(ws, { note: "unsaved thought" });
    fx.write({ "code.txt": "v3 uncommitted\n" });
    const rr = await restoreMemory(ws, r1.commit);
    expect(rr.saved).not.toBeNull();
    expect(fx.git("show", `${rr.saved}:.GCC/branches/main/log.md`)).toContain("unsaved thought");
    expect(parents(fx, rr.commit)).toEqual([rr.saved]);
    expect(fx.git("diff", "--stat", r1.commit, "HEAD", "--", ".GCC")).toBe("");
    expect(readIn(fx, ".GCC/main.md")).not.toContain("t2");
    expect(readIn(fx, "code.txt")).toBe("v3 uncommitted\n");
    expect(porcelain(fx)).toBe(" M code.txt");
    expect(fx.git("show", "--name-only", "--format=", "HEAD").split("\n").every((f) => f.startsWith(".GCC/"))).toBe(true);
    const undo = await restoreMemory(ws, rr.saved ?? "");
    expect(fx.git("diff", "--stat", rr.saved ?? "", undo.commit, "--", ".GCC")).toBe("");
    await expect(restoreMemory(ws, "HEAD~20")).rejects.toMatchObject({ code: "UNKNOWN_REVISION" });
    const root = fx.git("rev-list", "--max-parents=0", "HEAD");
    await expect(restoreMemory(ws, root)).rejects.toMatchObject({ code: "NOT_A_MEMORY_STATE" });
  });
});
