import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { MergeSample } from "../../src/dataset/sample.js";
import { brokerContext, callBroker, describeBroker } from "../../src/runs/broker-client.js";
import { ToolBroker, sweepBrokerDirs } from "../../src/runs/broker.js";
import { AgentSession } from "../../src/runs/session.js";
import { setupScenario, type LiveScenario } from "../../src/scenarios/index.js";
import type { Fixture } from "../helpers/fixture.js";
import { buildMergeFixture, useSandboxRoot } from "../helpers/scenarios.js";

let root: ReturnType<typeof useSandboxRoot>;
let fx: Fixture;
let sample: MergeSample;
beforeAll(() => {
  root = useSandboxRoot();
  ({ fx, sample } = buildMergeFixture());
});
afterAll(() => {
  fx.remove();
  root.cleanup();
});

let live: LiveScenario;
let controller: AbortController;
let session: AgentSession;
let broker: ToolBroker;
beforeEach(async () => {
  live = await setupScenario(sample, fx.dir);
  controller = new AbortController();
  session = new AgentSession(live, await live.initialContext(), 10, controller.signal);
  broker = await ToolBroker.open(session);
});
afterEach(async () => {
  await broker.close();
  live.close();
});

/** Sends raw bytes on the socket and returns the answer line. */
function raw(socket: string, text: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const conn = net.createConnection(socket, () => conn.end(text));
    conn.on("data", (b: Buffer) => chunks.push(b));
    conn.on("error", reject);
    conn.on("close", () => resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>));
  });
}

describe("the tool broker", () => {
  it("describes the scenario and its tools, and gives the task as the agent got it (unrecorded)", async () => {
    const d = await describeBroker(broker.socket);
    expect(d).toMatchObject({ scenario: "MCR", sample_id: sample.id });
    expect(d.tools.slice(0, 2)).toEqual(["get_task", "finish_scenario"]);
    expect(d.tools).toEqual(expect.arrayContaining(live.toolNames()));
    expect(d.functions.map((f) => f.function.name)).toEqual(d.tools);
    expect(d.help).toContain("resolve_current_merge_conflict_with(content)");
    expect(await brokerContext(broker.socket)).toEqual({ text: session.context.text, data: session.context.data });
    expect(session.toolCalls).toBe(0);
  });

  it("records every call of the program in the session, in order, its own tools included", async () => {
    const task = await callBroker(broker.socket, "get_task", {});
    expect(task).toMatchObject({ ok: true, done: false });
    expect(task.output.startsWith(session.context.text)).toBe(true);
    const view = await callBroker(broker.socket, "view_current_merge_conflict_with", { context_window_size: 0, reason: "look" });
    expect(view).toMatchObject({ ok: true, done: false });
    const bad = await callBroker(broker.socket, "view_current_merge_conflict_with", { reason: "no size" });
    expect(bad).toMatchObject({ ok: false, error: { code: "BAD_ARGUMENTS" } });
    const calls = session.events.filter((e) => e.type === "tool_call").map((e) => (e.type === "tool_call" ? e.tool : ""));
    expect(calls).toEqual(["get_task", "view_current_merge_conflict_with", "view_current_merge_conflict_with"]);
    const results = session.events.flatMap((e) => (e.type === "tool_result" ? [e.output] : []));
    expect(results).toEqual([task.output, view.output, bad.output]);
    expect(session.toolCalls).toBe(3);
  });

  it("refuses scenario tools once the work is submitted, and records the refusal", async () => {
    expect(await callBroker(broker.socket, "finish_scenario", { reason: "done" })).toMatchObject({ ok: true, output: expect.stringMatching(/^Submitted\./) });
    const after = await callBroker(broker.socket, "resolve_current_merge_conflict_with", { content: "x\n", reason: "late" });
    expect(after).toMatchObject({ ok: false, error: { code: "NO_SCENARIO" } });
    expect(await callBroker(broker.socket, "finish_scenario", {})).toMatchObject({ ok: false, error: { code: "NO_SCENARIO" } });
    expect(session.toolCalls).toBe(3);
    expect(live.isDone()).toBe(false);
  });

  it("answers a malformed request with BAD_REQUEST and changes nothing", async () => {
    expect(await raw(broker.socket, "{oops\n")).toEqual({ ok: false, error: { code: "BAD_REQUEST", message: "a request is one line of JSON" } });
    expect(await raw(broker.socket, `${JSON.stringify({ op: "shell", command: "id" })}\n`)).toMatchObject({ ok: false, error: { code: "BAD_REQUEST" } });
    expect(await raw(broker.socket, JSON.stringify({ op: "describe" }))).toMatchObject({ ok: true, value: { scenario: "MCR" } });
    expect(session.toolCalls).toBe(0);
  });

  it("takes no call after the attempt's end, and is gone once closed", async () => {
    controller.abort();
    await expect(callBroker(broker.socket, "get_task", {})).rejects.toMatchObject({ code: "ABORTED" });
    await broker.close();
    expect(existsSync(broker.dir)).toBe(false);
    await expect(describeBroker(broker.socket)).rejects.toMatchObject({ code: "TOOL_SOCKET_GONE" });
    expect(session.toolCalls).toBe(0);
  });

  it("lives in a directory named for its process; those of processes that are gone are swept", () => {
    expect(path.basename(broker.dir)).toMatch(new RegExp(`^gitgood-tools-${process.pid}-`));
    const dead = Number(spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }).stdout);
    const left = path.join(os.tmpdir(), `gitgood-tools-${dead}-test`);
    mkdirSync(left);
    sweepBrokerDirs();
    expect(existsSync(left)).toBe(false);
    expect(existsSync(broker.dir)).toBe(true);
  });
});
