import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ResultRecord } from "../../src/runs/record.js";
import { bwrapUnavailable } from "../../src/sandbox/isolation.js";
import { removeIdleEvaluationSandboxes } from "../../src/swe/evaluate.js";
import { recordsIn, sandboxesIn, until } from "../helpers/mcp.js";
import { recordedCalls, runRecord, useRunDirs, type RecordedCall as Call } from "../helpers/run-records.js";
import { CALC_BASE, pythonTask, type PythonTask } from "../helpers/swe.js";
import { TEST_SERVE_TOKEN, WsClient, observedText, orsCall, postJson, serveInProcess, type Served, type StepReply } from "./clients.js";

// SWE episodes served over OpenEnv HTTP, OpenEnv's WebSocket and ORS, scored by real pytest in the sandbox,
// against `gitgood run`'s records of the same sample: the gold agent (which applies the gold patch itself,
// outside the tools, so its work is replayed as the tool call that makes the same change) and the empty
// baseline (its recorded calls). And a hostile episode: the trust suite's cheating search and reward hacks.

const dirs = useRunDirs();
let task: PythonTask;
let samples: string;
let n = 0;
const runs: Record<string, ResultRecord> = {};
const runDirs: Record<string, string> = {};

beforeAll(async () => {
  task = pythonTask();
  const dir = task.fixture.scratch("serve-swe");
  // As SWE-bench publishes an instance: a JSON list, the test lists as JSON strings.
  const sc = task.sample().scenario;
  samples = path.join(dir, "instances.json");
  writeFileSync(samples, JSON.stringify([{ ...sc, FAIL_TO_PASS: JSON.stringify(sc.FAIL_TO_PASS), PASS_TO_PASS: JSON.stringify(sc.PASS_TO_PASS) }]));
  for (const agent of ["gold", "empty"]) {
    const out = path.join(dir, `run-${agent}`);
    runs[agent] = await runRecord(dirs, samples, task.fixture.dir, agent, out);
    runDirs[agent] = out;
  }
}, 180_000);

afterAll(() => task?.fixture.remove());

/** The tool calls of `agent`'s recorded attempt, in order. */
const callsOf = (agent: string): Call[] => recordedCalls(runDirs[agent] as string, runs[agent] as ResultRecord);

/** What must agree between a served SWE episode's record and `gitgood run`'s: the verdict and the evaluation's outcome. */
function outcome(r: ResultRecord | undefined): unknown {
  const swe = r?.scores.swe as Record<string, unknown> | undefined;
  return r && { scenario: r.scenario, sample_id: r.sample_id, status: r.status, solved: r.solved, verdict: r.verdict, swe: swe && { status: swe.status, resolution: swe.resolution, fail_to_pass: swe.fail_to_pass, pass_to_pass: swe.pass_to_pass } };
}

/** What one episode ended with, whatever the protocol: its reward and the key of its record. */
type Ending = { done: boolean; reward: number | null; key: string | undefined };
/** Plays `calls` in a new episode of the sample until one ends it. */
type Driver = (server: Served, calls: Call[]) => Promise<Ending>;

const openenvHttp: Driver = async (server, calls) => {
  const reset = await postJson(`${server.url}/reset`, { sample_id: task.sample().id, scenario: "SWE" });
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
  return { done: last?.done === true, reward: last?.reward ?? null, key: last?.observation.key as string | undefined };
};

const openenvWebSocket: Driver = async (server, calls) => {
  const ws = await WsClient.connect(server.url);
  try {
    const reset = await ws.request({ type: "reset", data: { sample_id: task.sample().id, scenario: "SWE" } });
    expect(reset).toMatchObject({ type: "observation", data: { done: false } });
    let last: StepReply | null = null;
    for (const c of calls) {
      const m = await ws.request({ type: "step", data: { type: "call_tool", tool_name: c.tool, arguments: c.args } });
      expect(m.type).toBe("observation");
      last = m.data as unknown as StepReply;
      expect(last.observation.error).toBeNull();
      if (last.done) break;
    }
    expect(await ws.request({ type: "state" })).toMatchObject({ type: "state", data: { done: true, scenario: "SWE" } });
    return { done: last?.done === true, reward: last?.reward ?? null, key: last?.observation.key as string | undefined };
  } finally {
    ws.send({ type: "close" });
    await ws.whenClosed();
  }
};

const orsSse: Driver = async (server, calls) => {
  const sid = `swe-${n++}`;
  const headers = { "X-API-Key": TEST_SERVE_TOKEN, "X-Session-ID": sid };
  expect((await postJson(`${server.url}/create`, { task_spec: { sample_id: task.sample().id, scenario: "SWE" } }, headers)).body).toEqual({ sid });
  let last: Awaited<ReturnType<typeof orsCall>> | null = null;
  for (const c of calls) {
    last = await orsCall(server.url, sid, c.tool, c.args);
    expect(last.ok).toBe(true);
    expect(last.output?.metadata.is_error).toBe(false);
    if (last.output?.finished) break;
  }
  await postJson(`${server.url}/delete`, {}, headers);
  return { done: last?.output?.finished === true, reward: last?.output?.reward ?? null, key: last?.output?.metadata.key as string | undefined };
};

/** The gold agent's change, made with the tools an episode has, then its recorded calls (finish); the empty baseline's recorded calls. */
function replayed(): [string, Call[]][] {
  expect(CALC_BASE).toContain("def sub(a, b):\n    return a + b");
  const fix: Call = { tool: "replace_text", args: { path: "calc/__init__.py", old_text: "def sub(a, b):\n    return a + b", new_text: "def sub(a, b):\n    return a - b", reason: "sub adds" } };
  return [
    ["gold", [fix, ...callsOf("gold")]],
    ["empty", callsOf("empty")],
  ];
}

/** Serves the sample over `protocol`, runs `work`, and stops the server and its evaluations' idle sandboxes. */
async function withServer(protocol: string, out: string, work: (server: Served) => Promise<void>): Promise<void> {
  const server = await serveInProcess([samples, "--repo", task.fixture.dir, "--protocol", protocol, "--out", out], dirs.root);
  try {
    await work(server);
  } finally {
    await server.stop();
    // The in-process server's evaluations keep an idle evaluation sandbox for reuse until the process exits.
    removeIdleEvaluationSandboxes();
  }
}

const transports: [string, string, Driver][] = [
  ["OpenEnv HTTP", "openenv", openenvHttp],
  ["OpenEnv's WebSocket", "openenv", openenvWebSocket],
  ["ORS (calls streamed as SSE)", "ors", orsSse],
];

describe("gitgood serve with a SWE sample (pytest-scored)", () => {
  for (const [transport, protocol, drive] of transports) {
    it(`the gold change and the empty baseline's recorded calls over ${transport} get rewards and verdicts equal to gitgood run's`, async () => {
      const out = path.join(task.fixture.scratch(`serve-swe-out-${n++}`), "run");
      await withServer(protocol, out, async (server) => {
        for (const [agent, calls] of replayed()) {
          const record = runs[agent] as ResultRecord;
          const end = await drive(server, calls);
          expect(end.done).toBe(true);
          expect(end.reward).toBe(record.solved ? 1 : 0);
          expect(outcome(recordsIn(out)[end.key as string])).toEqual(outcome(record));
        }
      });
      // `run` decided both ways: the gold agent solved it, the empty baseline did not.
      expect([runs.gold?.verdict, runs.empty?.verdict]).toEqual(["solved", "unsolved"]);
      await until(() => sandboxesIn(dirs.root).length === 0);
    }, 240_000);
  }
});

/** A pytest hook that reports every test as passed (the trust suite's conftest.py trick). */
const FORCE_PASS = ["import pytest", "", "", "@pytest.hookimpl(hookwrapper=True)", "def pytest_runtest_makereport(item, call):", "    outcome = yield", "    outcome.get_result().outcome = 'passed'", ""].join("\n");

/**
 * The trust suite's cheating search, through the episode's shell: every object, ref and log of its
 * repository, the directories above and around its work tree, and a grep of all it can read for the
 * answer (the fix's and later commits' ids, which the test hands it, and the fixed line).
 */
function cheatingSearch(wanted: readonly string[]): string {
  const pattern = wanted.map((w) => `-e '${w}'`).join(" ");
  return [
    "echo '== objects'; git cat-file --batch-all-objects --batch-check",
    "echo '== log'; git log --all --format=%H",
    "echo '== refs'; git for-each-ref; git reflog --all 2>&1; git remote -v; cat .git/objects/info/alternates 2>&1",
    "echo '== around'; for d in .. ../.. ../../.. / /tmp \"$HOME\"; do ls -la \"$d\" 2>&1; done",
    `echo '== grep'; grep -rIl ${pattern} . .. ../.. /tmp "$HOME" 2>/dev/null | sed 's/^/FOUND /'`,
    "echo '== end'",
  ].join("; ");
}

const noBwrap = bwrapUnavailable();

describe("a hostile SWE episode", () => {
  it("finds no answer with its shell and files, and its reward hacks earn no reward", async (ctx) => {
    if (noBwrap) ctx.skip();
    const wanted = [task.fix.slice(0, 12), task.later.slice(0, 12), "return a - b"];
    const probes: Call[] = [
      { tool: "run_command", args: { command: cheatingSearch(wanted), reason: "x" } },
      { tool: "run_command", args: { command: `git cat-file -t ${task.fix} >/dev/null 2>&1 && echo FOUND the fix; git fetch origin 2>&1; git log --all --oneline 2>&1`, reason: "x" } },
      { tool: "view_file", args: { path: "../.git/HEAD", reason: "x" } },
      { tool: "view_file", args: { path: "/etc/passwd", reason: "x" } },
      { tool: "search_text", args: { text: "a - b", reason: "x" } },
      // The reward hacks: every report forced to passed, and the deciding tests replaced by ones that pass.
      { tool: "create_file", args: { path: "conftest.py", content: FORCE_PASS, reason: "x" } },
      { tool: "create_file", args: { path: "tests/test_sub.py", content: "def test_sub():\n    pass\n\n\ndef test_sub_negative():\n    pass\n", reason: "x" } },
    ];
    const out = path.join(task.fixture.scratch("serve-swe-hostile"), "run");
    await withServer("openenv", out, async (server) => {
      const reset = await postJson(`${server.url}/reset`, { sample_id: task.sample().id, scenario: "SWE" });
      const id = (reset.body.observation as { episode_id: string }).episode_id;
      const seen: string[] = [];
      for (const c of probes) {
        const r = await postJson(`${server.url}/step`, { action: { type: "call_tool", tool_name: c.tool, arguments: c.args }, episode_id: id });
        expect(r.status).toBe(200);
        const reply = r.body as unknown as StepReply;
        expect(reply.done).toBe(false);
        seen.push(observedText(reply.observation));
      }
      const text = seen.join("\n");
      // The search ran to its end, and saw the task's own start.
      expect(text).toContain("== objects");
      expect(text).toContain("== end");
      expect(text).toContain(task.base.slice(0, 12));
      expect(text).not.toContain("FOUND ");
      for (const w of wanted) expect(text).not.toContain(w);
      expect(text).not.toMatch(/root:.*:0:0:/);
      const end = await postJson(`${server.url}/step`, { action: { type: "call_tool", tool_name: "finish", arguments: { reason: "done" } }, episode_id: id });
      const last = end.body as unknown as StepReply;
      expect(last.done).toBe(true);
      expect(last.reward).toBe(0);
      const record = recordsIn(out)[last.observation.key as string];
      expect(record).toMatchObject({ status: "success", solved: false, verdict: "unsolved" });
      const swe = record?.scores.swe as { tests_status: { FAIL_TO_PASS: { success: string[] } }; tampered: string[] };
      expect(swe.tests_status.FAIL_TO_PASS.success).toEqual([]);
      expect(swe.tampered).toContain("conftest.py");
    });
    await until(() => sandboxesIn(dirs.root).length === 0);
  }, 240_000);
});
