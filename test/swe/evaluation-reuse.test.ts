import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Repo } from "../../src/git/repo.js";
import { chooseIsolation } from "../../src/sandbox/isolation.js";
import { evaluatePatch } from "../../src/swe/evaluate.js";
import type { SweOptions } from "../../src/swe/options.js";
import { pythonTaskSetup, type PythonTaskSetup } from "../helpers/python-task.js";
import { CALC_BASE, addedFiles, calcPatch, type PythonTask } from "../helpers/swe.js";

let setup: PythonTaskSetup;
let root: PythonTaskSetup["root"];
let task: PythonTask;
let source: Repo;
let opts: SweOptions;
/** The commit before the task's base: the first instance starts there, the second at the base. */
let earlier: string;

beforeAll(async () => {
  setup = await pythonTaskSetup({ "calc/helpers.py": "HELPER = 1\n" });
  ({ root, task, source, opts } = setup);
  earlier = task.fixture.git("rev-parse", `${task.base}~1`);
}, 60_000);

afterAll(() => setup?.remove());

/** Code the first agent's patch runs when its tests import calc: it leaves things behind in the work tree. */
const PLANT = [
  "import os as _os",
  "",
  "_root = _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))",
  "open(_os.path.join(_root, 'planted.py'), 'w').write('PLANTED = True\\n')",
  "_os.makedirs(_os.path.join(_root, 'calc', 'stash'), exist_ok=True)",
  "open(_os.path.join(_root, 'calc', 'stash', 'answer.txt'), 'w').write('kept\\n')",
  "open(_os.path.join(_root, 'calc', 'helpers.py'), 'w').write('HELPER = 2\\n')",
  "_os.makedirs(_os.path.join(_root, '.git', 'hooks'), exist_ok=True)",
  "open(_os.path.join(_root, '.git', 'hooks', 'post-checkout'), 'w').write('#!/bin/sh\\n')",
  "",
].join("\n");

/** A test the second instance adds: it passes only in a work tree with nothing of the first evaluation's. */
const NO_LEFTOVERS = [
  "import os",
  "",
  "from calc.helpers import HELPER",
  "",
  "",
  "def test_no_leftovers():",
  "    assert HELPER == 1",
  "    assert not os.path.exists('planted.py')",
  "    assert not os.path.exists(os.path.join('calc', 'stash'))",
  "    assert not os.path.exists(os.path.join('.git', 'hooks', 'post-checkout'))",
  "",
].join("\n");

const evalDirs = (): string[] => readdirSync(root.root).filter((n) => n.includes("-eval-"));

describe("an evaluation sandbox reused for the next instance of its environment", () => {
  it("keeps nothing of the previous evaluation: no file its tests wrote, no change to a tracked file, no object of the previous base", async () => {
    const planter = calcPatch(task, `${CALC_BASE}\n${PLANT}`);
    const first = await evaluatePatch(source, task.sample({ base_commit: earlier }, "acme__calc-early"), planter, opts);
    expect(first.status).not.toBe("error");
    const [kept] = evalDirs();
    expect(evalDirs()).toHaveLength(1);

    const testPatch = `${task.testPatch}${addedFiles({ "tests/test_clean.py": NO_LEFTOVERS })}`;
    const second = await evaluatePatch(source, task.sample({ test_patch: testPatch, PASS_TO_PASS: [...task.sample().scenario.PASS_TO_PASS, "tests/test_clean.py::test_no_leftovers"] }), task.gold, opts);
    // The same sandbox, renewed: not a new one.
    expect(evalDirs()).toEqual([kept]);
    expect(second.pass_to_pass.failed).toEqual([]);
    expect(second.status).toBe("resolved");

    // Its object store is the second base's alone: the first base's commit is gone with the old store.
    const gitDir = path.join(root.root, kept as string, "private", "git");
    const objects = execFileSync("git", ["--git-dir", gitDir, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)"], { encoding: "utf8" }).trim().split("\n");
    expect(objects).toContain(task.base);
    expect(objects).not.toContain(earlier);
  }, 180_000);

  it("is never kept where its tests ran unjailed: they could have written gitgood's own git directory", async () => {
    const before = evalDirs();
    const r = await evaluatePatch(source, task.sample({}, "acme__calc-plain"), task.gold, { ...opts, isolation: chooseIsolation({ mode: "none" }) });
    expect(r.status).toBe("resolved");
    expect(evalDirs()).toEqual(before);
  }, 120_000);
});
