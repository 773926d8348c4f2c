import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PYTEST_COMMAND } from "../../../src/testenv/defaults.js";
import type { ResultRecord } from "../../../src/runs/record.js";
import { gitgood } from "../../helpers/cli.js";
import { useCacheDir } from "../../helpers/envs.js";
import { useSandboxRoot } from "../../helpers/scenarios.js";
import { P2P, pythonTask, type PythonTask } from "../../helpers/swe.js";

let root: ReturnType<typeof useSandboxRoot>;
let cache: ReturnType<typeof useCacheDir>;
let task: PythonTask;
let dir: string;
let instances: string;

beforeAll(() => {
  root = useSandboxRoot();
  cache = useCacheDir();
  task = pythonTask();
  dir = task.fixture.scratch("swe-cli");
  // As SWE-bench publishes them: a JSON list, the test lists as JSON strings.
  const published = [task.sample().scenario, task.sample({ FAIL_TO_PASS: [...task.sample().scenario.FAIL_TO_PASS, P2P[0] as string] }, "acme__calc-2").scenario].map(
    (sc) => ({ ...sc, FAIL_TO_PASS: JSON.stringify(sc.FAIL_TO_PASS), PASS_TO_PASS: JSON.stringify(sc.PASS_TO_PASS), difficulty: "<15 min fix" }),
  );
  instances = path.join(dir, "instances.json");
  writeFileSync(instances, JSON.stringify(published));
}, 60_000);

afterAll(() => {
  task?.fixture.remove();
  root.cleanup();
  cache.cleanup();
});

function records(out: string): Map<string, ResultRecord> {
  const lines = readFileSync(path.join(out, "results.jsonl"), "utf8").trim().split("\n");
  return new Map(lines.map((l) => JSON.parse(l) as ResultRecord).map((r) => [r.sample_id, r]));
}

const env = () => ({ GITGOOD_CACHE_DIR: cache.dir });

describe("gitgood with SWE-bench instances", () => {
  it("imports them as swe samples (lists from JSON strings, difficulty from the Verified annotation)", async () => {
    const out = path.join(dir, "swe.jsonl");
    const r = await gitgood(["dataset", "import", instances, "-o", out]);
    expect(r.code, r.stderr).toBe(0);
    const [first] = readFileSync(out, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(first).toMatchObject({ id: "acme__calc-1", name: "acme/calc", sample_type: "swe", difficulty: "easy", programming_language: "Python" });
    expect((first?.scenario as { FAIL_TO_PASS: string[] }).FAIL_TO_PASS).toEqual(task.sample().scenario.FAIL_TO_PASS);
  });

  it("--agent gold resolves a valid instance; an invalid one is env_invalid, a success and unjudged; --predictions-out writes the patches", async () => {
    const out = path.join(dir, "run-gold");
    const preds = path.join(dir, "gold-predictions.jsonl");
    const r = await gitgood(["run", instances, "--repo", task.fixture.dir, "--agent", "gold", "--out", out, "--predictions-out", preds], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    const recs = records(out);
    expect(recs.get("acme__calc-1")).toMatchObject({ scenario: "SWE", status: "success", verdict: "solved", scores: { swe: { status: "resolved", resolution: "RESOLVED_FULL", apply_strategy: "git apply" } } });
    expect(recs.get("acme__calc-2")).toMatchObject({ status: "success", verdict: "unjudged", scores: { swe: { status: "env_invalid" } } });
    expect((recs.get("acme__calc-2")?.scores.swe as { reason: string }).reason).toMatch(/FAIL_TO_PASS test\(s\) already pass/);
    const lines = readFileSync(preds, "utf8").trim().split("\n").map((l) => JSON.parse(l) as Record<string, string>);
    // The gold agent's answer is its work tree's diff (full blob ids), which the official harness takes as well.
    expect(lines[0]).toEqual({ instance_id: "acme__calc-1", model_name_or_path: "gold", model_patch: expect.stringContaining("+    return a - b\n") });
    expect(lines[1]).toEqual({ instance_id: "acme__calc-2", model_name_or_path: "gold", model_patch: "" });
  }, 240_000);

  it("--agent empty is no_op; a predictions file is evaluated without an agent", async () => {
    const empty = path.join(dir, "run-empty");
    expect((await gitgood(["run", instances, "--repo", task.fixture.dir, "--agent", "empty", "--out", empty, "--ids", "acme__calc-1"], { env: env() })).code).toBe(0);
    expect(records(empty).get("acme__calc-1")).toMatchObject({ verdict: "unsolved", scores: { swe: { status: "no_op", apply_strategy: null } } });

    const preds = path.join(dir, "predictions.jsonl");
    const bare = `I fixed it:\n\n${task.gold}`;
    writeFileSync(preds, `${JSON.stringify({ instance_id: "acme__calc-1", model_name_or_path: "my-model", model_patch: bare })}\n`);
    const out = path.join(dir, "run-predictions");
    const r = await gitgood(["run", instances, "--repo", task.fixture.dir, "--predictions", preds, "--out", out], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("1 sample(s) without a prediction skipped");
    const rec = records(out).get("acme__calc-1");
    expect(rec).toMatchObject({ agent: "predictions:my-model", verdict: "solved", scores: { swe: { status: "resolved", patch_source: "bare", patch: task.gold } } });
    // The file is the SWE fragment's setting in run.json's spec, and in its identity (a run of another file is another run).
    const saved = JSON.parse(readFileSync(path.join(out, "run.json"), "utf8")) as { spec: { swe: unknown }; identity: { spec?: unknown } };
    expect(saved.spec.swe).toMatchObject({ predictions: preds, hints: false, test_timeout_s: 900 });
    expect(saved.identity.spec).toEqual({ swe: { predictions: preds } });
    const bad = await gitgood(["run", instances, "--repo", task.fixture.dir, "--predictions", path.join(dir, "none.jsonl")], { env: env() });
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim().split("\n")).toHaveLength(1);
  }, 240_000);

  it("the configuration file's envs: sets the test command evaluations run; --env-spec FILE wins where it has a spec", async () => {
    const cwd = path.join(dir, "config-envs");
    mkdirSync(cwd, { recursive: true });
    // The configured command leaves test_sub_negative out, so the gold patch cannot make every FAIL_TO_PASS test pass.
    const narrowed = `${PYTEST_COMMAND} --deselect tests/test_sub.py::test_sub_negative`;
    writeFileSync(path.join(cwd, "gitgood.config.yaml"), `agent: gold\nenvs:\n  acme/calc:\n    "0.1":\n      test: '${narrowed}'\n`);
    const out = path.join(cwd, "run-config");
    const r = await gitgood(["run", instances, "--repo", task.fixture.dir, "--ids", "acme__calc-1", "--out", out], { cwd, env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(records(out).get("acme__calc-1")).toMatchObject({ agent: "gold", verdict: "unjudged", scores: { swe: { status: "env_invalid" } } });
    expect((records(out).get("acme__calc-1")?.scores.swe as { reason: string }).reason).toBe(
      "FAIL_TO_PASS test(s) still fail with the gold patch: tests/test_sub.py::test_sub_negative",
    );
    const saved = JSON.parse(readFileSync(path.join(out, "run.json"), "utf8")) as { config: { envs: unknown } };
    expect(saved.config.envs).toEqual({ source: "gitgood.config.yaml", repos: { "acme/calc": { "0.1": { test: narrowed } } } });

    // A spec in --env-spec FILE for the repository (any version) wins over the configuration's.
    const flagFile = path.join(cwd, "specs.yaml");
    writeFileSync(flagFile, `envs:\n  acme/calc:\n    test: '${PYTEST_COMMAND}'\n`);
    const flagged = path.join(cwd, "run-flag");
    const f = await gitgood(["run", instances, "--repo", task.fixture.dir, "--ids", "acme__calc-1", "--env-spec", flagFile, "--out", flagged], { cwd, env: env() });
    expect(f.code, f.stderr).toBe(0);
    expect(records(flagged).get("acme__calc-1")).toMatchObject({ verdict: "solved", scores: { swe: { status: "resolved" } } });

    // One the flag's file has no spec for falls back to the configuration's.
    writeFileSync(flagFile, `envs:\n  other/project:\n    test: 'make check'\n`);
    const fallback = path.join(cwd, "run-fallback");
    const b = await gitgood(["run", instances, "--repo", task.fixture.dir, "--ids", "acme__calc-1", "--env-spec", flagFile, "--out", fallback], { cwd, env: env() });
    expect(b.code, b.stderr).toBe(0);
    expect(records(fallback).get("acme__calc-1")).toMatchObject({ scores: { swe: { status: "env_invalid" } } });
  }, 240_000);

  it.for([
    ["envs: [1]\n", "gitgood.config.yaml: envs: the environments must be a map of repositories ('owner/name' or '*') to specs"],
    ["envs:\n  acme/calc:\n    test-args: sideways\n", /^gitgood\.config\.yaml: envs: acme\/calc: test-args: .+$/],
    ["run:\n  envs:\n    acme/calc:\n      \"0.1\": { tests: pytest }\n", /^gitgood\.config\.yaml: run\.envs: acme\/calc 0\.1: .*tests.*$/],
    ["bench:\n  envs: {}\n", "gitgood.config.yaml: bench.envs: not an option of gitgood bench (see gitgood bench --help)"],
  ] as const)("a malformed envs: in %j stops the run in one line naming the file and key", async ([text, message]) => {
    const cwd = path.join(dir, `config-bad-${text.length}`);
    mkdirSync(cwd, { recursive: true });
    writeFileSync(path.join(cwd, "gitgood.config.yaml"), text);
    const out = path.join(cwd, "run");
    const r = await gitgood(["run", instances, "--repo", task.fixture.dir, "--agent", "gold", "--out", out], { cwd, env: env() });
    expect(r.code).toBe(2);
    expect(existsSync(out)).toBe(false);
    const lines = r.stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    const line = (lines[0] ?? "").replace(/^gitgood: /, "");
    if (typeof message === "string") expect(line).toBe(message);
    else expect(line).toMatch(message);
  });
});
