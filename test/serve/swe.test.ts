import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ResultRecord } from "../../src/runs/record.js";
import { removeIdleEvaluationSandboxes } from "../../src/swe/evaluate.js";
import { gitgood } from "../helpers/cli.js";
import { useCacheDir } from "../helpers/envs.js";
import { recordsIn, sandboxesIn, until } from "../helpers/mcp.js";
import { useSandboxRoot } from "../helpers/scenarios.js";
import { CALC_BASE, pythonTask, type PythonTask } from "../helpers/swe.js";
import { postJson, serveInProcess, type StepReply } from "./clients.js";

// A SWE episode served over OpenEnv HTTP, scored by real pytest in the sandbox, against `gitgood run`'s
// records of the same sample: the gold agent (which applies the gold patch itself, outside the tools, so its
// work is replayed as the tool call that makes the same change) and the empty baseline (its recorded calls).

let root: ReturnType<typeof useSandboxRoot>;
let cache: ReturnType<typeof useCacheDir>;
let previousCache: string | undefined;
let task: PythonTask;
let samples: string;
const runs: Record<string, ResultRecord> = {};
const runDirs: Record<string, string> = {};

beforeAll(async () => {
  root = useSandboxRoot();
  cache = useCacheDir();
  previousCache = process.env.GITGOOD_CACHE_DIR;
  process.env.GITGOOD_CACHE_DIR = cache.dir;
  task = pythonTask();
  const dir = task.fixture.scratch("serve-swe");
  // As SWE-bench publishes an instance: a JSON list, the test lists as JSON strings.
  const sc = task.sample().scenario;
  samples = path.join(dir, "instances.json");
  writeFileSync(samples, JSON.stringify([{ ...sc, FAIL_TO_PASS: JSON.stringify(sc.FAIL_TO_PASS), PASS_TO_PASS: JSON.stringify(sc.PASS_TO_PASS) }]));
  for (const agent of ["gold", "empty"]) {
    const out = path.join(dir, `run-${agent}`);
    const r = await gitgood(["run", samples, "--repo", task.fixture.dir, "--agent", agent, "--out", out], { env: { GITGOOD_CACHE_DIR: cache.dir, GITGOOD_SANDBOX: "", GITGOOD_SANDBOX_ROOT: root.root } });
    if (r.code !== 0) throw new Error(`gitgood run --agent ${agent} failed: ${r.stderr}`);
    const [record] = Object.values(recordsIn(out));
    if (!record) throw new Error(`gitgood run --agent ${agent} left no record`);
    runs[agent] = record;
    runDirs[agent] = out;
  }
}, 180_000);

afterAll(() => {
  if (previousCache === undefined) delete process.env.GITGOOD_CACHE_DIR;
  else process.env.GITGOOD_CACHE_DIR = previousCache;
  task?.fixture.remove();
  root?.cleanup();
  cache?.cleanup();
});

/** The tool calls of a recorded attempt, in order. */
function recordedCalls(agent: string): { tool: string; args: Record<string, unknown> }[] {
  const record = runs[agent] as ResultRecord;
  const t = JSON.parse(readFileSync(path.join(runDirs[agent] as string, record.trajectory as string), "utf8")) as { events: { type: string; tool?: string; args?: unknown }[] };
  return t.events.filter((e) => e.type === "tool_call").map((e) => ({ tool: e.tool as string, args: (e.args ?? {}) as Record<string, unknown> }));
}

/** What must agree between a served SWE episode's record and `gitgood run`'s: the verdict and the evaluation's outcome. */
function outcome(r: ResultRecord | undefined): unknown {
  const swe = r?.scores.swe as Record<string, unknown> | undefined;
  return r && { scenario: r.scenario, sample_id: r.sample_id, status: r.status, solved: r.solved, verdict: r.verdict, swe: swe && { status: swe.status, resolution: swe.resolution, fail_to_pass: swe.fail_to_pass, pass_to_pass: swe.pass_to_pass } };
}

describe("gitgood serve with a SWE sample (pytest-scored)", () => {
  it("the gold change and the empty baseline's recorded calls over OpenEnv HTTP get rewards and verdicts equal to gitgood run's", async () => {
    const out = path.join(task.fixture.scratch("serve-swe-out"), "run");
    const server = await serveInProcess([samples, "--repo", task.fixture.dir, "--protocol", "openenv", "--out", out], root.root);
    // The gold agent's change, made with the tools an episode has; then its recorded calls (finish).
    expect(CALC_BASE).toContain("def sub(a, b):\n    return a + b");
    const attempts: [string, { tool: string; args: Record<string, unknown> }[]][] = [
      ["gold", [{ tool: "replace_text", args: { path: "calc/__init__.py", old_text: "def sub(a, b):\n    return a + b", new_text: "def sub(a, b):\n    return a - b", reason: "sub adds" } }, ...recordedCalls("gold")]],
      ["empty", recordedCalls("empty")],
    ];
    try {
      for (const [agent, calls] of attempts) {
        const record = runs[agent] as ResultRecord;
        const reset = await postJson(`${server.url}/reset`, { sample_id: record.sample_id, scenario: "SWE" });
        expect(reset.status).toBe(200);
        const id = (reset.body.observation as { episode_id: string }).episode_id;
        let last: StepReply | null = null;
        for (const c of calls) {
          const r = await postJson(`${server.url}/step`, { action: { type: "call_tool", tool_name: c.tool, arguments: c.args }, episode_id: id });
          expect(r.status).toBe(200);
          last = r.body as unknown as StepReply;
          expect(last.observation.error).toBeNull();
          if (last.done) break;
        }
        expect(last?.done).toBe(true);
        expect(last?.reward).toBe(record.solved ? 1 : 0);
        expect(outcome(recordsIn(out)[last?.observation.key as string])).toEqual(outcome(record));
      }
    } finally {
      await server.stop();
      // The in-process server's evaluations keep an idle evaluation sandbox for reuse until the process exits.
      removeIdleEvaluationSandboxes();
    }
    // `run` decided both ways: the gold agent solved it, the empty baseline did not.
    expect([runs.gold?.verdict, runs.empty?.verdict]).toEqual(["solved", "unsolved"]);
    await until(() => sandboxesIn(root.root).length === 0);
  }, 240_000);
});
