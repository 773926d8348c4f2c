import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ResultRecord } from "../../../src/runs/record.js";
import { gitgood } from "../../helpers/cli.js";
import { useCacheDir } from "../../helpers/envs.js";
import { useSandboxRoot } from "../../helpers/scenarios.js";
import { pythonTask, type PythonTask } from "../../helpers/swe.js";

/**
 * A SWE run over a project whose `.gitattributes` asks for a conversion its own commit does not follow
 * (mockito's `gradlew.bat text eol=crlf` over a blob committed with CRLF): the agent's recorded patch holds
 * what it changed and nothing of that file, and the evaluation, which checks the base out with the
 * project's attributes, still resolves the instance.
 */

let root: ReturnType<typeof useSandboxRoot>;
let cache: ReturnType<typeof useCacheDir>;
let task: PythonTask;
let samples: string;
let dir: string;

const CRLF_BAT = "@echo off\r\nrem run the tests\r\npython -m pytest\r\n";

/** The agent: fixes calc.sub in the work tree with a shell command, nothing else. */
const FIX_SUB = `python3 -c "p='calc/__init__.py'; s=open(p).read(); open(p,'w').write(s.replace('def sub(a, b):\\n    return a + b', 'def sub(a, b):\\n    return a - b'))"`;

beforeAll(() => {
  root = useSandboxRoot();
  cache = useCacheDir();
  task = pythonTask();
  const f = task.fixture;
  // The script is committed before the attribute, so git never normalised it: its blob holds CRLF.
  f.git("checkout", "-q", "-b", "windows", task.base);
  f.commit("Windows script", { "run.bat": CRLF_BAT });
  f.write({ ".gitattributes": "*.bat text eol=crlf\n" });
  f.git("add", ".gitattributes");
  f.git("commit", "-q", "-m", "Line endings of Windows scripts");
  expect(f.git("cat-file", "blob", "HEAD:run.bat")).toContain("\r\n");
  dir = f.scratch("swe-attributes");
  // As SWE-bench publishes instances: a JSON list, the test lists as JSON strings.
  const sc = task.sample({ base_commit: f.head() }, "acme__calc-crlf").scenario;
  samples = path.join(dir, "instances.json");
  writeFileSync(samples, JSON.stringify([{ ...sc, FAIL_TO_PASS: JSON.stringify(sc.FAIL_TO_PASS), PASS_TO_PASS: JSON.stringify(sc.PASS_TO_PASS) }]));
}, 60_000);

afterAll(() => {
  task?.fixture.remove();
  root.cleanup();
  cache.cleanup();
});

function onlyRecord(out: string): ResultRecord {
  const lines = readFileSync(path.join(out, "results.jsonl"), "utf8").trim().split("\n");
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0] as string) as ResultRecord;
}

describe("a SWE run over a project with a CRLF blob under `text eol=crlf`", () => {
  it.each([
    ["command", ["--agent", "command", "--command", FIX_SUB]],
    ["gold", ["--agent", "gold"]],
  ])("the %s agent's recorded patch holds its fix and no change of the script, and resolves", async (name, agent) => {
    const out = path.join(dir, `run-${name}`);
    const preds = path.join(dir, `${name}-predictions.jsonl`);
    const r = await gitgood(["run", samples, "--repo", task.fixture.dir, ...agent, "--out", out, "--predictions-out", preds], { env: { GITGOOD_CACHE_DIR: cache.dir } });
    expect(r.code, r.stderr).toBe(0);
    const patch = (JSON.parse(readFileSync(preds, "utf8").trim()) as { model_patch: string }).model_patch;
    expect(patch.match(/^diff --git .*$/gm)).toEqual(["diff --git a/calc/__init__.py b/calc/__init__.py"]);
    expect(patch).toContain("-    return a + b\n+    return a - b\n");
    expect(onlyRecord(out)).toMatchObject({ status: "success", verdict: "solved", scores: { swe: { status: "resolved", resolution: "RESOLVED_FULL", apply_strategy: "git apply" } } });
  }, 240_000);
});
