import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Report } from "../../src/report/summary.js";
import { gitgood } from "../helpers/cli.js";
import {
  call,
  connectHttp,
  connectInMemory,
  ok,
  recordsIn,
  resultLines,
  sandboxesIn,
  serveHttpInProcess,
  TEST_MCP_TOKEN,
  sessionSource,
  solveMcr,
  until,
  useMcpFixtures,
} from "../helpers/mcp.js";

// Evaluation (the default) tells an MCP client nothing of how it did, gives each scenario one attempt and
// keeps every record as first written; practice (--practice) tells and allows retries, and says so in the report.
const { fx, outDir } = useMcpFixtures("evaluation");

/** Resolves every conflict of the open MCR scenario with content no answer has (at most 20 conflicts). */
async function resolveWrongly(client: Parameters<typeof ok>[0]): Promise<void> {
  for (let i = 0; i < 20; i++) {
    const r = await ok(client, "resolve_current_merge_conflict_with", { content: "wrong\n", reason: "guess" });
    if (r.includes("The task is complete")) return;
  }
  throw new Error("the conflicts did not end");
}

describe("gitgood mcp, evaluation", () => {
  it("finish_scenario, list_samples and later errors say only that the attempt was recorded; a second start is refused", async () => {
    const out = outDir();
    const key = `${fx.mergeSample.id}.MCR`;
    const expected = fx.mergeFx.git("show", `${fx.merge}:app.py`);
    const { client, closed } = await connectInMemory(await sessionSource(fx, out));
    try {
      await ok(client, "start_scenario", { sample_id: fx.mergeSample.id });
      await resolveWrongly(client);
      const finish = await call(client, "finish_scenario");
      expect(finish.isError).toBe(false);
      expect(finish.text).toBe(`Your attempt at ${key} is recorded; it is scored after the session.\nStart the next scenario with start_scenario, or call list_samples to see what is left.`);

      const listing = await ok(client, "list_samples");
      expect(listing).toContain("scenarios: mcr (attempted)");
      const again = await call(client, "start_scenario", { sample_id: fx.mergeSample.id });
      expect(again.isError).toBe(true);
      expect(again.text).toContain(`${key} has been attempted in this run`);
      expect(again.text).toContain("one sample is one attempt");
      expect(sandboxesIn(fx.sandboxRoot)).toEqual([]);

      // Nothing the client saw holds the outcome or the answer.
      for (const text of [finish.text, listing, again.text]) {
        expect(text).not.toMatch(/unsolved|solved|verdict|scores:|exact|status (success|error)/i);
        expect(text).not.toContain(expected.trim());
      }
    } finally {
      await client.close();
      await closed;
    }
    // The record itself is complete: the run's owner reads the outcome from the run directory.
    expect(recordsIn(out)[key]).toMatchObject({ status: "success", solved: false, agent: "mcp" });
    expect(resultLines(out)).toHaveLength(1);
  });

  it("keeps the first record when a second session finishes the same scenario after it (no overwrite)", async () => {
    const out = outDir();
    const key = `${fx.mergeSample.id}.MCR`;
    const server = await serveHttpInProcess([fx.samples, "--repos", fx.repos, "--out", out], fx.sandboxRoot);
    const a = await connectHttp(server.url);
    const b = await connectHttp(server.url);
    try {
      // Both open the scenario before either finishes; the first solves it, the second then submits a wrong one.
      await ok(a.client, "start_scenario", { sample_id: fx.mergeSample.id });
      await solveMcr(a.client, fx);
      await ok(b.client, "start_scenario", { sample_id: fx.mergeSample.id });
      expect(await ok(a.client, "finish_scenario")).toContain("is recorded");
      const first = recordsIn(out)[key];
      expect(first).toMatchObject({ status: "success", solved: true });
      const trajectory = readFileSync(path.join(out, first?.trajectory ?? ""), "utf8");

      await resolveWrongly(b.client);
      const second = await call(b.client, "finish_scenario");
      expect(second.isError).toBe(true);
      expect(second.text).toContain(`${key} is recorded in ${out} already`);
      expect(second.text).not.toMatch(/unsolved|solved|verdict|scores/i);
      expect(resultLines(out)).toHaveLength(1);
      expect(recordsIn(out)[key]).toEqual(first);
      expect(readFileSync(path.join(out, first?.trajectory ?? ""), "utf8")).toBe(trajectory);
      await until(() => sandboxesIn(fx.sandboxRoot).length === 0);
    } finally {
      for (const c of [a, b]) {
        await c.transport.terminateSession();
        await c.client.close();
      }
      await server.stop();
    }
  });
});

describe("gitgood mcp --id, evaluation", () => {
  it("refuses a later session on the one scenario once it is recorded, and a new server on the same run", async () => {
    const out = outDir();
    const args = [fx.samples, "--id", fx.mergeSample.id, "--repos", fx.repos, "--out", out];
    const server = await serveHttpInProcess(args, fx.sandboxRoot);
    try {
      const a = await connectHttp(server.url);
      await ok(a.client, "get_task");
      expect(await ok(a.client, "finish_scenario")).toContain("is recorded; it is scored after the session");
      await a.transport.terminateSession();
      await a.client.close();
      await expect(connectHttp(server.url)).rejects.toThrow(/has been attempted in this run/);
      // The refusal is the client's to act on (a conflict with the run's record), not a server fault.
      const raw = await fetch(server.url, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", Authorization: `Bearer ${TEST_MCP_TOKEN}` },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } }),
      });
      expect(raw.status).toBe(409);
    } finally {
      await server.stop();
    }
    const again = await gitgood(["mcp", ...args]);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain("has been attempted in this run");
    expect(again.stderr.trim().split("\n")).toHaveLength(1);
    expect(resultLines(out)).toHaveLength(1);
  });
});

describe("gitgood mcp --practice", () => {
  it("returns the verdict, lets the client try again, and marks the run as practice in every report", async () => {
    const out = outDir();
    const key = `${fx.mergeSample.id}.MCR`;
    // --hints: a family's setting of `mcp`, recorded in the run's spec under the family's key.
    const server = await serveHttpInProcess([fx.samples, "--repos", fx.repos, "--out", out, "--practice", "--hints"], fx.sandboxRoot);
    const { client, transport } = await connectHttp(server.url);
    try {
      await ok(client, "start_scenario", { sample_id: fx.mergeSample.id });
      await resolveWrongly(client);
      expect(await ok(client, "finish_scenario")).toMatch(/: unsolved \(status success\)\.\nscores: \{"exact_match"/);
      expect(await ok(client, "list_samples")).toContain("scenarios: mcr (recorded: unsolved)");
      await ok(client, "start_scenario", { sample_id: fx.mergeSample.id });
      await solveMcr(client, fx);
      expect(await ok(client, "finish_scenario")).toMatch(/: solved \(status success\)/);
    } finally {
      await transport.terminateSession();
      await client.close();
      await server.stop();
    }
    expect(resultLines(out)).toHaveLength(1);
    expect(recordsIn(out)[key]).toMatchObject({ solved: true, agent: "mcp-practice" });
    const config = JSON.parse(readFileSync(path.join(out, "run.json"), "utf8")) as { identity: { agent: string; spec?: unknown }; spec: { swe?: unknown } };
    expect(config.identity.agent).toBe("mcp-practice");
    expect(config.spec.swe).toMatchObject({ hints: true, test_timeout_s: 900, predictions: null });
    expect(config.identity.spec).toEqual({ swe: { hints: true } });

    const json = await gitgood(["report", out, "--json"]);
    expect(json.code, json.stderr).toBe(0);
    expect((JSON.parse(json.stdout) as Report).agents).toEqual(["mcp-practice"]);
    const text = await gitgood(["report", out]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain("mcp-practice");
    const html = `${out}-practice.html`;
    const written = await gitgood(["report", out, "--html", html]);
    expect(written.code, written.stderr).toBe(0);
    expect(readFileSync(html, "utf8")).toContain("mcp-practice");
  });
});
