import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Repo } from "../../src/git/repo.js";
import type { Sandbox } from "../../src/sandbox/sandbox.js";
import { applyAgentChange, infrastructureAt } from "../../src/testenv/fresh-tree.js";
import { useSandboxRoot } from "../helpers/scenarios.js";
import { CALC_BASE, inEvaluationSandbox, pythonTask, type PythonTask } from "../helpers/swe.js";

const PYTEST_INI = "[pytest]\naddopts = -p helpers.plug\n";

let root: ReturnType<typeof useSandboxRoot>;
let task: PythonTask;
let source: Repo;

beforeAll(async () => {
  root = useSandboxRoot();
  task = pythonTask({ "pytest.ini": PYTEST_INI, "helpers/plug.py": "X = 1\n" });
  source = await Repo.open(task.fixture.dir);
}, 60_000);

afterAll(() => {
  task?.fixture.remove();
  root.cleanup();
});

function withSandbox(work: (s: Sandbox) => Promise<void>): Promise<void> {
  return inEvaluationSandbox(source, task.sample(), "fresh-tree", work);
}

describe("the evaluation's files in a fresh sandbox", () => {
  it("owns the plug-in the configuration at base names, as the commit has it even where the work tree's copy was rewritten", async () => {
    await withSandbox(async (s) => {
      expect((await infrastructureAt(s, task.base, [])).owns("helpers/plug.py")).toBe(true);
      // A set-up that rewrote pytest.ini does not change what the commit's configuration names.
      writeFileSync(path.join(s.workDir, "pytest.ini"), "[pytest]\naddopts = -p helpers.other\n");
      const infra = await infrastructureAt(s, task.base, []);
      expect(infra.owns("helpers/plug.py")).toBe(true);
      expect(infra.owns("helpers/other.py")).toBe(false);
    });
  }, 60_000);

  it("an evaluation file the application changed outside the patch's sections is put back and recorded; a change of nothing is no change", async () => {
    await withSandbox(async (s) => {
      const infra = await infrastructureAt(s, task.base, ["tests/test_sub.py"]);
      const code = "diff --git a/calc/__init__.py b/calc/__init__.py\n--- a/calc/__init__.py\n+++ b/calc/__init__.py\n@@ -1,2 +1,2 @@\n-def add(a, b):\n+def add(a, c):\n     return a + b\n";
      const change = await applyAgentChange(s, task.base, Buffer.from(code), infra, async () => {
        // As an application through a link or a fuzzy match could: the evaluation's files written beside the code.
        writeFileSync(path.join(s.workDir, "calc/__init__.py"), CALC_BASE.replace("def add(a, b)", "def add(a, c)"));
        writeFileSync(path.join(s.workDir, "tests/test_calc.py"), "def test_add():\n    pass\n");
        writeFileSync(path.join(s.workDir, "conftest.py"), "import pytest\n");
        writeFileSync(path.join(s.workDir, "helpers/plug.py"), "X = 2\n");
        return true;
      });
      expect(change).toMatchObject({ applied: true, changed: true, tampered: ["conftest.py", "helpers/plug.py", "tests/test_calc.py"] });
      expect(existsSync(path.join(s.workDir, "conftest.py"))).toBe(false);
      expect(readFileSync(path.join(s.workDir, "helpers/plug.py"), "utf8")).toBe("X = 1\n");
      expect(readFileSync(path.join(s.workDir, "tests/test_calc.py"), "utf8")).not.toContain("pass");
      const none = await applyAgentChange(s, task.base, Buffer.from(code), infra, async () => {
        writeFileSync(path.join(s.workDir, "calc/__init__.py"), CALC_BASE);
        return true;
      });
      expect(none).toMatchObject({ applied: true, changed: false, tampered: [] });
    });
  }, 60_000);
});
