import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ChainSample } from "../../src/dataset/sample.js";
import { setupScenario } from "../../src/scenarios/index.js";
import type { IccScenario } from "../../src/scenarios/icc/scenario.js";
import type { IccScope } from "../../src/scenarios/icc/state.js";
import type { HistoryFinalState, LiveScenario } from "../../src/scenarios/types.js";
import type { Fixture } from "../helpers/fixture.js";
import { blob, buildSpacedChainFixture, snapshot, useSandboxRoot } from "../helpers/scenarios.js";

let root: ReturnType<typeof useSandboxRoot>;
let fx: Fixture;
let commits: string[];
let base: string;
let sample: ChainSample;
const open: LiveScenario[] = [];
const reason = "test";

beforeAll(() => {
  root = useSandboxRoot();
  ({ fx, commits, base, sample } = buildSpacedChainFixture());
});
afterAll(() => {
  fx.remove();
  root.cleanup();
});
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});

async function start(scope?: IccScope): Promise<IccScenario> {
  const s = await setupScenario(sample, fx.dir, { scenario: "icc", settings: { scope } });
  open.push(s);
  return s as IccScenario;
}

const tip = (): string => commits[3] as string;
const changedFiles = (rev: string): string[] =>
  fx.git("diff-tree", "--no-commit-id", "--name-only", "-r", "--no-renames", rev).split("\n").filter(Boolean);

describe("ICC set-up", () => {
  it("puts HEAD at the chain's base with the whole change in the work tree", async () => {
    const s = await start();
    expect((await s.sandbox.text(["rev-parse", "HEAD"])).trim()).toBe(base);
    for (const file of ["lib.py", "notes.txt", "docs/read me.md", "logo.bin", "crlf.txt"]) {
      expect(readFileSync(path.join(s.sandbox.workDir, file)).equals(blob(fx, tip(), file)), file).toBe(true);
    }
    expect(() => readFileSync(path.join(s.sandbox.workDir, "old.txt"))).toThrow();
    expect(s.isDone()).toBe(false);
  });

  it("offers only the chain file's hunks by default, numbered from git's diff", async () => {
    const s = await start();
    const left = await s.remaining();
    expect(left.hunks.map((h) => [h.id, h.path])).toEqual([[0, "lib.py"], [1, "lib.py"], [2, "lib.py"], [3, "lib.py"]]);
    expect(left.hunks[1]?.text).toContain("-line20\n+twenty\n");
    expect(left.others.map((f) => f.path)).toEqual(["crlf.txt", "docs/read me.md", "empty.txt", "logo.bin", "notes.txt", "old.txt"]);
    const ctx = await s.initialContext();
    expect(ctx.text).toContain("HUNK-3  lib.py\n@@ -48,7 +48,7 @@");
    expect(ctx.text).toContain("Changes in other files (crlf.txt, docs/read me.md");
    expect((ctx.data as { hunks: unknown[] }).hunks).toHaveLength(4);
  });

  it("with scope all offers every file's hunks, added, deleted, binary and empty files included", async () => {
    const s = await start("all");
    const left = await s.remaining();
    const summary = left.hunks.map((h) => `${h.id} ${h.path} ${h.status} ${h.note ?? ""}`.trim());
    expect(summary).toEqual([
      "0 crlf.txt M",
      "1 docs/read me.md A",
      "2 empty.txt A empty file added",
      "3 lib.py M",
      "4 lib.py M",
      "5 lib.py M",
      "6 lib.py M",
      "7 logo.bin A binary file added",
      "8 notes.txt A",
      "9 old.txt D",
    ]);
    expect(left.others).toEqual([]);
  });
});

describe("ICC tools", () => {
  it("commits exactly the selected hunks and renumbers the rest", async () => {
    const s = await start();
    const r = await s.callTool("commit_changes_in", { selected_hunks: [1, "HUNK-3"], commit_message: "Twenty and fifty", reason });
    expect(r.ok, r.output).toBe(true);
    expect(r.output).toContain("Hunks left to commit (2):");
    expect(r.output).toContain("HUNK-0  lib.py");
    expect(r.output).toContain("HUNK-1  lib.py");
    expect(r.output).not.toContain("HUNK-2");
    const committed = await s.sandbox.text(["show", "HEAD:lib.py"]);
    expect(committed).toContain("twenty\n");
    expect(committed).toContain("fifty\n");
    expect(committed).toContain("line05\n");
    expect(await s.sandbox.text(["log", "-1", "--format=%s"])).toBe("Twenty and fifty\n");
    expect(readFileSync(path.join(s.sandbox.workDir, "lib.py")).equals(blob(fx, tip(), "lib.py"))).toBe(true);
    expect(await s.sandbox.text(["diff", "--cached", "--name-only"])).toBe("");
    const view = await s.callTool("view_remaining_hunks", { reason });
    expect(view.output).toContain("-line05\n+five");
  });

  it.each([
    ["a hunk out of range", { selected_hunks: [4], commit_message: "m" }, "INDEX_OUT_OF_RANGE", "HUNK-0 to HUNK-3"],
    ["a hunk twice", { selected_hunks: [1, "HUNK-1"], commit_message: "m" }, "BAD_ARGUMENTS", "more than once"],
    ["no hunks", { selected_hunks: [], commit_message: "m" }, "BAD_ARGUMENTS", "selected_hunks"],
    ["a blank message", { selected_hunks: [0], commit_message: "  \n" }, "BAD_ARGUMENTS", "must not be blank"],
    ["a malformed hunk name", { selected_hunks: ["hunk 1"], commit_message: "m" }, "BAD_ARGUMENTS", "selected_hunks.0"],
    ["a missing message", { selected_hunks: [0] }, "BAD_ARGUMENTS", "commit_message: required parameter is missing"],
  ])("rejects %s and commits nothing", async (_what, args, code, text) => {
    const s = await start();
    const r = await s.callTool("commit_changes_in", { ...args, reason });
    expect(r.ok).toBe(false);
    expect(r.error?.code).toBe(code);
    expect(r.output).toContain(text);
    expect((await s.sandbox.text(["rev-parse", "HEAD"])).trim()).toBe(base);
    expect(await s.sandbox.text(["diff", "--cached", "--name-only"])).toBe("");
  });

  it("commit_remaining_changes commits everything and finishes; nothing is left after", async () => {
    const s = await start();
    const r = await s.callTool("commit_remaining_changes", { commit_message: "Everything", reason });
    expect(r.ok, r.output).toBe(true);
    expect(r.done).toBe(true);
    expect(r.output).toContain("Everything is committed. The task is finished.");
    expect((await s.sandbox.text(["rev-parse", "HEAD^{tree}"])).trim()).toBe(fx.git("rev-parse", `${tip()}^{tree}`));
    const again = await s.callTool("commit_remaining_changes", { commit_message: "More", reason });
    expect(again.error?.code).toBe("NOTHING_TO_COMMIT");
    const none = await s.callTool("commit_changes_in", { selected_hunks: [0], commit_message: "m", reason });
    expect(none.error?.code).toBe("NO_HUNKS");
  });
});

/** The hunks (by current number) that make up the original commit `rev`: same path, same changed lines. */
async function hunksOf(s: IccScenario, rev: string): Promise<number[]> {
  const files = new Set(changedFiles(rev));
  const patch = fx.git("diff-tree", "-p", "--no-commit-id", "--no-renames", "--binary", rev);
  const left = await s.remaining();
  return left.hunks
    .filter((h) => files.has(h.path))
    .filter((h) => {
      if (h.text === "") return true;
      const changed = Buffer.from(h.text, "latin1").toString("utf8").split("\n").filter((l) => /^[-+]/.test(l));
      return changed.every((l) => patch.includes(l));
    })
    .map((h) => h.id);
}

describe("ICC end to end", () => {
  it("committing the original commits' hunks with their messages (scope all) gives the original trees", async () => {
    const before = snapshot(fx);
    const s = await start("all");
    for (const rev of commits) {
      const selected = await hunksOf(s, rev);
      const message = fx.git("log", "-1", "--format=%B", rev);
      const r = await s.callTool("commit_changes_in", { selected_hunks: selected, commit_message: message, reason });
      expect(r.ok, r.output).toBe(true);
    }
    expect(s.isDone()).toBe(true);
    const state = (await s.finalState()) as HistoryFinalState;
    expect(state.done).toBe(true);
    expect(state.pending).toBeNull();
    expect(state.base).toBe(base);
    const trees = await Promise.all(state.commits.map(async (c) => (await s.sandbox.text(["rev-parse", `${c.oid}^{tree}`])).trim()));
    expect(trees).toEqual(commits.map((c) => fx.git("rev-parse", `${c}^{tree}`)));
    expect(state.commits.map((c) => c.message)).toEqual(commits.map((c) => fx.git("log", "-1", "--format=%B", c)));
    expect(state.tree).toBe(fx.git("rev-parse", `${tip()}^{tree}`));
    expect(state.commits[3]?.diff).toContain("Binary files /dev/null and b/logo.bin differ");
    expect(snapshot(fx)).toEqual(before);
  });

  it("with the default scope the chain file follows the original commits and the rest goes in one final commit", async () => {
    const s = await start();
    for (const rev of commits.slice(0, 3)) {
      const selected = await hunksOf(s, rev);
      expect(selected).toHaveLength(1);
      await s.callTool("commit_changes_in", { selected_hunks: selected, commit_message: fx.git("log", "-1", "--format=%B", rev), reason });
    }
    const last = await s.callTool("commit_remaining_changes", { commit_message: "Fifty", reason });
    expect(last.done).toBe(true);
    const state = (await s.finalState()) as HistoryFinalState;
    expect(state.tree).toBe(fx.git("rev-parse", `${tip()}^{tree}`));
    for (const [i, c] of state.commits.entries()) {
      expect(await s.sandbox.text(["show", `${c.oid}:lib.py`])).toBe(blob(fx, commits[i] as string, "lib.py").toString("utf8"));
    }
    expect(state.commits[0]?.author.name).toBe("Ada Fixture");
  });
});
