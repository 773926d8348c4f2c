import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildMcpFixtures, recordsIn, sandboxesIn, type McpFixtures } from "../helpers/mcp.js";
import { postJson, serveInProcess } from "./clients.js";

// OpenEnv 0.2.3's `POST /mcp` (http_server.py, mcp_handler): JSON-RPC 2.0 with tools/list, tools/call and the
// session methods openenv/session/create and openenv/session/close.

let fx: McpFixtures;
beforeAll(() => {
  fx = buildMcpFixtures();
});
afterAll(() => fx.cleanup());

describe("gitgood serve --protocol openenv: POST /mcp", () => {
  it("runs an episode as an MCP session: create, list, call, finish; a call without a session is refused", async () => {
    const out = path.join(fx.root, "mcp-http");
    const server = await serveInProcess([fx.samples, "--repos", fx.repos, "--protocol", "openenv", "--out", out], fx.sandboxRoot);
    const rpc = (id: number, method: string, params: Record<string, unknown>) => postJson(`${server.url}/mcp`, { jsonrpc: "2.0", id, method, params });
    try {
      const stateless = await rpc(1, "tools/list", {});
      expect(stateless.body).toMatchObject({ jsonrpc: "2.0", id: 1, error: { code: -32602 } });
      expect(sandboxesIn(fx.sandboxRoot)).toEqual([]);
      const created = await rpc(2, "openenv/session/create", { sample_id: fx.mergeSample.id });
      const sid = (created.body.result as { session_id: string }).session_id;
      expect(typeof sid).toBe("string");
      const listed = await rpc(3, "tools/list", { session_id: sid });
      expect(((listed.body.result as { tools: { name: string }[] }).tools).map((t) => t.name)).toContain("finish_scenario");
      const unknown = await rpc(4, "tools/call", { session_id: "nope", name: "finish_scenario", arguments: {} });
      expect(unknown.body).toMatchObject({ error: { code: -32602, message: "Unknown session_id: nope" } });
      const done = await rpc(5, "tools/call", { session_id: sid, name: "finish_scenario", arguments: {} });
      expect(done.body).toMatchObject({ jsonrpc: "2.0", id: 5, result: { content: [{ type: "text" }] } });
      const closed = await rpc(6, "openenv/session/close", { session_id: sid });
      expect(closed.body).toMatchObject({ result: { session_id: sid } });
      expect((await rpc(7, "tools/list", { session_id: sid })).body).toMatchObject({ error: { code: -32602 } });
      expect((await postJson(`${server.url}/mcp`, { jsonrpc: "1.0", method: "tools/list" })).body).toMatchObject({ error: { code: -32600 } });
    } finally {
      await server.stop();
    }
    expect(sandboxesIn(fx.sandboxRoot)).toEqual([]);
    expect(Object.values(recordsIn(out)).map((r) => r.sample_id)).toEqual([fx.mergeSample.id]);
  }, 60_000);
});
