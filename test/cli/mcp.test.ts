import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { removeAtExit } from "../../src/util/cleanup.js";
import {
  buildMcpFixtures,
  connectHttp,
  ok,
  RAW_OPENING,
  recordsIn,
  sandboxesIn,
  serveHttpInProcess,
  serveStdioInProcess,
  until,
  type McpFixtures,
} from "../helpers/mcp.js";

let fx: McpFixtures;

beforeAll(() => {
  fx = buildMcpFixtures();
});
afterAll(() => fx.cleanup());
afterEach(() => {
  vi.restoreAllMocks();
});

const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
const listeners = () => SIGNALS.map((s) => process.listenerCount(s));

describe("gitgood mcp in-process", () => {
  it("installs no signal handler and never ends the process; aborting io.signal stops it and records the open scenario", async () => {
    // Sandboxes register their removal at exit once per process; do that first, so only the verb's own handlers would count.
    removeAtExit(path.join(fx.root, "nothing"))();
    const before = listeners();
    const exit = vi.spyOn(process, "exit").mockImplementation((code) => {
      throw new Error(`process.exit(${String(code)}) was called`);
    });
    const out = path.join(fx.root, "run-in-process");
    const key = `${fx.mergeSample.id}.MCR`;
    const server = await serveHttpInProcess([fx.samples, "--id", fx.mergeSample.id, "--repos", fx.repos, "--out", out], fx.sandboxRoot);
    const { client } = await connectHttp(server.url);
    await ok(client, "get_task");
    expect(sandboxesIn(fx.sandboxRoot)).toHaveLength(1);
    expect(listeners()).toEqual(before);

    expect(await server.stop()).toBe(0);
    expect(recordsIn(out)[key]).toMatchObject({
      status: "error",
      error: { code: "SERVER_STOPPED", message: "gitgood mcp was stopped before the client finished the scenario" },
    });
    expect(sandboxesIn(fx.sandboxRoot)).toEqual([]);
    expect(server.stderr()).toContain(`gitgood mcp: serving sample ${fx.mergeSample.id} (MCR)`);
    expect(listeners()).toEqual(before);
    expect(exit).not.toHaveBeenCalled();
    await client.close().catch(() => undefined);
  });

  it("serves stdio over the caller's streams without a signal handler, and returns when the input ends", async () => {
    removeAtExit(path.join(fx.root, "nothing"))();
    const before = listeners();
    const exit = vi.spyOn(process, "exit").mockImplementation((code) => {
      throw new Error(`process.exit(${String(code)}) was called`);
    });
    const out = path.join(fx.root, "run-stdio-in-process");
    const server = serveStdioInProcess([fx.samples, "--id", fx.mergeSample.id, "--repos", fx.repos, "--out", out], fx.sandboxRoot);
    server.send(...RAW_OPENING);
    await until(() => server.replies().length === 2);
    expect(sandboxesIn(fx.sandboxRoot)).toHaveLength(1);
    expect(listeners()).toEqual(before);

    expect(await server.end()).toBe(0);
    expect(recordsIn(out)[`${fx.mergeSample.id}.MCR`]).toMatchObject({ status: "error", error: { code: "CLIENT_DISCONNECTED" } });
    expect(sandboxesIn(fx.sandboxRoot)).toEqual([]);
    expect(listeners()).toEqual(before);
    expect(exit).not.toHaveBeenCalled();
  });
});
