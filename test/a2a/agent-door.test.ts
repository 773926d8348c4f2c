import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentExecutor } from "@a2a-js/sdk/server";
import { agentCard, serveA2a } from "../../src/a2a/server.js";
import { askAgent, connectAgent } from "../../src/agents/a2a-client.js";
import { serveInProcess, type InProcessServer } from "../helpers/a2a.js";
import { chatJson, fakeUpstream, type FakeUpstream } from "../proxy/fake-upstream.js";

// `gitgood a2a agent` has gitgood mcp's door: a token on every request but the card's (made and written 0600
// when none is given), a loopback Host, loopback by default. Its model is a fake endpoint on 127.0.0.1 that
// counts the calls it gets: a request refused at the door makes none.

const USER_KEY = "sk-user-model-key";
let scratch: string;
let shared: string;
let model: FakeUpstream;
let agent: InProcessServer;

beforeAll(async () => {
  scratch = mkdtempSync(path.join(os.tmpdir(), "gitgood-agent-door-"));
  shared = path.join(scratch, "shared");
  mkdirSync(path.join(shared, "repo"), { recursive: true });
  writeFileSync(path.join(shared, "repo", "a.py"), "x = 1\n");
  mkdirSync(path.join(scratch, "sandboxes"), { mode: 0o700 });
  model = await fakeUpstream(() => ({ json: chatJson("Nothing to change.", { in: 3, out: 2 }) }));
  agent = await serveInProcess(["agent", "--model", "m", "--shared-dir", shared, "--isolation", "none", "--max-turns", "2"], {
    GITGOOD_SANDBOX: "",
    GITGOOD_SANDBOX_ROOT: path.join(scratch, "sandboxes"),
    OPENAI_BASE_URL: model.url,
    OPENAI_API_KEY: USER_KEY,
    GITGOOD_A2A_TOKEN: "",
  });
});

afterAll(async () => {
  await agent.stop();
  await model.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** A SWE task in the shared directory: a message that, once taken, makes the agent call its model. */
const sweTask = (): string => `REPO_DIR:${path.join(shared, "repo")}\n\nProblem Statement:\nmake x two`;

/** A v0.3 `message/send` (blocking: it answers when the task has ended) with the given headers. */
function send(headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const url = new URL(agent.url);
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "message/send",
    params: { message: { kind: "message", role: "user", messageId: randomUUID(), parts: [{ kind: "text", text: sweTask() }] } },
  });
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: "/", method: "POST", headers: { "Content-Type": "application/json", ...headers } }, (res) => {
      let text = "";
      res.on("data", (b: Buffer) => (text += b.toString("utf8")));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("a2a agent: its door", () => {
  it("listens on 127.0.0.1 by default, and makes a token it says once and writes to a file only the user can read", () => {
    expect(agent.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const m = /token (\S+) \(also in (\S+)\); every request must carry Authorization: Bearer <token>/.exec(agent.stderr());
    expect(m?.[1]).toBe(agent.token);
    const file = m?.[2] as string;
    expect(path.basename(file)).toBe(`a2a-${new URL(agent.url).port}.token`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, "utf8")).toBe(`${agent.token}\n`);
  });

  it("refuses a task without the token, or with a wrong one, before its model is called", async () => {
    for (const headers of [{}, { Authorization: "Bearer not-the-token" }] as Record<string, string>[]) {
      const r = await send(headers);
      expect(r.status).toBe(401);
    }
    expect(model.seen).toEqual([]);
  });

  it("refuses a request whose Host names another host (DNS rebinding), token or not", async () => {
    const r = await send({ Host: "attacker.example", Authorization: `Bearer ${agent.token}` });
    expect(r.status).toBe(403);
    expect(JSON.parse(r.body).error.message).toMatch(/^host 'attacker.example' is not allowed/);
    expect(model.seen).toEqual([]);
  });

  it("works a task that carries the token, its model called with the user's key; the card is public and names the scheme, not the token", async () => {
    const client = await connectAgent(agent.url, agent.token);
    const answer = await askAgent(client, [{ text: sweTask() }], { signal: new AbortController().signal, pollSeconds: 0.05 });
    expect(answer.text).toContain("<patch>");
    expect(model.seen.length).toBeGreaterThan(0);
    expect(model.seen[0]?.headers.authorization).toBe(`Bearer ${USER_KEY}`);
    const card = await fetch(`${agent.url}/.well-known/agent-card.json`);
    expect(card.status).toBe(200);
    const text = await card.text();
    expect(text).not.toContain(agent.token);
    expect(JSON.parse(text).securitySchemes).toEqual({ bearer: expect.objectContaining({ type: "http", scheme: "Bearer" }) });
  });
});

describe("the A2A client's token", () => {
  it("goes only to the agent's own origin: a card naming another address for its interface gets none from it", async () => {
    const heard: Array<string | undefined> = [];
    const elsewhere = http.createServer((req, res) => {
      heard.push(req.headers.authorization);
      req.resume();
      res.writeHead(500).end();
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, "127.0.0.1", resolve));
    const other = `http://127.0.0.1:${(elsewhere.address() as { port: number }).port}`;
    const card = agentCard({ name: "redirecting", description: "its interface is elsewhere", url: other, skills: [] });
    card.capabilities = { streaming: false, pushNotifications: false, extensions: [] };
    const idle: AgentExecutor = { execute: async () => undefined, cancelTask: async () => undefined };
    const handle = await serveA2a({ host: "127.0.0.1", port: 0, card, executor: idle, access: { allowedOrigins: [], loopback: true } });
    try {
      const client = await connectAgent(handle.url, "secret-of-the-agent");
      await expect(askAgent(client, [{ text: "hello" }], { signal: new AbortController().signal, pollSeconds: 0.05 })).rejects.toThrow();
      expect(heard.length).toBeGreaterThan(0);
      expect(heard).toEqual(heard.map(() => undefined));
    } finally {
      await handle.close();
      elsewhere.closeAllConnections();
      await new Promise<void>((resolve) => elsewhere.close(() => resolve()));
    }
  });
});
