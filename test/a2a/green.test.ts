import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { TaskState } from "@a2a-js/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { askAgent, connectAgent } from "../../src/agents/a2a-client.js";
import {
  agentBeatsRequest,
  connectTaskTools,
  finalState,
  resultOf,
  serveInProcess,
  sleep,
  solveMerge,
  startPurple,
  statusTexts,
  type Purple,
  type PurpleScript,
} from "../helpers/a2a.js";
import { gitgood } from "../helpers/cli.js";
import { waitFor } from "../helpers/processes.js";
import { buildMcpFixtures, recordsIn, sandboxVars, trajectoryOf, type McpFixtures } from "../helpers/mcp.js";

// The green agent (`gitgood a2a serve`) runs in this process; participants are scripted A2A servers, and
// every connection stays on 127.0.0.1.
let fx: McpFixtures;
let green: Awaited<ReturnType<typeof serveInProcess>>;
const purples: Purple[] = [];
const MERGE_ID = "acme_widgets_merge_0000";

beforeAll(async () => {
  fx = buildMcpFixtures();
  green = await serveInProcess(
    ["serve", "--out", path.join(fx.root, "runs"), "--data", fx.root, "--idle-timeout", "0.3", "--poll", "0.1"],
    sandboxVars(fx.sandboxRoot),
  );
});
afterAll(async () => {
  await green.stop();
  await Promise.all(purples.map((p) => p.close()));
  fx.cleanup();
});

async function purple(script: PurpleScript, opts: { streaming?: boolean } = {}): Promise<Purple> {
  const p = await startPurple(script, opts);
  purples.push(p);
  return p;
}

function request(url: string, config: Record<string, unknown> = {}): string {
  return JSON.stringify({
    participants: { agent: url },
    config: { dataset: fx.samples, repos: fx.repos, scenarios: ["mcr"], ids: [MERGE_ID], ...config },
  });
}

/** Solves the MCR task through the MCP server its message names, then answers. */
const solving: PurpleScript = async ({ ctx, text, events }) => {
  events.status(TaskState.TASK_STATE_WORKING, "on it");
  const client = await connectTaskTools(ctx, text);
  await solveMerge(client, fx);
  await client.callTool({ name: "finish_scenario", arguments: { reason: "done" } });
  await client.close();
  events.end(TaskState.TASK_STATE_COMPLETED, "resolved every conflict");
};

function runDirOf(result: { data: Record<string, unknown> }): string {
  return result.data.run_dir as string;
}

describe("gitgood a2a serve: the green agent", () => {
  it("serves an A2A v0.3 agent card with streaming at /.well-known/agent-card.json", async () => {
    const card = (await (await fetch(`${green.url}/.well-known/agent-card.json`)).json()) as Record<string, unknown>;
    expect(card.protocolVersion).toBe("0.3");
    expect(card.url).toBe(`${green.url}/`);
    expect(card.preferredTransport).toBe("JSONRPC");
    expect((card.capabilities as { streaming?: boolean }).streaming).toBe(true);
  });

  it("an AgentBeats-style client gets a log line per instance and a Result; the participant solved MCR through the MCP URL", async () => {
    const p = await purple(solving);
    const events = await agentBeatsRequest(green, request(p.url));
    expect(finalState(events)).toBe("completed");
    const lines = statusTexts(events);
    expect(lines).toContain(`[1/1] ${MERGE_ID} MCR: solved`);
    const result = resultOf(events);
    expect(result?.text).toMatch(/MCR: 1 sample\(s\), success 100\.0%, solve 100\.0%/);
    const rows = result?.data.gitgoodbench as { scenario: string; difficulty: string; solve_rate: number }[];
    expect(rows.find((r) => r.scenario === "MCR" && r.difficulty === "all")?.solve_rate).toBe(1);
    expect(p.received[0]).toMatch(/MCP_URL: http:\/\/127\.0\.0\.1:\d+\/tasks\/[0-9a-f-]+\/mcp/);
    // The run directory is a normal gitgood run.
    const dir = runDirOf(result as { data: Record<string, unknown> });
    const records = Object.values(recordsIn(dir));
    expect(records.map((r) => [r.sample_id, r.scenario, r.verdict])).toEqual([[MERGE_ID, "MCR", "solved"]]);
    const report = await gitgood(["report", dir, "--json"]);
    expect(report.code).toBe(0);
    const totals = (JSON.parse(report.stdout) as { totals: { scenario: string; solve_rate: number | null }[] }).totals;
    expect(totals.find((t) => t.scenario === "MCR")?.solve_rate).toBe(100);
    // The README's DuckDB query on the Result's data part.
    const file = path.join(fx.root, "result.json");
    writeFileSync(file, JSON.stringify(result?.data));
    const db = await DuckDBInstance.create(":memory:");
    const connection = await db.connect();
    try {
      const rowsRead = await connection.runAndReadAll(
        `SELECT g.scenario, g.difficulty, g.samples, ROUND(CAST(g.solve_rate AS DOUBLE) * 100, 1) AS solve
         FROM read_json_auto('${file.replace(/'/g, "''")}') AS t, UNNEST(t.gitgoodbench) AS u(g) WHERE g.difficulty = 'all' ORDER BY g.scenario`,
      );
      expect(rowsRead.getRowObjectsJson()).toEqual([
        { scenario: "MCR", difficulty: "all", samples: "1", solve: 100 },
        { scenario: "total", difficulty: "all", samples: "1", solve: 100 },
      ]);
    } finally {
      connection.closeSync();
    }
  });

  it("a request may lower the jail's limits, never raise them above the operator's; the run records what applied", async () => {
    const p = await purple(solving);
    const events = await agentBeatsRequest(green, request(p.url, { max_processes: 64, max_memory: 2 ** 50 }));
    expect(finalState(events)).toBe("completed");
    const run = JSON.parse(readFileSync(path.join(runDirOf(resultOf(events) as { data: Record<string, unknown> }), "run.json"), "utf8")) as {
      spec: Record<string, number>;
      isolation: { limits: { processes: number; memory_bytes: number } };
    };
    expect(run.spec.max_processes).toBe(64);
    expect(run.spec.max_memory).toBe(4 * 2 ** 30);
    expect(run.isolation.limits.processes).toBe(64);
    expect(run.isolation.limits.memory_bytes).toBe(4 * 2 ** 30);
  });

  it("a malformed request fails with invalid params, and the server answers the next one", async () => {
    const bad = await agentBeatsRequest(green, "{not json");
    expect(finalState(bad)).toBe("failed");
    expect(statusTexts(bad).join("\n")).toMatch(/^invalid params: the message is not JSON/m);
    const unknown = await agentBeatsRequest(green, JSON.stringify({ participants: { agent: "http://127.0.0.1:1" }, config: { dataset: fx.samples, repos: fx.repos, max_rows: 0 } }));
    expect(statusTexts(unknown).join("\n")).toMatch(/invalid params: config\.max_rows/);
    const p = await purple(solving);
    const good = await agentBeatsRequest(green, request(p.url));
    expect(finalState(good)).toBe("completed");
  });

  it("a participant whose task fails is an error naming the state; one that never connects is an error saying so", async () => {
    const failing = await purple(async ({ events }) => events.end(TaskState.TASK_STATE_FAILED, "out of ideas"));
    const r1 = resultOf(await agentBeatsRequest(green, request(failing.url)));
    const [rec1] = Object.values(recordsIn(runDirOf(r1 as { data: Record<string, unknown> })));
    expect(rec1?.status).toBe("error");
    expect(rec1?.error?.code).toBe("AGENT_FAILED");
    expect(rec1?.error?.message).toBe("the participant's task ended in state failed: out of ideas");

    const absent = await purple(async ({ events }) => events.end(TaskState.TASK_STATE_COMPLETED, "done (without looking)"));
    const r2 = resultOf(await agentBeatsRequest(green, request(absent.url)));
    const [rec2] = Object.values(recordsIn(runDirOf(r2 as { data: Record<string, unknown> })));
    expect(rec2?.error?.message).toMatch(/^the participant answered without ever connecting to its MCP server/);
  });

  it("a participant silent on its stream far longer than the idle limit is polled, not cut off", async () => {
    // The green's idle limit is 0.3 s: 2 s of silence would end any stream-only client.
    const slow = await purple(async (task) => {
      await sleep(2000, task.signal);
      await solving(task);
    });
    const events = await agentBeatsRequest(green, request(slow.url));
    const result = resultOf(events);
    const [rec] = Object.values(recordsIn(runDirOf(result as { data: Record<string, unknown> })));
    expect(rec?.verdict).toBe("solved");
    const notes = (trajectoryOf(runDirOf(result as { data: Record<string, unknown> }), rec).events as { type: string; text?: string }[])
      .filter((e) => e.type === "note")
      .map((e) => e.text ?? "");
    expect(notes.some((n) => /no event for 0\.3 s; polling tasks\/get/.test(n))).toBe(true);
  });

  it("takes a request above 100 KB and reads an answer above 100 KB", async () => {
    const long = "x".repeat(150_000);
    const chatty = await purple(async (task) => {
      const client = await connectTaskTools(task.ctx, task.text);
      await solveMerge(client, fx);
      await client.close();
      task.events.end(TaskState.TASK_STATE_COMPLETED, `resolved.\n${long}`);
    });
    // JSON allows any amount of white space: the request itself is 250 KB.
    const events = await agentBeatsRequest(green, request(chatty.url) + " ".repeat(250_000));
    const result = resultOf(events);
    const [rec] = Object.values(recordsIn(runDirOf(result as { data: Record<string, unknown> })));
    expect(rec?.verdict).toBe("solved");
    const notes = (trajectoryOf(runDirOf(result as { data: Record<string, unknown> }), rec).events as { type: string; text?: string }[]).map((e) => e.text ?? "");
    expect(notes.some((n) => n.startsWith("the participant answered: resolved.\nxxxx"))).toBe(true);
  });

  it("tasks/cancel stops what remains and the Result covers what finished", async () => {
    // The MCR instance is solved at once; the chain's IR instance waits until it is cancelled.
    const mixed = await purple(async (task) => {
      if (/MCP_URL/.test(task.text) && /Merge conflict resolution/.test(task.text)) return solving(task);
      await sleep(60_000, task.signal);
      task.events.end(TaskState.TASK_STATE_CANCELED, "stopped");
    });
    const client = await connectAgent(green.url, green.token);
    const body = JSON.stringify({
      participants: { agent: mixed.url },
      config: { dataset: fx.samples, repos: fx.repos, scenarios: ["mcr", "ir"], max_concurrent_rows: 2 },
    });
    const controller = new AbortController();
    const lines: string[] = [];
    let taskId: string | null = null;
    const asked = askAgent(client, [{ text: body }], {
      signal: controller.signal,
      onEvent: (line) => {
        lines.push(line);
        taskId ??= /^task (\S+):/.exec(line)?.[1] ?? null;
      },
    }).catch((err: unknown) => err);
    // Cancelled once the MCR instance has finished and the IR one is running: the green's second working
    // status (after "assessing …") is the finished instance's progress line.
    const working = (): number => lines.filter((l) => /: working$/.test(l)).length;
    await waitFor(() => mixed.received.length >= 2 && working() >= 2, "the MCR instance finishes while IR runs", 60_000);
    expect(taskId).not.toBeNull();
    const { CancelTaskRequest } = await import("@a2a-js/sdk");
    const cancelled = await client.cancelTask(CancelTaskRequest.fromJSON({ id: taskId }));
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const result = cancelled.artifacts.find((a) => a.name === "Result");
    const data = result?.parts.find((p) => p.content?.$case === "data")?.content?.value as Record<string, unknown>;
    expect(data.cancelled).toBe(true);
    expect(data.finished).toBe(1);
    const records = Object.values(recordsIn(data.run_dir as string));
    expect(records.find((r) => r.scenario === "MCR")?.verdict).toBe("solved");
    const rows = data.gitgoodbench as { scenario: string; difficulty: string; samples: number }[];
    expect(rows.find((r) => r.scenario === "MCR" && r.difficulty === "all")?.samples).toBe(1);
    expect(rows.find((r) => r.scenario === "IR" && r.difficulty === "all")?.samples).toBe(0);
    controller.abort();
    await asked;
  });
});
