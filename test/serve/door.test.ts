import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildMcpFixtures, sandboxesIn, type McpFixtures } from "../helpers/mcp.js";
import { TEST_SERVE_TOKEN, WsClient, getJson, postJson, serveInProcess } from "./clients.js";

let fx: McpFixtures;
beforeAll(() => {
  fx = buildMcpFixtures();
});
afterAll(() => fx.cleanup());

const basic = (user: string, password: string): Record<string, string> => ({ Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}` });

describe("gitgood serve's door for clients that send no bearer token", () => {
  it("takes the token as the password of Basic credentials (what a ws://user:TOKEN@host URL sends), and only the token", async () => {
    const server = await serveInProcess([fx.samples, "--repos", fx.repos, "--protocol", "openenv", "--out", path.join(fx.root, "door")], fx.sandboxRoot);
    try {
      expect((await getJson(`${server.url}/schema`, basic("gitgood", TEST_SERVE_TOKEN))).status).toBe(200);
      expect((await getJson(`${server.url}/schema`, basic(TEST_SERVE_TOKEN, "wrong"))).status).toBe(401);
      expect((await getJson(`${server.url}/schema`, basic("gitgood", ""))).status).toBe(401);
      expect((await getJson(`${server.url}/schema`, { Authorization: `Basic ${Buffer.from(TEST_SERVE_TOKEN).toString("base64")}` })).status).toBe(401);
      expect((await postJson(`${server.url}/reset`, {}, basic("x", `${TEST_SERVE_TOKEN}x`))).status).toBe(401);
      await expect(WsClient.connect(server.url, basic("gitgood", "wrong"))).rejects.toThrow(/401/);
      const ws = await WsClient.connect(server.url, basic("gitgood", TEST_SERVE_TOKEN));
      try {
        const reset = await ws.request({ type: "reset", data: { sample_id: fx.mergeSample.id } });
        expect(reset.type).toBe("observation");
      } finally {
        ws.end();
      }
    } finally {
      await server.stop();
    }
    expect(sandboxesIn(fx.sandboxRoot)).toEqual([]);
  }, 60_000);
});
