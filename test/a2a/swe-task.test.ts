import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SWE_PARTICIPANT_TASK } from "../../src/families/swe/a2a-task.js";
import { chooseIsolation } from "../../src/sandbox/isolation.js";
import { pythonTask } from "../helpers/swe.js";

const task = pythonTask();
afterAll(() => task.fixture.remove());

describe("the A2A participant's SWE answer", () => {
  it("is REPO_DIR's diff without the byte-code caches running the code wrote", async () => {
    const repoDir = task.fixture.scratch("repo-dir");
    mkdirSync(path.join(repoDir, "calc"));
    writeFileSync(path.join(repoDir, "calc", "__init__.py"), "def sub(a, b):\n    return a + b\n");
    const work = await SWE_PARTICIPANT_TASK.open(`REPO_DIR: ${repoDir}\n\nProblem Statement:\nsub adds`, { isolation: chooseIsolation({ mode: "none" }), commandTimeoutSeconds: 10 });
    try {
      writeFileSync(path.join(repoDir, "calc", "__init__.py"), "def sub(a, b):\n    return a - b\n");
      mkdirSync(path.join(repoDir, "calc", "__pycache__"));
      writeFileSync(path.join(repoDir, "calc", "__pycache__", "__init__.cpython-311.pyc"), Buffer.from([0xa7, 0x0d, 0x0d, 0x0a, 0, 1, 2, 255]));
      writeFileSync(path.join(repoDir, "stale.pyc"), Buffer.from([0xa7, 0x0d, 0, 0]));
      const answer = await work.answer();
      expect(answer).toMatch(/^<patch>\ndiff --git a\/calc\/__init__\.py b\/calc\/__init__\.py\n/);
      expect(answer).toContain("+    return a - b\n");
      expect(answer).not.toMatch(/__pycache__|\.pyc/);
      expect(answer.match(/^diff --git/gm)).toHaveLength(1);
    } finally {
      work.close();
    }
  });
});
