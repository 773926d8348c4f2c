import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { ScriptedModelClient } from "../../src/model/scripted.js";
import { DESCRIBE_PROMPT_VERSION, quotableLines } from "../../src/swe/mine/describe.js";
import { instanceRecord } from "../../src/swe/mine/instance.js";
import { mineSwe } from "../../src/swe/mine/mine.js";
import { gitgood } from "../helpers/cli.js";
import { useCacheDir } from "../helpers/envs.js";
import { Fixture } from "../helpers/fixture.js";
import { useSandboxRoot } from "../helpers/scenarios.js";
import { CALC_BASE } from "../helpers/swe.js";

let root: ReturnType<typeof useSandboxRoot>;
let cache: ReturnType<typeof useCacheDir>;
let f: Fixture;
let fix: string;

beforeAll(() => {
  root = useSandboxRoot();
  cache = useCacheDir();
  f = new Fixture();
  f.commit("calc", { "pyproject.toml": '[project]\nname = "calc"\n', "calc/__init__.py": CALC_BASE });
  f.commit("Docs", { "README.md": "calc\n" });
  fix = f.commit("Fix sub", {
    "calc/__init__.py": CALC_BASE.replace("def sub(a, b):\n    return a + b", "def sub(a, b):\n    return a - b"),
    "tests/test_sub.py": "from calc import sub\n\n\ndef test_sub():\n    assert sub(3, 1) == 2\n",
  });
});

afterAll(() => {
  f?.remove();
  root?.cleanup();
  cache?.cleanup();
});

describe("problem statements written by a model (--describe-with)", () => {
  it("refuses a statement that quotes the fix, keeps one that does not, and records model and prompt", async () => {
    const leaky = "calc.sub is wrong. Change it to `return a - b` please.";
    const clean = "Calling `calc.sub(3, 1)` returns 4, but subtracting 1 from 3 should give 2.";
    const model = new ScriptedModelClient([leaky, clean], "writer-1");
    const r = await mineSwe({ repoPath: f.dir, name: "acme/calc", runs: 1, jobs: 1, describeWith: model, swe: { cacheDir: cache.dir, testTimeoutSeconds: 120 } });
    const m = r.instances[0];
    expect(m?.commit).toBe(fix);
    expect(m?.sample.scenario.problem_statement).toBe(clean);
    // The commit's own words become the hints, shown to an agent only with --hints.
    expect(m?.sample.scenario.hints_text).toBe("Fix sub");
    expect(instanceRecord(m!)).toMatchObject({ problem_statement_source: "model:writer-1", problem_statement_prompt: DESCRIBE_PROMPT_VERSION });
    const patch = m?.sample.scenario.patch ?? "";
    expect(quotableLines(patch)).toContain("return a - b");
    for (const line of quotableLines(patch)) expect(m?.sample.scenario.problem_statement).not.toContain(line);
    // The model saw the fix and the failing test, and was told why its first answer was refused.
    expect(model.requests[0]?.messages.at(-1)?.content).toContain("tests/test_sub.py::test_sub");
    expect(model.requests[1]?.messages.at(-1)?.content).toMatch(/quotes the change/);
  }, 120_000);

  it("keeps the commit's words, with a warning, when every statement quotes the fix", async () => {
    const leaky = "Make it `return a - b`.";
    const model = new ScriptedModelClient([leaky, leaky, leaky], "writer-2");
    const r = await mineSwe({ repoPath: f.dir, name: "acme/calc", runs: 1, jobs: 1, describeWith: model, swe: { cacheDir: cache.dir, testTimeoutSeconds: 120 } });
    expect(r.instances[0]?.sample.scenario.problem_statement).toBe("Fix sub");
    expect(r.instances[0]?.problem_statement_source).toBe("commit");
    expect(r.instances[0]?.sample.scenario.hints_text).toBe("");
    expect(r.summary.warnings.join("\n")).toMatch(/quoted the change/);
  }, 120_000);
});

describe("gitgood mine --type swe", () => {
  it("writes SWE-bench JSONL, the rejects and the specs that worked, and prints the funnel", async () => {
    const out = path.join(cache.dir, "out");
    const args = ["mine", f.dir, "--type", "swe", "--name", "acme/calc", "--runs", "2", "-j", "1"];
    const r = await gitgood([...args, "-o", `${out}.jsonl`, "--rejects", `${out}-rejects.jsonl`, "--env-spec-out", `${out}-env.yaml`], {
      env: { GITGOOD_CACHE_DIR: cache.dir },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^mined 1 SWE instances from acme\/calc \(3 commits, 1 candidates, 1 validated, 0 from an earlier mining\)/m);
    expect(r.stderr).toMatch(/^ {4}no_tests +1 +touches no test file/m);
    const rows = readFileSync(`${out}.jsonl`, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(Object.keys(rows[0] ?? {}).slice(0, 12)).toEqual([
      "repo", "instance_id", "base_commit", "patch", "test_patch", "problem_statement", "hints_text", "created_at", "version", "FAIL_TO_PASS", "PASS_TO_PASS", "environment_setup_commit",
    ]);
    expect(rows[0]).toMatchObject({ FAIL_TO_PASS: ["tests/test_sub.py::test_sub"], problem_statement_source: "commit" });
    expect(readFileSync(`${out}-rejects.jsonl`, "utf8")).toMatch(/"reason":"no_tests"/);
    const env = parseYaml(readFileSync(`${out}-env.yaml`, "utf8")) as { envs: Record<string, Record<string, { kind: string; test: string }>> };
    expect(Object.values(env.envs["acme/calc"] ?? {})[0]).toMatchObject({ kind: "python" });

    const again = await gitgood([...args, "--json"], { env: { GITGOOD_CACHE_DIR: cache.dir } });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stderr)).toMatchObject({ instances: 1, validated: 1, reused: 1 });
    expect(again.stdout.trim()).toBe(readFileSync(`${out}.jsonl`, "utf8").trim());
  }, 120_000);

  it("bad options are one line and exit code 2", async () => {
    const r = await gitgood(["mine", f.dir, "--type", "swe", "--since", "last tuesday"]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/--since takes a date/);
    const lang = await gitgood(["mine", f.dir, "--type", "swe", "--languages", "go"]);
    expect(lang.code).toBe(2);
    expect(lang.stderr).toMatch(/SWE mining knows the test files of python, javascript, typescript, java, kotlin, not go/);
  });
});
