import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setupScenario, type LiveScenario } from "../../../src/scenarios/index.js";
import type { SweFinalState } from "../../../src/scenarios/swe/state.js";
import { call, connectInMemory } from "../../helpers/mcp.js";
import { useSandboxRoot } from "../../helpers/scenarios.js";
import { pythonTask, type PythonTask } from "../../helpers/swe.js";
import { RunStore } from "../../../src/runs/store.js";
import { runConfig } from "../../../src/runs/config.js";

let root: ReturnType<typeof useSandboxRoot>;
let task: PythonTask;
let outside: string;

const NO_VALIDATION = { swe: { validate: false } };

beforeAll(() => {
  root = useSandboxRoot();
  outside = mkdtempSync(path.join(os.tmpdir(), "gitgood-swe-canary-"));
  writeFileSync(path.join(outside, "canary.txt"), "untouched\n");
  task = pythonTask();
  symlinkSync(outside, path.join(task.fixture.dir, "out"));
  task.fixture.git("add", "out");
  task.fixture.git("commit", "-q", "--amend", "--no-edit");
}, 60_000);

afterAll(() => {
  task?.fixture.remove();
  root.cleanup();
  rmSync(outside, { recursive: true, force: true });
});

/** The task's sample at the commit after `later` (which holds the link `out` to the canary directory). */
function linkSample() {
  const head = task.fixture.head();
  return task.sample({ base_commit: head }, "acme__calc-link");
}

async function tool(s: LiveScenario, name: string, args: Record<string, unknown>) {
  return s.callTool(name, { reason: "test", ...args });
}

describe("the SWE scenario", () => {
  it("starts at base_commit with no object of the fix or of later commits in the sandbox", async () => {
    const s = await setupScenario(task.sample(), task.fixture.dir, { settings: NO_VALIDATION });
    try {
      const inSandbox = (...args: string[]) => task.fixture.tryGitIn(s.sandbox.workDir, ...args);
      expect(inSandbox("rev-parse", "HEAD").stdout).toBe(task.base);
      expect(inSandbox("cat-file", "-e", task.fix).code).not.toBe(0);
      expect(inSandbox("cat-file", "-e", task.later).code).not.toBe(0);
      const fixedBlob = task.fixture.git("rev-parse", `${task.fix}:calc/__init__.py`);
      expect(inSandbox("cat-file", "-e", fixedBlob).code).not.toBe(0);
      expect(inSandbox("cat-file", "--batch-all-objects", "--batch-check").stdout).not.toContain(fixedBlob);
      const context = await s.initialContext();
      expect(context.text).toContain("calc.sub(3, 1) returns 4");
      expect(context.text).not.toContain("Hints");
    } finally {
      s.close();
    }
  }, 60_000);

  it("runs run_command with none of the host's keys: only the allow-list reaches the command", async () => {
    const s = await setupScenario(task.sample(), task.fixture.dir, { settings: NO_VALIDATION });
    const canary = `swe-run-command-canary-${process.pid}`;
    process.env.FAKE_SWE_API_KEY = canary;
    try {
      const seen = (await tool(s, "run_command", { command: "env" })).output;
      expect(seen).toMatch(/^PATH=/m);
      expect(seen).not.toContain(canary);
    } finally {
      delete process.env.FAKE_SWE_API_KEY;
      s.close();
    }
  }, 60_000);

  it("shows the hints only when asked", async () => {
    const s = await setupScenario(task.sample(), task.fixture.dir, { settings: { swe: { validate: false, hints: true } } });
    try {
      expect((await s.initialContext()).text).toContain("Look at calc/__init__.py.");
    } finally {
      s.close();
    }
  }, 60_000);

  it("lists, views, searches, replaces, creates and runs; the final state is the work tree's diff, new files included", async () => {
    const s = await setupScenario(task.sample(), task.fixture.dir, { settings: NO_VALIDATION });
    try {
      expect((await tool(s, "list_files", {})).output).toMatch(/^calc\/$/m);
      expect((await tool(s, "view_file", { path: "calc/__init__.py", start_line: 5, end_line: 6 })).output).toBe(
        "[gitgood] calc/__init__.py: lines 5-6 of 10\n5  def sub(a, b):\n6      return a + b",
      );
      expect((await tool(s, "search_text", { text: "def sub" })).output).toBe("calc/__init__.py:5: def sub(a, b):");
      const twice = await tool(s, "replace_text", { path: "calc/__init__.py", old_text: "return a + b", new_text: "x" });
      expect(twice.ok).toBe(false);
      expect(twice.output).toMatch(/occurs 2 times/);
      expect((await tool(s, "replace_text", { path: "calc/__init__.py", old_text: "def sub(a, b):\n    return a + b", new_text: "def sub(a, b):\n    return a - b" })).ok).toBe(true);
      expect((await tool(s, "create_file", { path: "docs/new/notes.md", content: "sub subtracts\n" })).ok).toBe(true);
      const run = await tool(s, "run_command", { command: "ls docs/new && echo done >&2 && exit 3" });
      expect(run.output).toBe("The command exited with code 3.\n--- stdout ---\nnotes.md\n\n--- stderr ---\ndone\n");
      const fin = await tool(s, "finish", {});
      expect(fin.done).toBe(true);
      expect((await tool(s, "create_file", { path: "late.txt", content: "x" })).ok).toBe(false);
      const final = (await s.finalState()) as SweFinalState;
      expect(final.encoding).toBe("utf8");
      expect(final.patch).toContain("+    return a - b");
      expect(final.patch).toContain("diff --git a/docs/new/notes.md b/docs/new/notes.md\nnew file mode 100644");
      // The patch applies at base_commit as it is.
      const check = task.fixture.scratch("apply-check");
      task.fixture.gitIn(check, "init", "-q");
      task.fixture.git("worktree", "add", "-q", "--detach", path.join(check, "wt"), task.base);
      writeFileSync(path.join(check, "final.patch"), final.patch);
      expect(task.fixture.tryGitIn(path.join(check, "wt"), "apply", "--check", path.join(check, "final.patch")).code).toBe(0);
    } finally {
      s.close();
    }
  }, 60_000);

  it("tools cannot read or write outside the work tree through a symbolic link (canary)", async () => {
    const s = await setupScenario(linkSample(), task.fixture.dir, { settings: NO_VALIDATION });
    try {
      expect((await tool(s, "list_files", {})).output).toContain(`out -> ${outside} (symbolic link)`);
      for (const [name, args] of [
        ["create_file", { path: "out/pwned.txt", content: "pwned" }],
        ["replace_text", { path: "out/canary.txt", old_text: "untouched", new_text: "pwned" }],
        ["view_file", { path: "out/canary.txt" }],
        ["search_text", { text: "untouched", path: "out" }],
        ["list_files", { path: "out" }],
        ["create_file", { path: "../escape.txt", content: "pwned" }],
        ["create_file", { path: ".git/hooks/pre-commit", content: "pwned" }],
      ] as const) {
        const r = await tool(s, name, args);
        expect(r.ok, `${name} ${JSON.stringify(args)}`).toBe(false);
      }
      expect((await tool(s, "search_text", { text: "untouched" })).output).toMatch(/^No line holds/);
    } finally {
      s.close();
    }
    expect(readFileSync(path.join(outside, "canary.txt"), "utf8")).toBe("untouched\n");
    expect(existsSync(path.join(outside, "pwned.txt"))).toBe(false);
  }, 60_000);

  it("is served over MCP with the same tools", async () => {
    const out = mkdtempSync(path.join(os.tmpdir(), "gitgood-swe-mcp-"));
    try {
      const store = RunStore.open(out, runConfig({ samples: ["swe.jsonl"], agent: "mcp" }, (p) => path.resolve(p)));
      const recorder = { store, judges: [], agent: "mcp", settings: NO_VALIDATION };
      const { client } = await connectInMemory({ mode: "single", sample: task.sample(), where: { repo: task.fixture.dir }, recorder });
      const names = (await client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(["list_files", "view_file", "search_text", "replace_text", "create_file", "run_command", "finish"]));
      const viewed = await call(client, "view_file", { path: "calc/__init__.py", start_line: 6, end_line: 6, reason: "look" });
      expect(viewed.text).toContain("6      return a + b");
      await client.close();
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 60_000);
});
