import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeSkeleton } from "../../src/commit0/skeleton.js";
import type { ResultRecord } from "../../src/runs/record.js";
import { REFERENCE, libraryRepository } from "../helpers/commit0.js";
import type { Fixture } from "../helpers/fixture.js";
import { recordsIn, sandboxesIn, until } from "../helpers/mcp.js";
import { recordedCalls, runRecord, useRunDirs, type RecordedCall as Call } from "../helpers/run-records.js";
import { TEST_SERVE_TOKEN, orsCall, postJson, serveInProcess, type StepReply } from "./clients.js";

// commit0 episodes (repository completion) served over OpenEnv HTTP and ORS, scored by real pytest in the
// sandbox, against `gitgood run`'s records of the same task: the reference agent (which checks the reference
// out itself, outside the tools, so its work is replayed as the replace_function_body calls that write the
// same bodies) and the skeleton baseline (its recorded calls: finish at once).

const dirs = useRunDirs();
let fixture: Fixture;
let samples: string;
let sampleId: string;
let n = 0;
const runs: Record<string, ResultRecord> = {};
const runDirs: Record<string, string> = {};

beforeAll(async () => {
  ({ fixture } = libraryRepository());
  const task = (await makeSkeleton(fixture.dir, { src: "shapes", cacheDir: dirs.cacheDir, testTimeoutSeconds: 120, setupTimeoutSeconds: 300 })).sample;
  sampleId = task.id;
  samples = path.join(fixture.scratch("serve-commit0"), "task.jsonl");
  writeFileSync(samples, `${JSON.stringify(task)}\n`);
  for (const agent of ["reference", "skeleton"]) {
    const { record, out } = await runOnce(agent, []);
    runs[agent] = record;
    runDirs[agent] = out;
  }
}, 240_000);

afterAll(() => fixture?.remove());

/** The tool calls of `agent`'s recorded attempt, in order. */
const callsOf = (agent: string): Call[] => recordedCalls(runDirs[agent] as string, runs[agent] as ResultRecord);

/** The reference agent's work done with the episode's tools: every stubbed body written as the reference has it, then its recorded calls (finish). */
function referenceCalls(): Call[] {
  const bodies = Object.entries(REFERENCE).flatMap(([file, fns]) =>
    Object.entries(fns).map(([fn, body]): Call => ({ tool: "replace_function_body", args: { path: file, function: fn, body, reason: "the reference body" } })),
  );
  return [...bodies, ...callsOf("reference")];
}

/** Runs `gitgood run` on the task with `agent` and `extra` flags; its one record, and the directory it is in. */
async function runOnce(agent: string, extra: string[]): Promise<{ record: ResultRecord; out: string }> {
  const out = path.join(fixture.scratch(`run-${agent}-${n++}`), "run");
  return { record: await runRecord(dirs, samples, fixture.dir, agent, out, extra), out };
}

/** What must agree between a served commit0 episode's record and `gitgood run`'s: the verdict and the evaluation's counts. */
function outcome(r: ResultRecord | undefined): unknown {
  const c = r?.scores.commit0 as Record<string, unknown> | undefined;
  return r && { scenario: r.scenario, sample_id: r.sample_id, status: r.status, solved: r.solved, verdict: r.verdict, commit0: c && { passed: c.passed, total: c.total, pass_rate: c.pass_rate, failed: c.failed, stubs_left: c.stubs_left, skeleton: c.skeleton, environment: (c.environment as { key?: string } | null)?.key } };
}

const outDir = (): string => path.join(fixture.scratch(`serve-out-${n++}`), "run");
const episodes: [string, () => Call[]][] = [
  ["reference", referenceCalls],
  ["skeleton", () => callsOf("skeleton")],
];

describe("gitgood serve with a commit0 task (pytest-scored)", () => {
  it("the reference's bodies and the skeleton baseline's calls over OpenEnv HTTP get gitgood run's rewards and records", async () => {
    const out = outDir();
    const server = await serveInProcess([samples, "--repo", fixture.dir, "--protocol", "openenv", "--out", out], dirs.root);
    try {
      for (const [agent, calls] of episodes) {
        const record = runs[agent] as ResultRecord;
        const reset = await postJson(`${server.url}/reset`, { sample_id: sampleId });
        expect(reset.status).toBe(200);
        const obs = reset.body.observation as { episode_id: string; scenario: string; tools: { name: string }[] };
        expect(obs.scenario).toBe("COMMIT0");
        expect(obs.tools.map((t) => t.name)).toEqual(expect.arrayContaining(["list_stubs", "replace_function_body", "run_tests", "finish", "finish_scenario"]));
        let last: StepReply | null = null;
        for (const c of calls()) {
          const r = await postJson(`${server.url}/step`, { action: { type: "call_tool", tool_name: c.tool, arguments: c.args }, episode_id: obs.episode_id });
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
    }
    // `run` decided both ways: the reference passes every counted test, the skeleton does not.
    expect([runs.reference?.verdict, runs.skeleton?.verdict]).toEqual(["solved", "unsolved"]);
    await until(() => sandboxesIn(dirs.root).length === 0);
  }, 240_000);

  it("the same two episodes over ORS (tool calls streamed as SSE) get the same rewards and records", async () => {
    const out = outDir();
    const server = await serveInProcess([samples, "--repo", fixture.dir, "--protocol", "ors", "--out", out], dirs.root);
    const key = { "X-API-Key": TEST_SERVE_TOKEN };
    try {
      const tasks = (await postJson(`${server.url}/gitgood/tasks`, { split: "train" }, key)).body.tasks as { sample_id: string; scenario: string }[];
      expect(tasks).toEqual([{ sample_id: sampleId, scenario: "COMMIT0" }]);
      for (const [agent, calls] of episodes) {
        const record = runs[agent] as ResultRecord;
        const sid = `commit0-${agent}`;
        const headers = { ...key, "X-Session-ID": sid };
        expect((await postJson(`${server.url}/create`, { split: "train", index: 0 }, headers)).body).toEqual({ sid });
        let last: Awaited<ReturnType<typeof orsCall>> | null = null;
        for (const c of calls()) {
          last = await orsCall(server.url, sid, c.tool, c.args);
          expect(last.ok).toBe(true);
          expect(last.output?.metadata.is_error).toBe(false);
          if (last.output?.finished) break;
        }
        expect(last?.output?.finished).toBe(true);
        expect(last?.output?.reward).toBe(record.solved ? 1 : 0);
        expect(outcome(recordsIn(out)[last?.output?.metadata.key as string])).toEqual(outcome(record));
        expect((await postJson(`${server.url}/delete`, {}, headers)).body).toEqual({ sid });
      }
    } finally {
      await server.stop();
    }
    await until(() => sandboxesIn(dirs.root).length === 0);
  }, 240_000);

  it("evaluates with the environment --env-spec gives, as gitgood run does", async () => {
    // A spec for every repository that adds a variable to the test runs: another environment than the default.
    const spec = path.join(fixture.scratch("spec"), "envs.yaml");
    writeFileSync(spec, '"*":\n  env:\n    SHAPES_SERVED: "1"\n');
    const ran = await runOnce("skeleton", ["--env-spec", spec]);
    const key = (r: ResultRecord | undefined) => (r?.scores.commit0 as { environment: { key: string } } | undefined)?.environment.key;
    expect(key(ran.record)).not.toBe(key(runs.skeleton));
    const out = outDir();
    const server = await serveInProcess([samples, "--repo", fixture.dir, "--protocol", "openenv", "--env-spec", spec, "--out", out], dirs.root);
    try {
      const reset = await postJson(`${server.url}/reset`, { sample_id: sampleId });
      const id = (reset.body.observation as { episode_id: string }).episode_id;
      const end = (await postJson(`${server.url}/step`, { action: { type: "call_tool", tool_name: "finish", arguments: { reason: "the skeleton as it is" } }, episode_id: id })).body as unknown as StepReply;
      expect(end.done).toBe(true);
      expect(outcome(recordsIn(out)[end.observation.key as string])).toEqual(outcome(ran.record));
    } finally {
      await server.stop();
    }
  }, 240_000);
});
