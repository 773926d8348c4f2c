import { existsSync } from "node:fs";
import { request } from "node:http";
import path from "node:path";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Report } from "../../src/report/summary.js";
import type { HistoryChecks } from "../../src/scoring/history.js";
import { gitgood } from "../helpers/cli.js";
import {
  buildMcpFixtures,
  call,
  connectHttp,
  ok,
  recordsIn,
  sandboxesIn,
  serveHttpInProcess,
  serverEnv,
  solveIcc,
  solveIr,
  solveMcr,
  startHttpServer,
  trajectoryOf,
  until,
  type McpFixtures,
} from "../helpers/mcp.js";

// Serves in this process, but for the smoke test and the stop by a signal, which spawn the built CLI
// (npm run build first). Everything listens on 127.0.0.1 only.
let fx: McpFixtures;
let n = 0;

beforeAll(() => {
  fx = buildMcpFixtures();
});
afterAll(() => fx.cleanup());

const outDir = (): string => path.join(fx.root, `run-http-${n++}`);
const names = async (client: Awaited<ReturnType<typeof connectHttp>>["client"]): Promise<string[]> =>
  (await client.listTools()).tools.map((t) => t.name);

const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

function post(url: string, headers: Record<string, string>): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(INIT),
  });
}

/** A request with a chosen Host header (fetch does not let one set it). */
function statusWithHost(url: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", headers: { Host: host, "Content-Type": "application/json" } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
    req.end(JSON.stringify(INIT));
  });
}

describe("gitgood mcp over Streamable HTTP", () => {
  it("works through MCR, IR and ICC in one session mode connection; gitgood report reads the run", async () => {
    const out = outDir();
    const server = await serveHttpInProcess([fx.samples, "--repos", fx.repos, "--out", out], fx.sandboxRoot);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const { client, transport } = await connectHttp(server.url);
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes++;
    });
    try {
      expect(await names(client)).toEqual(["list_samples", "start_scenario", "get_task", "finish_scenario"]);
      const listing = await ok(client, "list_samples");
      expect(listing).toContain(`${fx.mergeSample.id}  merge`);
      expect(listing).toContain(`${fx.chainSample.id}  file_commit_chain  easy  acme/chain  scenarios: ir, icc`);
      expect((await client.listResources()).resources).toEqual([]);
      const early = await call(client, "resolve_current_merge_conflict_with", { content: "x", reason: "x" });
      expect(early).toMatchObject({ isError: true });
      expect(early.text).toContain("no scenario is open: call start_scenario first");

      const started = await ok(client, "start_scenario", { sample_id: fx.mergeSample.id });
      expect(started).toContain(`Started ${fx.mergeSample.id}.MCR`);
      await until(() => changes === 1);
      expect(await names(client)).toContain("resolve_current_merge_conflict_with");
      expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(["gitgood://task", "gitgood://task.json"]);
      await solveMcr(client, fx);
      expect(await ok(client, "finish_scenario")).toMatch(/is recorded; it is scored after the session\.\nStart the next scenario with start_scenario/);
      await until(() => changes === 2);
      expect(await names(client)).not.toContain("resolve_current_merge_conflict_with");

      const chainNeedsKind = await call(client, "start_scenario", { sample_id: fx.chainSample.id });
      expect(chainNeedsKind).toMatchObject({ isError: true });
      expect(chainNeedsKind.text).toContain("gives several scenarios: choose one of IR, ICC");
      await ok(client, "start_scenario", { sample_id: fx.chainSample.id, scenario: "ir" });
      const twice = await call(client, "start_scenario", { sample_id: fx.chainSample.id, scenario: "icc" });
      expect(twice.text).toContain(`the scenario ${fx.chainSample.id}.IR is still open: call finish_scenario first`);
      await solveIr(client);
      await ok(client, "finish_scenario");

      await ok(client, "start_scenario", { sample_id: fx.chainSample.id, scenario: "icc", reason: "last one" });
      expect(await names(client)).toContain("commit_changes_in");
      await solveIcc(client, fx);
      await ok(client, "finish_scenario");
      expect(await ok(client, "list_samples")).toContain("scenarios: ir (attempted), icc (attempted)");
      expect(sandboxesIn(fx.sandboxRoot)).toEqual([]);
    } finally {
      await transport.terminateSession();
      await client.close();
      await server.stop();
    }

    const records = recordsIn(out);
    expect(records[`${fx.mergeSample.id}.MCR`]).toMatchObject({ status: "success", solved: true });
    for (const label of ["IR", "ICC"]) {
      const checks = records[`${fx.chainSample.id}.${label}`]?.scores.checks as HistoryChecks;
      expect(checks, label).toMatchObject({ finished: true, tree_matches_tip: true, commits: 4 });
    }
    const report = await gitgood(["report", out, "--json"]);
    expect(report.code, report.stderr).toBe(0);
    const parsed = JSON.parse(report.stdout) as Report;
    expect(parsed.agents).toEqual(["mcp"]);
    expect(parsed.samples.map((s) => `${s.scenario}:${s.verdict}`).sort()).toEqual(["ICC:unjudged", "IR:unjudged", "MCR:solved"]);
  });

  it("rejects foreign origins and hosts, and checks the bearer token on every request", async () => {
    const server = await serveHttpInProcess([fx.samples, "--repos", fx.repos, "--out", outDir(), "--token", "s3cret"], fx.sandboxRoot);
    try {
      const auth = { Authorization: "Bearer s3cret" };
      expect((await post(server.url, { ...auth, Origin: "http://evil.example" })).status).toBe(403);
      expect((await post(server.url, { ...auth, Origin: "null" })).status).toBe(403);
      expect(await statusWithHost(server.url, "evil.example")).toBe(403);
      const missing = await post(server.url, {});
      expect(missing.status).toBe(401);
      expect(missing.headers.get("www-authenticate")).toContain("Bearer");
      expect((await post(server.url, { Authorization: "Bearer wrong" })).status).toBe(401);
      expect((await post(server.url, { ...auth, Origin: "http://localhost:5173" })).status).toBe(200);

      await expect(connectHttp(server.url)).rejects.toThrow();
      const { client, transport } = await connectHttp(server.url, auth);
      expect(await names(client)).toContain("list_samples");
      // A request of a live session without the token is refused too.
      const sessionId = transport.sessionId as string;
      const sneaky = await fetch(server.url, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", "Mcp-Session-Id": sessionId },
        body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" }),
      });
      expect(sneaky.status).toBe(401);
      await client.close();
    } finally {
      await server.stop();
    }
  });

  it("refuses to bind beyond loopback without a token", async () => {
    const out = outDir();
    const r = await gitgood(["mcp", fx.samples, "--repos", fx.repos, "--out", out, "--http", "0", "--host", "0.0.0.0"], {
      env: { GITGOOD_SANDBOX: "", GITGOOD_SANDBOX_ROOT: fx.sandboxRoot },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("gitgood: binding to 0.0.0.0 lets other machines connect: give --token (or GITGOOD_MCP_TOKEN), or bind to 127.0.0.1\n");
    expect(existsSync(out)).toBe(false);
  });

  it("settles a session the client deletes, and one that goes idle", async () => {
    const out = outDir();
    const key = `${fx.mergeSample.id}.MCR`;
    // Practice, so that the second session may open the scenario the first left (evaluation refuses it).
    const server = await serveHttpInProcess([fx.samples, "--id", fx.mergeSample.id, "--repos", fx.repos, "--out", out, "--idle-timeout", "1", "--practice"], fx.sandboxRoot);
    let stopped: number | null = null;
    try {
      const a = await connectHttp(server.url);
      await ok(a.client, "view_current_merge_conflict_with", { context_window_size: 1, reason: "look" });
      expect(sandboxesIn(fx.sandboxRoot)).toHaveLength(1);
      await a.transport.terminateSession();
      await until(() => recordsIn(out)[key] !== undefined);
      expect(recordsIn(out)[key]).toMatchObject({ status: "error", error: { code: "CLIENT_DISCONNECTED" }, tool_calls: 1 });
      expect(recordsIn(out)[key]?.error?.message).toContain("the client ended the session");
      expect(sandboxesIn(fx.sandboxRoot)).toEqual([]);
      await a.client.close();

      // A client that just goes silent is closed after the idle time-out.
      const b = await connectHttp(server.url);
      await ok(b.client, "get_task");
      await until(() => recordsIn(out)[key]?.error?.message.includes("no request for 1 s") === true);
      expect(sandboxesIn(fx.sandboxRoot)).toEqual([]);
      await b.client.close();
    } finally {
      stopped = await server.stop();
    }
    expect(stopped).toBe(0);
  });
});

describe("gitgood mcp over Streamable HTTP, its own process", () => {
  it("serves a scenario from the built CLI to a client that solves it (smoke)", async () => {
    const out = outDir();
    const key = `${fx.mergeSample.id}.MCR`;
    const server = await startHttpServer([fx.samples, "--id", fx.mergeSample.id, "--repos", fx.repos, "--out", out], serverEnv(fx.sandboxRoot));
    let stopped: number | null = null;
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
      const { client, transport } = await connectHttp(server.url);
      expect(await ok(client, "get_task")).toContain(fx.mergeSample.id);
      await solveMcr(client, fx);
      expect(await ok(client, "finish_scenario")).toContain("is recorded; it is scored after the session");
      expect(sandboxesIn(fx.sandboxRoot)).toEqual([]);
      await transport.terminateSession();
      await client.close();
    } finally {
      stopped = await server.stop("SIGTERM");
    }
    expect(stopped).toBe(143);
    expect(server.stderr()).toContain(`gitgood mcp: serving sample ${fx.mergeSample.id} (MCR)`);
    const records = recordsIn(out);
    expect(Object.keys(records)).toEqual([key]);
    expect(records[key]).toMatchObject({ status: "success", solved: true, verdict: "solved", agent: "mcp", tool_calls: 5 });
    expect(trajectoryOf(out, records[key]).client).toMatchObject({ name: "gitgood-test-http", transport: "http" });
  });

  it("records open scenarios as stopped when a signal ends it", async () => {
    const out = outDir();
    const key = `${fx.mergeSample.id}.MCR`;
    const server = await startHttpServer([fx.samples, "--id", fx.mergeSample.id, "--repos", fx.repos, "--out", out], serverEnv(fx.sandboxRoot));
    const c = await connectHttp(server.url);
    await ok(c.client, "get_task");
    expect(sandboxesIn(fx.sandboxRoot)).toHaveLength(1);
    expect(await server.stop("SIGTERM")).toBe(143);
    expect(recordsIn(out)[key]).toMatchObject({ status: "error", error: { code: "SERVER_STOPPED" } });
    expect(sandboxesIn(fx.sandboxRoot)).toEqual([]);
    await c.client.close().catch(() => undefined);
  });
});
