import { existsSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { setupScenario } from "../../src/scenarios/index.js";
import type { McrScenario } from "../../src/scenarios/mcr/scenario.js";
import type { McrFinalState as MergeFinalState } from "../../src/scenarios/mcr/state.js";
import type { LiveScenario } from "../../src/scenarios/types.js";
import { blob, buildMergeFixture, resolutionsFor, snapshot, useSandboxRoot } from "../helpers/scenarios.js";
import type { Fixture } from "../helpers/fixture.js";
import type { MergeSample } from "../../src/dataset/sample.js";

let root: ReturnType<typeof useSandboxRoot>;
let fx: Fixture;
let merge: string;
let sample: MergeSample;
const open: LiveScenario[] = [];

beforeAll(() => {
  root = useSandboxRoot();
  ({ fx, merge, sample } = buildMergeFixture());
});
afterAll(() => {
  fx.remove();
  root.cleanup();
});
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});

async function start(): Promise<McrScenario> {
  const s = await setupScenario(sample, fx.dir);
  open.push(s);
  return s as McrScenario;
}

const reason = "test";

describe("MCR set-up", () => {
  it("checks out parent 1, merges parent 2 and numbers conflicts in sample file order", async () => {
    const s = await start();
    expect(s.definition.name).toBe("MCR");
    const head = (await s.sandbox.text(["rev-parse", "HEAD"])).trim();
    expect(head).toBe(sample.scenario.parents[0]);
    const mergeHead = (await s.sandbox.text(["rev-parse", "MERGE_HEAD"])).trim();
    expect(mergeHead).toBe(sample.scenario.parents[1]);
    expect(s.conflicts.files.map((f) => f.path)).toEqual(["win.py", "app.py"]);
    expect(s.conflicts.conflicts.map((c) => c.file)).toEqual([0, 0, 1, 1]);
    expect(s.isDone()).toBe(false);
  });

  it("tells the temporal order of the sides, the files and every conflict", async () => {
    const s = await start();
    const ctx = await s.initialContext();
    const data = ctx.data as { sides_in_time_order: { subject: string }[]; files: string[]; conflicts: { index: number; file: string; text: string }[] };
    expect(data.sides_in_time_order.map((x) => x.subject)).toEqual(["feature: héllo wörld", "main side"]);
    expect(data.files).toEqual(["win.py", "app.py"]);
    expect(data.conflicts.map((c) => [c.index, c.file])).toEqual([[0, "win.py"], [1, "win.py"], [2, "app.py"], [3, "app.py"]]);
    expect(data.conflicts[0]?.text).toBe("<<<<<<< HEAD\r\nM1\r\n=======\r\nF1\r\n>>>>>>> " + sample.scenario.parents[1] + "\r\n");
    expect(ctx.text).toContain("conflict 3 of 4");
    expect(ctx.text).toContain("line endings CRLF");
  });

  it("fails with a clear error when the parents merge cleanly", async () => {
    const clean = { ...sample, scenario: { ...sample.scenario, parents: [sample.scenario.parents[0], sample.scenario.parents[0]] as [string, string] } };
    await expect(setupScenario(clean, fx.dir)).rejects.toMatchObject({ code: "SAMPLE_MISMATCH" });
  });

  it("fails with MISSING_COMMIT for a commit the repository lacks", async () => {
    const missing = { ...sample, scenario: { ...sample.scenario, merge_commit_hash: "1".repeat(40) } };
    await expect(setupScenario(missing, fx.dir)).rejects.toMatchObject({ code: "MISSING_COMMIT" });
  });
});

describe("MCR tools", () => {
  it("views the current conflict with context, clearly marked", async () => {
    const s = await start();
    const r = await s.callTool("view_current_merge_conflict_with", { context_window_size: 1, reason });
    expect(r.ok).toBe(true);
    expect(r.output).toBe(
      [
        "[gitgood] conflict 0 of 4 (0-based, unresolved) in win.py, lines 2-6; line endings CRLF (\\r\\n)",
        "[gitgood] 1 line(s) of context before:",
        "w0",
        "[gitgood] conflict 0 region:",
        "<<<<<<< HEAD",
        "M1",
        "=======",
        "F1",
        `>>>>>>> ${sample.scenario.parents[1]}`,
        "[gitgood] 1 line(s) of context after:",
        "w2",
        "[gitgood] end",
      ].join("\n"),
    );
  });

  it("views a conflict by index and rejects an index out of range", async () => {
    const s = await start();
    const r = await s.callTool("view_merge_conflict_at", { conflict_index: 3, context_window_size: 2, reason });
    expect(r.output).toContain("conflict 3 of 4 (0-based, unresolved) in app.py, lines 14-18; line endings LF (\\n)");
    expect(r.output).toContain("main_last");
    const bad = await s.callTool("view_merge_conflict_at", { conflict_index: 4, context_window_size: 2, reason });
    expect(bad.ok).toBe(false);
    expect(bad.error?.code).toBe("INDEX_OUT_OF_RANGE");
    expect(bad.output).toContain("from 0 to 3");
  });

  it("conflict at the start of a file has no context before it", async () => {
    const s = await start();
    const r = await s.callTool("view_merge_conflict_at", { conflict_index: 2, context_window_size: 3, reason });
    expect(r.output).toContain("lines 1-5");
    expect(r.output).toContain("[gitgood] 3 line(s) of context before:\n[gitgood] conflict 2 region:");
  });

  it("resolves byte for byte: CRLF kept, no newline added, cursor moves to the next conflict", async () => {
    const s = await start();
    const r = await s.callTool("resolve_current_merge_conflict_with", { content: "M1F1\r\n", reason });
    expect(r.ok).toBe(true);
    expect(r.output).toContain("Resolved conflict 0 in win.py; 3 conflict(s) left.");
    expect(r.output).toContain("The current conflict is now 1 in win.py");
    const bytes = readFileSync(path.join(s.sandbox.workDir, "win.py"));
    expect(bytes.toString("latin1").startsWith("w0\r\nM1F1\r\nw2\r\n")).toBe(true);
    const again = await s.callTool("view_merge_conflict_at", { conflict_index: 0, context_window_size: 0, reason });
    expect(again.output).toContain("(0-based, resolved)");
    expect(again.output).toContain("resolution of conflict 0:\nM1F1");
    // No newline added: the text runs straight into the next line.
    await s.callTool("resolve_current_merge_conflict_with", { content: "X", reason });
    expect(readFileSync(path.join(s.sandbox.workDir, "win.py"), "latin1")).toBe("w0\r\nM1F1\r\nw2\r\nw3\r\nw4\r\nw5\r\nXw7\r\n");
  });

  it("keeps working when a resolution looks like conflict markers", async () => {
    const s = await start();
    await s.callTool("resolve_current_merge_conflict_with", { content: "<<<<<<< fake\r\n>>>>>>> fake\r\n", reason });
    const r = await s.callTool("view_current_merge_conflict_with", { context_window_size: 0, reason });
    expect(r.output).toContain("conflict 1 of 4");
    expect(r.output).toContain("M6");
  });

  it("views diffs and files, and refuses paths outside the project", async () => {
    const s = await start();
    const diff = await s.callTool("view_diff_for", { relative_path_from_project_root: "app.py", reason });
    expect(diff.output).toContain("diff --cc app.py");
    const clean = await s.callTool("view_diff_for", { relative_path_from_project_root: "README", reason });
    expect(clean.output).toContain("-readme\n+readme 2");
    const none = await s.callTool("view_diff_for", { relative_path_from_project_root: "./app.py/../win.py", reason });
    expect(none.ok).toBe(false);
    const file = await s.callTool("view_file_at", { relative_path_from_project_root: "win.py", reason });
    const size = readFileSync(path.join(s.sandbox.workDir, "win.py")).length;
    expect(file.output.split("\n")[0]).toBe(`[gitgood] win.py: 16 line(s), ${size} bytes, line endings CRLF (\\r\\n)`);
    expect(file.output).not.toContain("\r");
    for (const bad of ["../secret", "/etc/passwd", ".git/config", "sub/../../x", ""]) {
      const r = await s.callTool("view_file_at", { relative_path_from_project_root: bad, reason });
      expect(r.ok, bad).toBe(false);
      expect(r.error?.code, bad).toBe("PATH_OUTSIDE");
    }
    const outside = path.join(root.root, "outside.txt");
    writeFileSync(outside, "secret\n");
    symlinkSync(outside, path.join(s.sandbox.workDir, "link.py"));
    const viaLink = await s.callTool("view_file_at", { relative_path_from_project_root: "link.py", reason });
    expect(viaLink.ok).toBe(false);
    expect(viaLink.output).toContain("outside the project root");
    const missing = await s.callTool("view_file_at", { relative_path_from_project_root: "nope.py", reason });
    expect(missing.error?.code).toBe("NOT_FOUND");
  });

  it("rejects unknown tools and bad arguments without changing anything", async () => {
    const s = await start();
    const before = readFileSync(path.join(s.sandbox.workDir, "win.py"));
    const unknown = await s.callTool("resolve_everything", { reason });
    expect(unknown.error?.code).toBe("UNKNOWN_TOOL");
    expect(unknown.output).toContain("view_current_merge_conflict_with");
    const noReason = await s.callTool("resolve_current_merge_conflict_with", { content: "x" });
    expect(noReason.error?.code).toBe("BAD_ARGUMENTS");
    expect(noReason.output).toContain("reason: required parameter is missing");
    const extra = await s.callTool("resolve_current_merge_conflict_with", { content: "x", reason, force: true });
    expect(extra.output).toContain("unknown parameter(s) force");
    const wrongType = await s.callTool("resolve_current_merge_conflict_with", { content: 7, reason });
    expect(wrongType.ok).toBe(false);
    const notObject = await s.callTool("view_current_merge_conflict_with", [1]);
    expect(notObject.error?.code).toBe("BAD_ARGUMENTS");
    expect(readFileSync(path.join(s.sandbox.workDir, "win.py")).equals(before)).toBe(true);
    expect(s.conflicts.conflicts.every((c) => c.resolved === null)).toBe(true);
  });
});

describe("MCR end to end", () => {
  it("resolving with the merge commit's content gives the merge commit's tree", async () => {
    const before = snapshot(fx);
    const s = await start();
    for (const file of ["win.py", "app.py"]) {
      const conflicted = readFileSync(path.join(s.sandbox.workDir, file));
      for (const text of resolutionsFor(conflicted, blob(fx, merge, file))) {
        const r = await s.callTool("resolve_current_merge_conflict_with", { content: text, reason });
        expect(r.ok, r.output).toBe(true);
      }
    }
    expect(s.isDone()).toBe(true);
    const state = (await s.finalState()) as MergeFinalState;
    expect(state.done).toBe(true);
    expect(state.conflicts_left).toBe(0);
    expect(state.tree).toBe(fx.git("rev-parse", `${merge}^{tree}`));
    const made = state.head as string;
    const format = "--format=%P%n%an <%ae> %ad%n%cn <%ce> %cd%n%B";
    expect((await s.sandbox.text(["log", "-1", format, made])).trimEnd()).toBe(fx.git("log", "-1", format, merge));
    expect(state.files.find((f) => f.path === "app.py")?.content).toBe(blob(fx, merge, "app.py").toString("utf8"));
    const after = await s.callTool("resolve_current_merge_conflict_with", { content: "x", reason });
    expect(after.error?.code).toBe("NO_CONFLICT");
    expect(snapshot(fx)).toEqual(before);
  });

  it("an empty resolution removes the region entirely", async () => {
    const s = await start();
    for (let i = 0; i < 3; i++) await s.callTool("resolve_current_merge_conflict_with", { content: `r${i}\n`, reason });
    const r = await s.callTool("resolve_current_merge_conflict_with", { content: "", reason });
    expect(r.output).toContain("the merge is committed");
    expect(readFileSync(path.join(s.sandbox.workDir, "app.py"), "utf8")).toBe(`r2\n${"a0\na1\na2\na3\na4\na5\na6\na7\n"}`);
    expect(r.done).toBe(true);
  });

  it("state survives a new process: the scenario re-opens from its sandbox", async () => {
    const s = await start();
    await s.callTool("resolve_current_merge_conflict_with", { content: "one\r\n", reason });
    const { openScenario } = await import("../../src/scenarios/index.js");
    const again = (await openScenario(s.sandbox.dir)) as McrScenario;
    const r = await again.callTool("view_current_merge_conflict_with", { context_window_size: 0, reason });
    expect(r.output).toContain("conflict 1 of 4");
    expect(existsSync(s.sandbox.dir)).toBe(true);
  });
});
