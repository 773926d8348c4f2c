import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildMcpFixtures, recordsIn, sandboxesIn, until, type McpFixtures } from "../helpers/mcp.js";
import { WsClient, getJson, postJson, serveInProcess } from "./clients.js";

let fx: McpFixtures;
let n = 0;
beforeAll(() => {
  fx = buildMcpFixtures();
});
afterAll(() => fx.cleanup());

const outDir = (): string => path.join(fx.root, `warm-${n++}`);

/** The text of an OpenEnv call_tool observation. */
function textOf(data: Record<string, unknown>): string {
  const obs = data.observation as { result: { content: { text: string }[] } | null; error: { message: string } | null };
  return obs.result ? obs.result.content.map((c) => c.text).join("\n") : `error: ${obs.error?.message ?? ""}`;
}

describe("gitgood serve --warm", () => {
  it("sets sandboxes up before any reset, hands each to one episode only and refills; stopping removes the unused ones", async () => {
    const out = outDir();
    const id = fx.mergeSample.id;
    const server = await serveInProcess([fx.samples, "--repos", fx.repos, "--ids", id, "--protocol", "openenv", "--out", out, "--warm", "2"], fx.sandboxRoot);
    const ws = await WsClient.connect(server.url);
    try {
      await until(() => server.stderr().includes("warm: 2 sandbox(es) ready"));
      expect(sandboxesIn(fx.sandboxRoot)).toHaveLength(2);
      const first = await ws.request({ type: "reset", data: { sample_id: id } });
      expect(first.type).toBe("observation");
      expect(server.stderr()).toMatch(/opened: \S+ \(warm sandbox\)/);
      // The one handed out is replaced: two warm again, and the live one.
      await until(() => server.stderr().split("warm: 2 sandbox(es) ready").length === 3);
      expect(sandboxesIn(fx.sandboxRoot)).toHaveLength(3);
      const wrote = await ws.request({ type: "step", data: { type: "call_tool", tool_name: "resolve_current_merge_conflict_with", arguments: { content: "ZZ-EPISODE-ONE\n", reason: "write" } } });
      expect(textOf(wrote.data)).toMatch(/^Resolved conflict 0/);
      // A new episode on the same sample starts from the task's start, in a sandbox no agent has had.
      const second = await ws.request({ type: "reset", data: { sample_id: id } });
      expect(second.type).toBe("observation");
      expect((second.data.observation as Record<string, unknown>).task_data).toEqual((first.data.observation as Record<string, unknown>).task_data);
      const seen = await ws.request({ type: "step", data: { type: "call_tool", tool_name: "view_current_merge_conflict_with", arguments: { context_window_size: 0, reason: "look" } } });
      expect(textOf(seen.data)).toContain("<<<<<<<");
      expect(textOf(seen.data)).not.toContain("ZZ-EPISODE-ONE");
      expect(server.stderr().match(/\(warm sandbox\)/g)).toHaveLength(2);
      const done = await ws.request({ type: "step", data: { type: "call_tool", tool_name: "finish_scenario", arguments: {} } });
      expect(done.data.done).toBe(true);
    } finally {
      ws.end();
      await server.stop();
    }
    expect(sandboxesIn(fx.sandboxRoot)).toEqual([]);
    // Two episodes acted, two records; the warm sandboxes never handed out left none.
    const records = Object.values(recordsIn(out));
    expect(records.map((r) => r.key).sort()).toEqual([`${id}.MCR`, `${id}.MCR#1`].sort());
  }, 120_000);
});

describe("gitgood serve --timeout", () => {
  it("ends an episode whose set-up alone outlasts the limit as a recorded TIMEOUT, reward 0", async () => {
    const out = outDir();
    const id = fx.mergeSample.id;
    // Setting a sandbox up runs several git processes: always longer than a millisecond.
    const server = await serveInProcess([fx.samples, "--repos", fx.repos, "--ids", id, "--protocol", "openenv", "--out", out, "--timeout", "0.001"], fx.sandboxRoot);
    try {
      const reset = await postJson(`${server.url}/reset`, { sample_id: id });
      expect(reset.status).toBe(200);
      expect(reset.body).toMatchObject({ done: true, reward: 0 });
      const obs = reset.body.observation as Record<string, unknown>;
      expect(obs.error).toMatchObject({ error_type: "timeout" });
      expect(obs.verdict).toBe("error");
      const step = await postJson(`${server.url}/step`, { action: { type: "call_tool", tool_name: "finish_scenario", arguments: {} }, episode_id: obs.episode_id });
      expect(step.body).toMatchObject({ done: true, reward: 0 });
      const state = await getJson(`${server.url}/state?episode_id=${String(obs.episode_id)}`);
      expect(state.body).toMatchObject({ done: true, step_count: 0 });
    } finally {
      await server.stop();
    }
    expect(sandboxesIn(fx.sandboxRoot)).toEqual([]);
    const records = Object.values(recordsIn(out));
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ status: "error", error: { code: "TIMEOUT" } });
  }, 120_000);
});
