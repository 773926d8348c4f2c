import { spawn } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ResultRecord } from "../../src/runs/record.js";
import { scenarioNamed } from "../../src/scenarios/registry.js";
import { shapedRewards } from "../../src/scoring/scorer.js";
import { BIN, gitgood } from "../helpers/cli.js";
import { buildMcpFixtures, recordsIn, sandboxesIn, until, type McpFixtures } from "../helpers/mcp.js";
import { AUTH, TEST_SERVE_TOKEN, WsClient, getJson, observedText, orsCall, postJson, postSse, serveInProcess, type StepReply } from "./clients.js";

let fx: McpFixtures;
let n = 0;
/** The records and trajectories of `gitgood run --agent oracle` and `--agent baseline` on the fixtures. */
const runs: Record<string, Record<string, ResultRecord>> = {};
const runDirs: Record<string, string> = {};

beforeAll(async () => {
  fx = buildMcpFixtures();
  for (const agent of ["oracle", "baseline"]) {
    const out = path.join(fx.root, `run-${agent}`);
    const r = await gitgood(["run", fx.samples, "--repos", fx.repos, "--agent", agent, "--out", out], { env: { GITGOOD_SANDBOX: "", GITGOOD_SANDBOX_ROOT: fx.sandboxRoot } });
    if (r.code !== 0) throw new Error(`gitgood run --agent ${agent} failed: ${r.stderr}`);
    runs[agent] = recordsIn(out);
    runDirs[agent] = out;
  }
}, 120_000);
afterAll(() => fx.cleanup());

const outDir = (): string => path.join(fx.root, `serve-${n++}`);

/** The tool calls of a recorded attempt, in order. */
function toolCalls(agent: string, record: ResultRecord): { tool: string; args: Record<string, unknown> }[] {
  const t = JSON.parse(readFileSync(path.join(runDirs[agent] as string, record.trajectory as string), "utf8")) as { events: { type: string; tool?: string; args?: unknown }[] };
  return t.events.filter((e) => e.type === "tool_call").map((e) => ({ tool: e.tool as string, args: (e.args ?? {}) as Record<string, unknown> }));
}

/** The reward a record stands for, as the server defines it. */
function expectedReward(r: ResultRecord): number | null {
  if (r.status === "error") return 0;
  return r.solved === null ? null : r.solved ? 1 : 0;
}

/** What must agree between a served episode's record and `gitgood run`'s record of the same tool calls. */
function outcome(r: ResultRecord | undefined): unknown {
  return r && { scenario: r.scenario, sample_id: r.sample_id, status: r.status, solved: r.solved, verdict: r.verdict, scores: r.scores, error: r.error };
}

describe("gitgood serve --protocol openenv", () => {
  it("replays the oracle's and the baseline's tool calls over HTTP: rewards and records equal gitgood run's", async () => {
    const out = outDir();
    const server = await serveInProcess([fx.samples, "--repos", fx.repos, "--protocol", "openenv", "--out", out], fx.sandboxRoot);
    try {
      expect((await getJson(`${server.url}/health`)).body).toEqual({ status: "healthy" });
      const schema = (await getJson(`${server.url}/schema`)).body as Record<string, unknown>;
      expect(Object.keys(schema).sort()).toEqual(["action", "observation", "state"]);
      const named = (schema.observation as { properties: { rewards: { properties: Record<string, unknown> } } }).properties.rewards.properties;
      expect(Object.keys(named)).toEqual(expect.arrayContaining(["files_exact", "history_checks", "fail_to_pass", "pass_to_pass", "pass_rate"]));
      let compared = 0;
      const shaped: Record<string, number>[] = [];
      const rewards: (number | null)[] = [];
      for (const agent of ["oracle", "baseline"]) {
        for (const record of Object.values(runs[agent] ?? {})) {
          const reset = await postJson(`${server.url}/reset`, { sample_id: record.sample_id, scenario: record.scenario });
          expect(reset.status).toBe(200);
          expect(reset.body.done).toBe(false);
          const obs = reset.body.observation as Record<string, unknown>;
          const id = obs.episode_id as string;
          expect(typeof obs.task).toBe("string");
          let last: StepReply | null = null;
          for (const c of toolCalls(agent, record)) {
            const r = await postJson(`${server.url}/step`, { action: { type: "call_tool", tool_name: c.tool, arguments: c.args }, episode_id: id });
            expect(r.status).toBe(200);
            last = r.body as unknown as StepReply;
            if (last.done) break;
          }
          if (!last?.done) {
            const r = await postJson(`${server.url}/step`, { action: { type: "call_tool", tool_name: "finish_scenario", arguments: {} }, episode_id: id });
            last = r.body as unknown as StepReply;
          }
          expect(last.done).toBe(true);
          expect(last.reward).toBe(expectedReward(record));
          rewards.push(last.reward);
          // The shaped rewards are those run's record gives under the same scorers: train and eval cannot drift.
          expect(last.observation.rewards).toEqual(shapedRewards(scenarioNamed(record.scenario).scorers, record.scores));
          shaped.push(last.observation.rewards as Record<string, number>);
          const key = last.observation.key as string;
          expect(outcome(recordsIn(out)[key])).toEqual(outcome(record));
          const state = await getJson(`${server.url}/state?episode_id=${id}`);
          expect(state.body).toMatchObject({ episode_id: id, done: true });
          compared++;
        }
      }
      expect(compared).toBe(Object.keys(runs.oracle ?? {}).length * 2);
      // The oracle solves MCR; the baseline does not: both rewards occur.
      expect(rewards).toContain(1);
      expect(rewards).toContain(0);
      // IR and ICC give a shaped reward without a judge; MCR's baseline a partial one below the oracle's 1.
      expect(shaped.filter((s) => s.history_checks !== undefined).length).toBeGreaterThan(0);
      expect(shaped.map((s) => s.files_exact).filter((v) => v !== undefined)).toEqual(expect.arrayContaining([1, 0]));
      // `gitgood report` reads the run directory the episodes went to.
      const report = await gitgood(["report", out, "--json"]);
      expect(report.code).toBe(0);
    } finally {
      await server.stop();
    }
    expect(sandboxesIn(fx.sandboxRoot)).toEqual([]);
  }, 120_000);

  it("runs episodes over the WebSocket /ws, concurrently, with the MCP actions and an MCP message", async () => {
    const out = outDir();
    const server = await serveInProcess([fx.samples, "--repos", fx.repos, "--protocol", "openenv", "--out", out, "--max-sessions", "4"], fx.sandboxRoot);
    try {
      const oracle = Object.values(runs.oracle ?? {});
      const clients = await Promise.all(oracle.map(() => WsClient.connect(server.url)));
      const rewards = await Promise.all(
        oracle.map(async (record, i) => {
          const ws = clients[i] as WsClient;
          const reset = await ws.request({ type: "reset", data: { sample_id: record.sample_id, scenario: record.scenario } });
          expect(reset.type).toBe("observation");
          const listed = await ws.request({ type: "step", data: { type: "list_tools" } });
          const names = ((listed.data.observation as { tools: { name: string }[] }).tools).map((t) => t.name);
          expect(names).toContain("finish_scenario");
          const viaMcp = await ws.request({ type: "mcp", data: { jsonrpc: "2.0", id: 7, method: "tools/list", params: {} } });
          expect(viaMcp).toMatchObject({ type: "mcp", data: { jsonrpc: "2.0", id: 7 } });
          let last: StepReply | null = null;
          for (const c of toolCalls("oracle", record)) {
            const m = await ws.request({ type: "step", data: { type: "call_tool", tool_name: c.tool, arguments: c.args } });
            expect(m.type).toBe("observation");
            last = m.data as unknown as StepReply;
            if (last.done) break;
          }
          if (!last?.done) last = (await ws.request({ type: "step", data: { type: "call_tool", tool_name: "finish_scenario", arguments: {} } })).data as unknown as StepReply;
          const state = await ws.request({ type: "state" });
          expect(state).toMatchObject({ type: "state", data: { done: true } });
          ws.send({ type: "close" });
          await ws.whenClosed();
          return last.reward;
        }),
      );
      expect(rewards).toEqual(oracle.map(expectedReward));
      const bad = await WsClient.connect(server.url);
      expect(await bad.request({ type: "bogus" })).toMatchObject({ type: "error", data: { code: "UNKNOWN_TYPE" } });
      expect(await bad.request({ type: "step", data: { type: "list_tools" } })).toMatchObject({ type: "error", data: { code: "EXECUTION_ERROR" } });
      bad.end();
      await bad.whenClosed();
      // A client frame without a mask breaks RFC 6455: the server closes with 1002 (protocol error).
      const unmasked = await WsClient.connect(server.url);
      unmasked.sendFrame(0x1, Buffer.from(JSON.stringify({ type: "state" })), false);
      await unmasked.whenClosed();
      expect(unmasked.closeCode).toBe(1002);
    } finally {
      await server.stop();
    }
    expect(Object.values(recordsIn(out)).map((r) => r.verdict).sort()).toEqual(Object.values(runs.oracle ?? {}).map((r) => r.verdict).sort());
  }, 120_000);

  it("refuses a request or WebSocket handshake without the token, and a wrong Host", async () => {
    const server = await serveInProcess([fx.samples, "--repos", fx.repos, "--protocol", "openenv", "--out", outDir()], fx.sandboxRoot);
    try {
      expect((await postJson(`${server.url}/reset`, {}, {})).status).toBe(401);
      expect((await postJson(`${server.url}/reset`, {}, { Authorization: "Bearer wrong" })).status).toBe(401);
      expect((await getJson(`${server.url}/schema`, {})).status).toBe(401);
      await expect(WsClient.connect(server.url, {})).rejects.toThrow(/401/);
      await expect(WsClient.connect(server.url, { ...AUTH, Host: "evil.example:80" })).rejects.toThrow(/403/);
      expect(sandboxesIn(fx.sandboxRoot)).toEqual([]);
    } finally {
      await server.stop();
    }
  }, 60_000);

  it("a hostile episode probing history and paths outside the work tree finds no answer", async () => {
    const out = outDir();
    const server = await serveInProcess([fx.samples, "--repos", fx.repos, "--protocol", "openenv", "--out", out], fx.sandboxRoot);
    const merge = fx.merge;
    const mergeFiles = fx.mergeFx.git("show", "--name-only", "--format=", merge).trim().split("\n").filter(Boolean);
    try {
      const reset = await postJson(`${server.url}/reset`, { sample_id: fx.mergeSample.id });
      const id = (reset.body.observation as { episode_id: string }).episode_id;
      const probes: [string, Record<string, unknown>][] = [
        ["view_file_at", { relative_path_from_project_root: "../private/git/HEAD", reason: "x" }],
        ["view_file_at", { relative_path_from_project_root: "../../private/git/packed-refs", reason: "x" }],
        ["view_file_at", { relative_path_from_project_root: "/etc/passwd", reason: "x" }],
        ["view_file_at", { relative_path_from_project_root: ".git/ORIG_HEAD", reason: "x" }],
        ["view_file_at", { relative_path_from_project_root: ".git/packed-refs", reason: "x" }],
        ...mergeFiles.map((f): [string, Record<string, unknown>] => ["view_diff_for", { relative_path_from_project_root: f, reason: "x" }]),
        ["view_diff_for", { relative_path_from_project_root: mergeFiles[0] ?? "", commit: merge, reason: "x" }],
        ["no_such_tool", {}],
      ];
      const seen: string[] = [];
      for (const [tool, args] of probes) {
        const r = await postJson(`${server.url}/step`, { action: { type: "call_tool", tool_name: tool, arguments: args }, episode_id: id });
        expect(r.status).toBe(200);
        seen.push(observedText((r.body as unknown as StepReply).observation));
      }
      const text = seen.join("\n");
      expect(text).not.toContain(merge);
      expect(text).not.toContain(merge.slice(0, 10));
      expect(text).not.toMatch(/root:.*:0:0:/);
      const done = await postJson(`${server.url}/step`, { action: { type: "call_tool", tool_name: "finish_scenario", arguments: {} }, episode_id: id });
      expect((done.body as unknown as StepReply).reward).toBe(0);
    } finally {
      await server.stop();
    }
  }, 60_000);
});

describe("gitgood serve: sessions", () => {
  it("runs 12 concurrent episodes of one sample, each recorded under its own repeat, with the oracle's reward", async () => {
    const out = outDir();
    const server = await serveInProcess([fx.samples, "--repos", fx.repos, "--protocol", "openenv", "--out", out, "--max-sessions", "12"], fx.sandboxRoot);
    const record = Object.values(runs.oracle ?? {}).find((r) => r.scenario === "MCR") as ResultRecord;
    try {
      const resets = await Promise.all(Array.from({ length: 12 }, () => postJson(`${server.url}/reset`, { sample_id: record.sample_id })));
      expect(resets.map((r) => r.status)).toEqual(Array(12).fill(200));
      expect((await postJson(`${server.url}/reset`, { sample_id: record.sample_id })).status).toBe(503);
      const rewards = await Promise.all(
        resets.map(async (reset) => {
          const id = (reset.body.observation as { episode_id: string }).episode_id;
          let last: StepReply | null = null;
          for (const c of toolCalls("oracle", record)) {
            last = (await postJson(`${server.url}/step`, { action: { type: "call_tool", tool_name: c.tool, arguments: c.args }, episode_id: id })).body as unknown as StepReply;
            if (last.done) break;
          }
          return last?.reward;
        }),
      );
      expect(rewards).toEqual(Array(12).fill(expectedReward(record)));
    } finally {
      await server.stop();
    }
    const keys = Object.keys(recordsIn(out)).sort();
    expect(keys).toHaveLength(12);
    expect(new Set(keys).size).toBe(12);
    expect(keys).toContain(`${record.key}#11`);
  }, 120_000);

  it("ends an episode idle past --idle-timeout as disconnected", async () => {
    const out = outDir();
    const server = await serveInProcess([fx.samples, "--repos", fx.repos, "--protocol", "openenv", "--out", out, "--idle-timeout", "5"], fx.sandboxRoot);
    try {
      const reset = await postJson(`${server.url}/reset`, { sample_id: fx.mergeSample.id });
      const id = (reset.body.observation as { episode_id: string }).episode_id;
      await postJson(`${server.url}/step`, { action: { type: "list_tools" }, episode_id: id });
      const file = (((reset.body.observation as { task_data: { files: string[] } }).task_data.files)[0]) as string;
      await postJson(`${server.url}/step`, { action: { type: "call_tool", tool_name: "view_file_at", arguments: { relative_path_from_project_root: file, reason: "x" } }, episode_id: id });
      await until(() => Object.keys(recordsIn(out)).length === 1);
      expect(Object.values(recordsIn(out))[0]?.error?.code).toBe("CLIENT_DISCONNECTED");
      expect((await postJson(`${server.url}/step`, { action: { type: "list_tools" }, episode_id: id })).status).toBe(404);
    } finally {
      await server.stop();
    }
  }, 60_000);

  it("the built CLI makes a token, writes it 0600, and records a live episode as stopped on SIGTERM (npm run build first)", async () => {
    const out = outDir();
    const child = spawn(process.execPath, [BIN, "serve", fx.samples, "--repos", fx.repos, "--protocol", "openenv", "--out", out], {
      env: { ...process.env, GITGOOD_SERVE_TOKEN: "", GITGOOD_SANDBOX: "", GITGOOD_SANDBOX_ROOT: fx.sandboxRoot },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    let err = "";
    child.stderr.on("data", (b: Buffer) => (err += b.toString("utf8")));
    await until(() => /listening on/.test(err) || child.exitCode !== null);
    const url = /listening on (\S+)/.exec(err)?.[1] as string;
    const [, token, file] = /token (\S+) \(also in (\S+)\)/.exec(err) ?? [];
    expect(readFileSync(file as string, "utf8").trim()).toBe(token);
    expect(statSync(file as string).mode & 0o777).toBe(0o600);
    const headers = { Authorization: `Bearer ${token as string}` };
    expect((await postJson(`${url}/reset`, {}, {})).status).toBe(401);
    const reset = await postJson(`${url}/reset`, { sample_id: fx.mergeSample.id }, headers);
    const obs = reset.body.observation as { episode_id: string; task_data: { files: string[] } };
    const args = { relative_path_from_project_root: obs.task_data.files[0], reason: "look" };
    await postJson(`${url}/step`, { action: { type: "call_tool", tool_name: "view_file_at", arguments: args }, episode_id: obs.episode_id }, headers);
    child.kill("SIGTERM");
    expect(await exited).toBe(143);
    expect(Object.values(recordsIn(out)).map((r) => r.error?.code)).toEqual(["SERVER_STOPPED"]);
  }, 60_000);

  it("wrong usage fails with one line and a non-zero exit", async () => {
    const none = await gitgood(["serve", fx.samples, "--repos", fx.repos]);
    expect(none.code).not.toBe(0);
    expect(none.stderr.trim().split("\n")).toHaveLength(1);
    const both = await gitgood(["serve", fx.samples, "--protocol", "ors"]);
    expect(both.code).not.toBe(0);
    expect(both.stderr).toMatch(/--repo PATH .* or --repos DIR/);
    expect(both.stderr).not.toMatch(/\n\s+at /);
  });
});

describe("gitgood serve --protocol ors", () => {
  it("lists tools, splits and tasks, and replays the oracle's tool calls with the reward and finished inline over SSE", async () => {
    const out = outDir();
    const server = await serveInProcess([fx.samples, "--repos", fx.repos, "--protocol", "ors", "--split", "test", "--out", out], fx.sandboxRoot);
    const key = { "X-API-Key": TEST_SERVE_TOKEN };
    try {
      expect((await getJson(`${server.url}/health`, key)).body).toEqual({ status: "ok" });
      expect((await getJson(`${server.url}/list_environments`, key)).body).toEqual(["gitgood"]);
      expect((await getJson(`${server.url}/gitgood/splits`, key)).body).toEqual([{ name: "test", type: "test" }]);
      const tools = (await getJson(`${server.url}/gitgood/tools`, key)).body as { tools: { name: string; input_schema: unknown }[] };
      expect(tools.tools.map((t) => t.name)).toContain("resolve_current_merge_conflict_with");
      expect((await postJson(`${server.url}/gitgood/tasks`, { split: "train" }, key)).status).toBe(400);
      const tasks = (await postJson(`${server.url}/gitgood/tasks`, { split: "test" }, key)).body.tasks as { sample_id: string; scenario: string }[];
      expect((await postJson(`${server.url}/gitgood/num_tasks`, { split: "test" }, key)).body).toEqual({ num_tasks: tasks.length });
      const created = await postSse(`${server.url}/create_session`, {}, key);
      expect(created.events.map((e) => e.event)).toEqual(["task_id", "end"]);

      let compared = 0;
      for (const [i, task] of tasks.entries()) {
        const record = Object.values(runs.oracle ?? {}).find((r) => r.sample_id === task.sample_id && r.scenario === task.scenario);
        if (!record) continue;
        const sid = `s-${i}`;
        const headers = { ...key, "X-Session-ID": sid };
        expect((await postJson(`${server.url}/create`, { split: "test", index: i }, headers)).body).toEqual({ sid });
        const prompt = (await getJson(`${server.url}/gitgood/prompt`, headers)).body as { text: string; type: string }[];
        expect(prompt[0]?.type).toBe("text");
        let last: Awaited<ReturnType<typeof orsCall>> | null = null;
        for (const c of toolCalls("oracle", record)) {
          last = await orsCall(server.url, sid, c.tool, c.args);
          expect(last.ok).toBe(true);
          if (last.output?.finished) break;
        }
        if (!last?.output?.finished) last = await orsCall(server.url, sid, "finish_scenario", {});
        expect(last.output?.finished).toBe(true);
        expect(last.output?.reward).toBe(expectedReward(record));
        expect(outcome(recordsIn(out)[last.output?.metadata.key as string])).toEqual(outcome(record));
        expect((await postJson(`${server.url}/delete`, {}, headers)).body).toEqual({ sid });
        compared++;
      }
      expect(compared).toBe(Object.keys(runs.oracle ?? {}).length);
      expect((await getJson(`${server.url}/gitgood/tools`, {})).status).toBe(401);
      expect((await postJson(`${server.url}/create`, { split: "test", index: 0 }, { "X-Session-ID": "x" })).status).toBe(401);
    } finally {
      await server.stop();
    }
    expect(sandboxesIn(fx.sandboxRoot)).toEqual([]);
  }, 120_000);

  it("an episode left open is recorded as disconnected when its session is deleted, and the cap refuses one more", async () => {
    const out = outDir();
    const server = await serveInProcess([fx.samples, "--repos", fx.repos, "--protocol", "ors", "--out", out, "--max-sessions", "1"], fx.sandboxRoot);
    const h = (sid: string) => ({ "X-API-Key": TEST_SERVE_TOKEN, "X-Session-ID": sid });
    try {
      await postJson(`${server.url}/create`, { split: "train", index: 0 }, h("a"));
      await getJson(`${server.url}/gitgood/prompt`, h("a"));
      expect((await postJson(`${server.url}/create`, { split: "train", index: 0 }, h("b"))).status).toBe(503);
      const tools = (await getJson(`${server.url}/gitgood/task_tools`, h("a"))).body as { tools: { name: string }[] };
      const reader = tools.tools.find((t) => t.name.startsWith("view_"))?.name as string;
      await orsCall(server.url, "a", reader, { reason: "look" });
      await postJson(`${server.url}/delete`, {}, h("a"));
      await until(() => Object.keys(recordsIn(out)).length === 1);
      expect(Object.values(recordsIn(out))[0]?.error?.code).toBe("CLIENT_DISCONNECTED");
    } finally {
      await server.stop();
    }
  }, 60_000);
});
