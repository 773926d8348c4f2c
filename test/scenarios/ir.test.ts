import { existsSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ChainSample } from "../../src/dataset/sample.js";
import { setupScenario } from "../../src/scenarios/index.js";
import type { IrScenario } from "../../src/scenarios/ir/scenario.js";
import type { HistoryFinalState, LiveScenario } from "../../src/scenarios/types.js";
import type { Fixture } from "../helpers/fixture.js";
import { buildChainFixture, snapshot, useSandboxRoot } from "../helpers/scenarios.js";

let root: ReturnType<typeof useSandboxRoot>;
let fx: Fixture;
let commits: string[];
let base: string;
let sample: ChainSample;
const open: LiveScenario[] = [];
const reason = "test";

beforeAll(() => {
  root = useSandboxRoot();
  ({ fx, commits, base, sample } = buildChainFixture());
});
afterAll(() => {
  fx.remove();
  root.cleanup();
});
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});

async function start(): Promise<IrScenario> {
  const s = await setupScenario(sample, fx.dir, { scenario: "ir" });
  open.push(s);
  return s as IrScenario;
}

const picks = (order: number[]): { commit_index: number; command: string }[] =>
  order.map((i) => ({ commit_index: i, command: "pick" }));

describe("IR set-up", () => {
  it("starts an interactive rebase over the chain, paused before any step", async () => {
    const s = await start();
    expect(existsSync(path.join(s.sandbox.repo.gitDir, "rebase-merge"))).toBe(true);
    expect((await s.sandbox.text(["rev-parse", "HEAD"])).trim()).toBe(base);
    expect(s.chain.commits.map((c) => c.oid)).toEqual(commits);
    expect(s.todo).toEqual(picks([0, 1, 2, 3]));
    expect(s.phase).toBe("planning");
  });

  it("gives every commit with its message and diff", async () => {
    const s = await start();
    const ctx = await s.initialContext();
    const data = ctx.data as { commits: { commit: string; message: string; diff: string }[] };
    expect(data.commits.map((c) => c.commit)).toEqual(commits);
    expect(data.commits[2]?.message).toBe("Return 11 from a()\n\nBody line one.\nBody line two.");
    expect(data.commits[1]?.diff).toContain("+++ b/notes.txt");
    expect(ctx.text).toContain("=== commit 1:");
    expect(ctx.text).toContain("Rebase todo list");
  });

  it("needs the scenario kind for a chain sample", async () => {
    await expect(setupScenario(sample, fx.dir)).rejects.toMatchObject({ code: "BAD_OPTION" });
    await expect(setupScenario(sample, fx.dir, { scenario: "mcr" })).rejects.toMatchObject({ code: "BAD_OPTION" });
  });

  it("rejects a sample whose chain does not match the history", async () => {
    const wrong = { ...sample, scenario: { ...sample.scenario, times_seen_consecutively: 3 } };
    await expect(setupScenario(wrong, fx.dir, { scenario: "ir" })).rejects.toMatchObject({ code: "SAMPLE_MISMATCH" });
  });
});

describe("IR tools", () => {
  it("shows the todo and one commit's changes; rejects an index out of range", async () => {
    const s = await start();
    const todo = await s.callTool("view_rebase_todo", { reason });
    expect(todo.output).toContain(`0. pick     commit 0 ${commits[0]?.slice(0, 12)} "Add b()"`);
    expect(todo.output).toContain("paused before its first step");
    const show = await s.callTool("show_changes_in", { commit_index: 2, reason });
    expect(show.output).toContain(`commit 2: ${commits[2]}`);
    expect(show.output).toContain("Body line two.");
    expect(show.output).toContain("-    return 1\n+    return 11");
    expect(show.output).toContain("deleted file mode");
    const bad = await s.callTool("show_changes_in", { commit_index: 4, reason });
    expect(bad.error?.code).toBe("INDEX_OUT_OF_RANGE");
  });

  it.each([
    ["an unknown command", [{ commit_index: 0, command: "edit" }, ...picks([1, 2, 3])], "BAD_ARGUMENTS", "expected one of"],
    ["the other spelling of fixup -C", [...picks([0, 1, 2]), { commit_index: 3, command: "fixup -c" }], "BAD_ARGUMENTS", "command"],
    ["squash without a message", [...picks([0, 1, 2]), { commit_index: 3, command: "squash" }], "BAD_TODO", "commit_msg is required for squash"],
    ["reword with a blank message", [...picks([0, 1, 2]), { commit_index: 3, command: "reword", commit_msg: "  " }], "BAD_TODO", "commit_msg is required for reword"],
    ["a message on pick", [{ commit_index: 0, command: "pick", commit_msg: "x" }, ...picks([1, 2, 3])], "BAD_TODO", "only allowed with squash and reword"],
    ["a commit twice", picks([0, 1, 2, 3, 3]), "BAD_TODO", "commit 3 appears 2 times"],
    ["a commit missing", picks([0, 1, 2]), "BAD_TODO", "commit(s) 3 have no item"],
    ["an index out of range", picks([0, 1, 2, 3, 4]), "BAD_TODO", "there is no commit 4"],
    ["fixup with nothing before", [{ commit_index: 0, command: "fixup" }, ...picks([1, 2, 3])], "BAD_TODO", "no kept commit comes before"],
    ["an empty list", [], "BAD_TODO", "the list is empty"],
  ])("rejects %s and keeps the old list", async (_what, items, code, text) => {
    const s = await start();
    const r = await s.callTool("update_rebase_todo_list", { rebase_todo_list_items: items, reason });
    expect(r.ok).toBe(false);
    expect(r.error?.code).toBe(code);
    expect(r.output).toContain(text);
    expect(s.todo).toEqual(picks([0, 1, 2, 3]));
  });

  it("names every problem of a list at once", async () => {
    const s = await start();
    const r = await s.callTool("update_rebase_todo_list", {
      rebase_todo_list_items: [{ commit_index: 1, command: "squash" }, { commit_index: 1, command: "drop", commit_msg: "m" }],
      reason,
    });
    expect(r.output).toContain("commit_msg is required for squash");
    expect(r.output).toContain("only allowed with squash and reword");
    expect(r.output).toContain("commit 1 appears 2 times");
    expect(r.output).toContain("commit(s) 0, 2, 3 have no item");
  });
});

async function history(s: LiveScenario): Promise<{ tree: string; message: string; author: string }[]> {
  const state = (await s.finalState()) as HistoryFinalState;
  const out = [];
  for (const c of state.commits) {
    out.push({
      tree: (await s.sandbox.text(["rev-parse", `${c.oid}^{tree}`])).trim(),
      message: c.message,
      author: `${c.author.name} ${c.author.date}`,
    });
  }
  return out;
}

function original(): { tree: string; message: string; author: string }[] {
  return commits.map((c) => ({
    tree: fx.git("rev-parse", `${c}^{tree}`),
    message: fx.git("log", "-1", "--format=%B", c),
    author: fx.git("log", "-1", "--format=%an %ad", "--date=raw", c),
  }));
}

describe("IR end to end", () => {
  it("pick all with the original messages reproduces the chain", async () => {
    const before = snapshot(fx);
    const s = await start();
    const r = await s.callTool("update_rebase_todo_list", { rebase_todo_list_items: picks([0, 1, 2, 3]), reason });
    expect(r.ok, r.output).toBe(true);
    const done = await s.callTool("execute_rebase", { reason });
    expect(done.ok, done.output).toBe(true);
    expect(done.output).toContain("The rebase finished");
    expect(done.done).toBe(true);
    expect(await history(s)).toEqual(original());
    const state = (await s.finalState()) as HistoryFinalState;
    expect(state.base).toBe(base);
    expect(state.tree).toBe(fx.git("rev-parse", `${commits[3]}^{tree}`));
    expect(state.commits[0]?.diff).toContain("+def b():");
    const late = await s.callTool("update_rebase_todo_list", { rebase_todo_list_items: picks([0, 1, 2, 3]), reason });
    expect(late.error?.code).toBe("REBASE_DONE");
    expect(snapshot(fx)).toEqual(before);
  });

  it("reword with the original messages and drop everything are both plain outcomes", async () => {
    const s = await start();
    const messages = commits.map((c) => fx.git("log", "-1", "--format=%B", c));
    const r = await s.callTool("update_rebase_todo_list", {
      rebase_todo_list_items: messages.map((m, i) => ({ commit_index: i, command: "reword", commit_msg: m })),
      reason,
    });
    expect(r.ok, r.output).toBe(true);
    await s.callTool("execute_rebase", { reason });
    expect(await history(s)).toEqual(original());

    const t = await start();
    await t.callTool("update_rebase_todo_list", {
      rebase_todo_list_items: [0, 1, 2, 3].map((i) => ({ commit_index: i, command: "drop", commit_msg: null })),
      reason,
    });
    const done = await t.callTool("execute_rebase", { reason });
    expect(done.ok, done.output).toBe(true);
    const state = (await t.finalState()) as HistoryFinalState;
    expect(state.done).toBe(true);
    expect(state.commits).toEqual([]);
    expect(state.head).toBe(base);
  });

  it("reword, squash, fixup -C, fixup and drop, with messages passed safely", async () => {
    const s = await start();
    const tricky = `Rename z() to last()\n\nIt's "quoted", has $HOME, \`ticks\`, a # line,\n# and ünïcödé ✓; 'single' too.`;
    const squashed = "Add b() and c()\n\nSquashed.";
    const r = await s.callTool("update_rebase_todo_list", {
      rebase_todo_list_items: [
        { commit_index: 0, command: "pick" },
        { commit_index: 1, command: "reword", commit_msg: tricky },
        { commit_index: 2, command: "fixup -C" },
        { commit_index: 3, command: "squash", commit_msg: squashed },
      ],
      reason,
    });
    expect(r.ok, r.output).toBe(true);
    const done = await s.callTool("execute_rebase", { reason });
    expect(done.ok, done.output).toBe(true);
    const h = await history(s);
    expect(h.map((c) => c.message)).toEqual(["Add b()", squashed]);
    expect(h[1]?.tree).toBe(fx.git("rev-parse", `${commits[3]}^{tree}`));
    expect(h[0]?.tree).toBe(fx.git("rev-parse", `${commits[0]}^{tree}`));

    const t = await start();
    await t.callTool("update_rebase_todo_list", {
      rebase_todo_list_items: [
        { commit_index: 0, command: "pick" },
        { commit_index: 1, command: "reword", commit_msg: tricky },
        { commit_index: 2, command: "fixup" },
        { commit_index: 3, command: "drop" },
      ],
      reason,
    });
    await t.callTool("execute_rebase", { reason });
    const h2 = await history(t);
    expect(h2.map((c) => c.message)).toEqual(["Add b()", tricky]);
    expect(h2[1]?.tree).toBe(fx.git("rev-parse", `${commits[2]}^{tree}`));
  });

  it("a reordering that conflicts stops with the conflict shown; abort goes back to the paused start", async () => {
    const s = await start();
    await s.callTool("update_rebase_todo_list", { rebase_todo_list_items: picks([0, 1, 3, 2]), reason });
    const r = await s.callTool("execute_rebase", { reason });
    expect(r.ok, r.output).toBe(true);
    expect(r.output).toContain("The rebase stopped: applying commit 3 (\"Add c(), return 111 from a()\") conflicts in lib.py");
    expect(s.phase).toBe("conflict");
    expect(r.done).toBe(false);
    const view = await s.callTool("view_current_merge_conflict_with", { context_window_size: 1, reason });
    expect(view.output).toContain("conflict 0 of 1 (0-based, unresolved) in lib.py");
    const blocked = await s.callTool("update_rebase_todo_list", { rebase_todo_list_items: picks([0, 1, 2, 3]), reason });
    expect(blocked.error?.code).toBe("REBASE_STOPPED");
    const aborted = await s.callTool("abort_rebase", { reason });
    expect(aborted.ok, aborted.output).toBe(true);
    expect(s.phase).toBe("planning");
    expect(s.todo).toEqual(picks([0, 1, 3, 2]));
    expect((await s.sandbox.text(["rev-parse", "HEAD"])).trim()).toBe(base);
    const noStop = await s.callTool("abort_rebase", { reason });
    expect(noStop.error?.code).toBe("NO_REBASE_STOP");
    const noConflict = await s.callTool("view_current_merge_conflict_with", { context_window_size: 1, reason });
    expect(noConflict.error?.code).toBe("NO_CONFLICT");
    // Executing the original order now reproduces the chain.
    await s.callTool("update_rebase_todo_list", { rebase_todo_list_items: picks([0, 1, 2, 3]), reason });
    await s.callTool("execute_rebase", { reason });
    expect(await history(s)).toEqual(original());
  });

  it("conflicts resolved with the MCR-style tools let the rebase carry on to the end", async () => {
    const s = await start();
    await s.callTool("update_rebase_todo_list", { rebase_todo_list_items: picks([0, 1, 3, 2]), reason });
    let r = await s.callTool("execute_rebase", { reason });
    let stops = 0;
    while (s.phase === "conflict" && stops++ < 10) {
      // Resolve every stop by taking the side of the commit being applied.
      const view = await s.callTool("view_current_merge_conflict_with", { context_window_size: 0, reason });
      const region = view.output.split("\n");
      const theirs = region.slice(region.indexOf("=======") + 1, region.findIndex((l) => l.startsWith(">>>>>>>")));
      r = await s.callTool("resolve_current_merge_conflict_with", { content: `${theirs.join("\n")}\n`, reason });
      expect(r.ok, r.output).toBe(true);
    }
    expect(stops).toBe(2);
    expect(s.phase).toBe("done");
    expect(r.done).toBe(true);
    const state = (await s.finalState()) as HistoryFinalState;
    expect(state.commits.map((c) => c.message.split("\n")[0])).toEqual([
      "Add b()",
      "Rename z() to last() — «naïve» \"quoted\" 'single'",
      "Add c(), return 111 from a()",
      "Return 11 from a()",
    ]);
    expect(await s.sandbox.text(["show", "HEAD:lib.py"])).toContain("    return 11\n");
    expect(state.pending).toBeNull();
  });
});
