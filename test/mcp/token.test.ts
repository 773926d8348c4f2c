import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Fixture } from "../helpers/fixture.js";
import { connectHttp, serverEnv, startHttpServer } from "../helpers/mcp.js";

// `gitgood mcp --http` never serves without a token, on loopback too: any local process could otherwise
// call memory_commit on the user's work.
let scratch: string;
let fx: Fixture;
beforeAll(() => {
  scratch = mkdtempSync(path.join(os.tmpdir(), "gitgood-mcp-token-"));
  fx = new Fixture();
  fx.commit("start", { "notes.txt": "the user's work\n" });
});
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  fx.remove();
});

describe("mcp --http without --token", () => {
  it("makes a token, says it once, writes it to a 0600 file, and refuses requests without it (--memory on loopback)", async () => {
    const root = path.join(scratch, "gitgood");
    const server = await startHttpServer(["--memory", fx.dir], serverEnv(root, { GITGOOD_MCP_TOKEN: "" }));
    try {
      const port = Number(new URL(server.url).port);
      const said = server.stderr().split("\n").filter((l) => /token/.test(l));
      expect(said).toHaveLength(1);
      const token = /token (\S+) \(also in (\S+)\)/.exec(said[0] ?? "");
      expect(token).not.toBeNull();
      const file = token?.[2] as string;
      expect(file).toBe(path.join(root, `mcp-${port}.token`));
      expect(readFileSync(file, "utf8")).toBe(`${token?.[1]}\n`);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      // A local process without the token gets nothing, not even a session.
      const bare = await fetch(server.url, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "0" } } }),
      });
      expect(bare.status).toBe(401);
      await expect(connectHttp(server.url, {})).rejects.toThrow();
      const { client } = await connectHttp(server.url, { Authorization: `Bearer ${token?.[1]}` });
      expect((await client.listTools()).tools.map((t) => t.name)).toContain("memory_commit");
      await client.close();
    } finally {
      await server.stop();
    }
    expect(fx.git("log", "--format=%s").trim()).toBe("start");
  });
});
