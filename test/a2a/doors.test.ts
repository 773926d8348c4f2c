import { mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";

import http from "node:http";
import path from "node:path";
import { TaskState } from "@a2a-js/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentBeatsRequest, finalState, resultOf, serveInProcess, startPurple, statusTexts, type Purple, type PurpleScript } from "../helpers/a2a.js";
import { gitgood } from "../helpers/cli.js";
import { buildMcpFixtures, sandboxVars, type McpFixtures } from "../helpers/mcp.js";
import { waitFor } from "../helpers/processes.js";

// The green agent's doors: what a request may name, who may call it, and how many assessments it takes.
let fx: McpFixtures;
let data: string;
let green: Awaited<ReturnType<typeof serveInProcess>>;
const purples: Purple[] = [];
let outside: string;

beforeAll(async () => {
  fx = buildMcpFixtures();
  data = path.join(fx.root, "data");
  mkdirSync(data);
  writeFileSync(path.join(data, "samples.jsonl"), (await import("node:fs")).readFileSync(fx.samples));
  // The clones directory is a real directory under --data (its clones may be links: a request names only the directory).
  mkdirSync(path.join(data, "repos", "acme"), { recursive: true });
  symlinkSync(fx.mergeFx.dir, path.join(data, "repos", "acme", "widgets"));
  symlinkSync(fx.chainFx.dir, path.join(data, "repos", "acme", "chain"));
  // A canary dataset outside the data directory, and a link to it planted inside.
  outside = path.join(fx.root, "outside.jsonl");
  writeFileSync(outside, (await import("node:fs")).readFileSync(fx.samples));
  symlinkSync(outside, path.join(data, "planted.jsonl"));
  green = await serveInProcess(["serve", "--out", path.join(fx.root, "runs"), "--data", data, "--max-assessments", "1", "--idle-timeout", "0.3", "--poll", "0.1"], sandboxVars(fx.sandboxRoot));
});
afterAll(async () => {
  await green.stop();
  await Promise.all(purples.map((p) => p.close()));
  fx.cleanup();
});

async function purple(script: PurpleScript, token?: string): Promise<Purple> {
  const p = await startPurple(script, token !== undefined ? { token } : {});
  purples.push(p);
  return p;
}

const never: PurpleScript = async ({ events, signal }) => {
  await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
  events.end(TaskState.TASK_STATE_CANCELED, "stopped");
};

function request(url: string, config: Record<string, unknown>): string {
  return JSON.stringify({ participants: { agent: url }, config: { scenarios: ["mcr"], ...config } });
}

describe("a2a serve: paths a request names", () => {
  it.for([
    ["a dataset outside --data", () => ({ dataset: outside, repos: path.join(data, "repos") }), /invalid params: config\.dataset: .* is not under a data directory/],
    ["a link inside --data to a file outside", () => ({ dataset: path.join(data, "planted.jsonl"), repos: path.join(data, "repos") }), /invalid params: config\.dataset: .*planted\.jsonl is not under a data directory/],
    ["repos outside --data", () => ({ dataset: path.join(data, "samples.jsonl"), repos: fx.repos }), /invalid params: config\.repos: .* is not under a data directory/],
    ["a repo outside --data", () => ({ dataset: path.join(data, "samples.jsonl"), repo: fx.mergeFx.dir }), /invalid params: config\.repo: .* is not under a data directory/],
    ["a relative path", () => ({ dataset: "samples.jsonl", repos: path.join(data, "repos") }), /invalid params: config\.dataset: give an absolute path/],
  ] as const)("refuses %s before reading anything or calling the participant", async ([, config, message]) => {
    const p = await purple(never);
    const events = await agentBeatsRequest(green, request(p.url, config()));
    expect(finalState(events)).toBe("failed");
    expect(statusTexts(events).join("\n")).toMatch(message);
    expect(p.received).toEqual([]);
  });
});

describe("a2a serve: who may call it", () => {
  it("takes a token on loopback too: made, said once and written 0600 when none is given; a request without it never reaches the participant it names", async () => {
    expect(green.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const file = /token \S+ \(also in (\S+)\)/.exec(green.stderr())?.[1] as string;
    expect(path.basename(file)).toBe(`a2a-${new URL(green.url).port}.token`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, "utf8")).toBe(`${green.token}\n`);
    const p = await purple(async ({ events }) => events.end(TaskState.TASK_STATE_COMPLETED, "done"));
    const config = { dataset: path.join(data, "samples.jsonl"), repos: path.join(data, "repos"), ids: [fx.mergeSample.id] };
    for (const token of ["", "not-the-token"]) {
      await expect(agentBeatsRequest({ url: green.url, token }, request(p.url, config))).rejects.toThrow(/^message\/stream answered 401/);
    }
    expect(p.received).toEqual([]);
  });

  it("sends the participant its token (--participant-token), to the participant's origin only; without it a tokened participant gets nothing", async () => {
    const token = `purple-${process.pid}-token`;
    const answering = await purple(async ({ events }) => events.end(TaskState.TASK_STATE_COMPLETED, "done"), token);
    const config = { dataset: path.join(data, "samples.jsonl"), repos: path.join(data, "repos"), ids: [fx.mergeSample.id] };
    const refused = await agentBeatsRequest(green, request(answering.url, config));
    expect(finalState(refused)).toBe("completed");
    expect(statusTexts(refused).join("\n")).toMatch(/MCR: error \(AGENT_/);
    expect(answering.received).toEqual([]);
    const withToken = await serveInProcess(["serve", "--out", path.join(fx.root, "runs-token"), "--data", data, "--participant-token", token, "--idle-timeout", "0.3", "--poll", "0.1"], sandboxVars(fx.sandboxRoot));
    try {
      const events = await agentBeatsRequest(withToken, request(answering.url, config));
      expect(finalState(events)).toBe("completed");
      expect(answering.received).toHaveLength(1);
    } finally {
      await withToken.stop();
    }
  });

  it("refuses a request whose Host header names another host (DNS rebinding)", async () => {
    const url = new URL(green.url);
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request({ host: url.hostname, port: url.port, path: "/", method: "POST", headers: { Host: "attacker.example", "Content-Type": "application/json" } }, (res) => {
        let body = "";
        res.on("data", (b: Buffer) => (body += b.toString("utf8")));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on("error", reject);
      req.end("{}");
    });
    expect(answer.status).toBe(403);
    expect((JSON.parse(answer.body) as { error: { message: string } }).error.message).toMatch(/^host 'attacker.example' is not allowed/);
  });

  it("will not listen beyond loopback without a token, and with one refuses requests that lack it", async () => {
    const bare = await gitgood(["a2a", "serve", "--host", "0.0.0.0", "--port", "0", "--data", data]);
    expect(bare.code).toBe(2);
    expect(bare.stderr.trim()).toBe("gitgood: binding to 0.0.0.0 lets other machines connect: give --token (or GITGOOD_A2A_TOKEN), or bind to 127.0.0.1");
    const token = `t-${process.pid}`;
    const open = await serveInProcess(["serve", "--host", "0.0.0.0", "--out", path.join(fx.root, "runs-open"), "--data", data], { ...sandboxVars(fx.sandboxRoot), GITGOOD_A2A_TOKEN: token });
    try {
      const port = new URL(open.url).port;
      const url = `http://127.0.0.1:${port}`;
      const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: "none" } });
      const without = await fetch(`${url}/`, { method: "POST", headers: { "Content-Type": "application/json" }, body });
      expect(without.status).toBe(401);
      const wrong = await fetch(`${url}/`, { method: "POST", headers: { "Content-Type": "application/json", Authorization: "Bearer nope" }, body });
      expect(wrong.status).toBe(401);
      const right = await fetch(`${url}/`, { method: "POST", headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` }, body });
      expect(right.status).toBe(200);
      // The card stays public: it names no secret.
      expect((await fetch(`${url}/.well-known/agent-card.json`)).status).toBe(200);
    } finally {
      await open.stop();
    }
  });
});

describe("a2a serve: how much it takes", () => {
  it("runs at most --max-assessments at once: one more fails at once as busy", async () => {
    const slow = await purple(never);
    const config = { dataset: path.join(data, "samples.jsonl"), repos: path.join(data, "repos"), ids: [fx.mergeSample.id] };
    const first = agentBeatsRequest(green, request(slow.url, config)).catch(() => null);
    await waitFor(() => slow.received.length === 1, "the first assessment reaches its participant");
    const other = await purple(never);
    const second = await agentBeatsRequest(green, request(other.url, config));
    expect(finalState(second)).toBe("failed");
    expect(statusTexts(second).join("\n")).toMatch(/busy: 1 assessment\(s\) are running, the most this green agent takes at once/);
    expect(other.received).toEqual([]);
    await green.stop();
    await first;
    green = await serveInProcess(["serve", "--out", path.join(fx.root, "runs"), "--data", data, "--max-assessments", "1", "--idle-timeout", "0.3", "--poll", "0.1"], sandboxVars(fx.sandboxRoot));
  });
});

describe("a2a serve: the published green agent's requests", () => {
  it("accepts keys it does not know with a warning, echoes green_agent_model, and draws max_rows across scenarios", async () => {
    const answering = await purple(async ({ events }) => events.end(TaskState.TASK_STATE_COMPLETED, "done"));
    const config = {
      dataset: path.join(data, "samples.jsonl"),
      repos: path.join(data, "repos"),
      scenarios: ["mcr", "ir"],
      max_rows: 1,
      seed: 1,
      green_agent_model: "openai/gpt-4o",
      eval_mode: "full",
    };
    const picked = new Set<string>();
    for (const seed of [0, 1, 2, 3, 4, 5]) {
      const events = await agentBeatsRequest(green, request(answering.url, { ...config, seed }));
      expect(finalState(events)).toBe("completed");
      expect(statusTexts(events)).toContain("warning: config key(s) eval_mode are not gitgood's and are ignored");
      expect(resultOf(events)?.data.green_agent_model).toBe("openai/gpt-4o");
      for (const line of statusTexts(events)) {
        const m = /^\[1\/\d\] (\S+) /.exec(line);
        if (m) picked.add(m[1] as string);
      }
    }
    // The dataset's first row is the merge; a draw across scenarios also gives the chain.
    expect(picked).toEqual(new Set([fx.mergeSample.id, fx.chainSample.id]));
  }, 180_000);
});


