import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { RUN_LOCK_FILE } from "../../src/runs/run-lock.js";
import { removeAtExit } from "../../src/util/cleanup.js";
import { gitgood, setEnv } from "../helpers/cli.js";
import { completion, deadEndpoint, fakeOpenAI } from "../helpers/fake-openai.js";
import {
  buildMcpFixtures,
  connectHttp,
  ok,
  sandboxVars,
  solveIr,
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

describe("gitgood mcp and its run directory", () => {
  it("holds the run directory's lock while it serves, so no run works in it meanwhile, and releases it when it stops", async () => {
    const out = path.join(fx.root, "run-locked");
    const server = await serveHttpInProcess([fx.samples, "--id", fx.mergeSample.id, "--repos", fx.repos, "--out", out], fx.sandboxRoot);
    try {
      expect(JSON.parse(readFileSync(path.join(out, RUN_LOCK_FILE), "utf8"))).toMatchObject({ pid: process.pid });
      const run = await gitgood(["run", fx.samples, "--repos", fx.repos, "--agent", "oracle", "--out", out], { env: sandboxVars(fx.sandboxRoot) });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(new RegExp(`^gitgood: another gitgood run \\(process ${process.pid}, since \\S+\\) works in ${out}; wait for it to end or use another --out\n$`));
    } finally {
      expect(await server.stop()).toBe(0);
    }
    expect(existsSync(path.join(out, RUN_LOCK_FILE))).toBe(false);
    // Free again: another server may work there now.
    const again = await serveHttpInProcess([fx.samples, "--id", fx.mergeSample.id, "--repos", fx.repos, "--out", out], fx.sandboxRoot);
    expect(existsSync(path.join(out, RUN_LOCK_FILE))).toBe(true);
    expect(await again.stop()).toBe(0);
  });

  it("checks its judges before it serves: a wrong endpoint stops it in one line, with nothing served or written", async () => {
    const out = path.join(fx.root, "run-no-judge");
    const env = { ...sandboxVars(fx.sandboxRoot), OPENAI_BASE_URL: await deadEndpoint(), OPENAI_API_KEY: "k" };
    const r = await gitgood(["mcp", fx.samples, "--repos", fx.repos, "--judge", "judge-x", "--out", out], { env });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^gitgood: the judge model failed its check, so nothing was served: cannot reach the model endpoint for judge-x: .*\n$/);
    expect(existsSync(out)).toBe(false);
  });

  it("asks its judges with the model options run uses (--max-tokens, --seed, the response cache) and records them in run.json", async () => {
    const verdict = completion({ content: '{"better": "tie", "reason": "the same history"}' });
    const endpoint = await fakeOpenAI([{ body: completion({ content: "OK" }) }, { body: verdict }]);
    const cacheDir = path.join(fx.root, "model-cache");
    const restore = setEnv({ OPENAI_BASE_URL: endpoint.url, OPENAI_API_KEY: "k", GITGOOD_CACHE_DIR: cacheDir });
    const serveOnce = async (out: string, extra: string[]) => {
      const server = await serveHttpInProcess([fx.samples, "--id", fx.chainSample.id, "--scenario", "ir", "--repos", fx.repos, "--judge", "judge-j", "--out", out, ...extra], fx.sandboxRoot);
      const { client } = await connectHttp(server.url);
      await solveIr(client);
      await ok(client, "finish_scenario");
      await client.close().catch(() => undefined);
      expect(await server.stop()).toBe(0);
    };
    try {
      const out = path.join(fx.root, "run-judged");
      await serveOnce(out, ["--max-tokens", "77", "--seed", "5"]);
      // The agent kept the original history, so the swapped question is the same one: the cache answers it.
      const judged = endpoint.requests.slice(1) as { model: string; max_tokens?: number; seed?: number }[];
      expect(judged).toEqual([expect.objectContaining({ model: "judge-j", max_tokens: 77, seed: 5 })]);
      expect(JSON.parse(readFileSync(path.join(out, "run.json"), "utf8")).spec).toMatchObject({ temperature: null, max_tokens: 77, seed: 5, max_connections: null, cache: true });
      const record = JSON.parse(readFileSync(path.join(out, "results.jsonl"), "utf8").trim()) as Record<string, unknown>;
      expect(record).toMatchObject({ verdict: "unsolved", judge_tokens: { prompt: 11, completion: 7 }, cache_hits: 1 });

      // The same questions again come from the response cache: only the check reaches the endpoint.
      const before = endpoint.requests.length;
      await serveOnce(path.join(fx.root, "run-judged-again"), ["--max-tokens", "77", "--seed", "5"]);
      expect(endpoint.requests.length - before).toBe(1);
    } finally {
      restore();
      await endpoint.close();
    }
  });
});
