import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  connectHttp,
  connectInMemory,
  ok,
  recordsIn,
  resultLines,
  sandboxesIn,
  serveHttpInProcess,
  sessionSource,
  singleSource,
  solveMcr,
  trajectoryOf,
  until,
  useMcpFixtures,
} from "../helpers/mcp.js";

// What an MCP session records: one attempt per scenario the client starts, and never a disconnect over a finished attempt.
const { fx, outDir } = useMcpFixtures("attempts");

describe("MCP attempts", () => {
  it("records nothing for a client that only lists tools and resources, and removes the scenario's sandbox", async () => {
    const out = outDir();
    const { client, closed } = await connectInMemory(await singleSource(fx, fx.mergeSample.id, out));
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("resolve_current_merge_conflict_with");
    expect((await client.listResources()).resources).toHaveLength(2);
    expect(sandboxesIn(fx.sandboxRoot)).toHaveLength(1);
    await client.close();
    await closed;
    expect(existsSync(path.join(out, "results.jsonl"))).toBe(false);
    expect(sandboxesIn(fx.sandboxRoot)).toEqual([]);
  });

  it("keeps a finished attempt when a later session on the same scenario goes away, after a tool call or none", async () => {
    const out = outDir();
    const key = `${fx.mergeSample.id}.MCR`;
    // Practice: a later session may open the scenario again (evaluation refuses it: evaluation.test.ts).
    const server = await serveHttpInProcess([fx.samples, "--id", fx.mergeSample.id, "--repos", fx.repos, "--out", out, "--practice"], fx.sandboxRoot);
    try {
      const a = await connectHttp(server.url);
      await ok(a.client, "get_task");
      await solveMcr(a.client, fx);
      expect(await ok(a.client, "finish_scenario")).toMatch(/: solved \(status success\)/);
      await a.transport.terminateSession();
      await a.client.close();
      const solved = recordsIn(out)[key];
      expect(solved).toMatchObject({ status: "success", verdict: "solved" });

      // A later session looks at the task, then ends; another only lists the tools.
      const b = await connectHttp(server.url);
      await ok(b.client, "view_current_merge_conflict_with", { context_window_size: 0, reason: "look" });
      await b.transport.terminateSession();
      await b.client.close();
      const c = await connectHttp(server.url);
      await c.client.listTools();
      await c.transport.terminateSession();
      await c.client.close();
      await until(() => sandboxesIn(fx.sandboxRoot).length === 0);

      expect(resultLines(out)).toHaveLength(1);
      expect(recordsIn(out)[key]).toEqual(solved);
      expect(trajectoryOf(out, recordsIn(out)[key]).ended_by).toBe("finish_scenario");
    } finally {
      expect(await server.stop()).toBe(0);
    }
    // Nothing was open when the server stopped: still the one solved record.
    expect(resultLines(out)).toHaveLength(1);
  });

  it("records one attempt per scenario a session starts, a started one the client leaves open as an error", async () => {
    const out = outDir();
    const { client, closed } = await connectInMemory(await sessionSource(fx, out));
    await ok(client, "start_scenario", { sample_id: fx.mergeSample.id });
    await solveMcr(client, fx);
    await ok(client, "finish_scenario");
    await ok(client, "start_scenario", { sample_id: fx.chainSample.id, scenario: "ir" });
    await client.close();
    await closed;
    const records = recordsIn(out);
    expect(Object.keys(records).sort()).toEqual([`${fx.chainSample.id}.IR`, `${fx.mergeSample.id}.MCR`].sort());
    expect(records[`${fx.mergeSample.id}.MCR`]).toMatchObject({ status: "success", verdict: "solved" });
    expect(records[`${fx.chainSample.id}.IR`]).toMatchObject({ status: "error", error: { code: "CLIENT_DISCONNECTED" }, tool_calls: 0 });
    expect(resultLines(out)).toHaveLength(2);
    expect(sandboxesIn(fx.sandboxRoot)).toEqual([]);
  });
});
