import path from "node:path";
import { TaskState } from "@a2a-js/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ParticipantExecutor } from "../../src/a2a/participant.js";
import { agentCard, serveA2a } from "../../src/a2a/server.js";
import { askAgent, connectAgent } from "../../src/agents/a2a-client.js";
import { TaskEvents } from "../../src/a2a/events.js";
import type { AgentExecutor, ExecutionEventBus, RequestContext } from "@a2a-js/sdk/server";
import { ScriptedModelClient } from "../../src/model/scripted.js";
import type { ModelRequest } from "../../src/model/types.js";
import { connectTaskTools, sleep, solveMerge, startPurple, type Purple } from "../helpers/a2a.js";
import { gitgood } from "../helpers/cli.js";
import { buildMcpFixtures, recordsIn, sandboxVars, sandboxesIn, type McpFixtures } from "../helpers/mcp.js";
import { blob, resolutionsFor } from "../helpers/scenarios.js";
import { readFileSync } from "node:fs";

let fx: McpFixtures;
const closers: (() => Promise<void>)[] = [];
const MERGE_ID = "acme_widgets_merge_0000";

beforeAll(() => {
  fx = buildMcpFixtures();
});
afterAll(async () => {
  await Promise.all(closers.map((c) => c()));
  fx.cleanup();
});

async function purple(...args: Parameters<typeof startPurple>): Promise<Purple> {
  const p = await startPurple(...args);
  closers.push(() => p.close());
  return p;
}

describe("gitgood run --agent a2a --url URL", () => {
  it("runs any A2A agent on gitgood samples into a normal run that resumes; a non-streaming agent is polled", async () => {
    for (const streaming of [true, false]) {
      const p = await purple(
        async ({ ctx, text, events }) => {
          const client = await connectTaskTools(ctx, text);
          await solveMerge(client, fx);
          await client.close();
          events.end(TaskState.TASK_STATE_COMPLETED, "done");
        },
        { streaming },
      );
      const out = path.join(fx.root, `run-a2a-${streaming}`);
      const args = ["run", fx.samples, "--repos", fx.repos, "--ids", MERGE_ID, "--agent", "a2a", "--url", p.url, "--out", out];
      const first = await gitgood(args, { env: sandboxVars(fx.sandboxRoot) });
      expect(first.code, first.stderr).toBe(0);
      const records = Object.values(recordsIn(out));
      expect(records.map((r) => [r.agent, r.verdict])).toEqual([[`a2a:${p.url}`, "solved"]]);
      const again = await gitgood(args, { env: sandboxVars(fx.sandboxRoot) });
      expect(again.stderr).toMatch(/\(already done\)/);
      expect(p.received).toHaveLength(1);
    }
  }, 180_000);

  it("without --url is one line of wrong usage", async () => {
    const r = await gitgood(["run", fx.samples, "--repos", fx.repos, "--agent", "a2a"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("gitgood: the a2a agent needs --url URL (the A2A agent's base URL)\n");
  });
});

describe("the participant agent (gitgood a2a agent)", () => {
  it("works a GitGoodBench task through the MCP server its message names, with a scripted model", async () => {
    // The scripted model reads the conflicted files as the sandbox has them and resolves each region.
    const resolve = async (request: ModelRequest) => {
      const tools = (request.tools ?? []).map((t) => t.function.name);
      expect(tools).toContain("resolve_current_merge_conflict_with");
      const sandbox = sandboxesIn(fx.sandboxRoot).find((d) => path.basename(d).startsWith(`${MERGE_ID}-`)) as string;
      const calls = ["win.py", "app.py"].flatMap((file) =>
        resolutionsFor(readFileSync(path.join(sandbox, "work", file)), blob(fx.mergeFx, fx.merge, file)).map((content) => ({
          name: "resolve_current_merge_conflict_with",
          arguments: { content, reason: "take the recorded resolution" },
        })),
      );
      return { tool_calls: calls };
    };
    const model = new ScriptedModelClient([resolve, { tool_calls: [{ name: "finish_scenario", arguments: { reason: "done" } }] }, "All conflicts resolved."]);
    const card = agentCard({ name: "participant", description: "test", url: "http://127.0.0.1:1", skills: [] });
    const handle = await serveA2a({ host: "127.0.0.1", port: 0, access: { allowedOrigins: [], loopback: true }, card, executor: new ParticipantExecutor({ model, log: () => undefined }) });
    closers.push(() => handle.close());
    card.supportedInterfaces = card.supportedInterfaces.map((i) => ({ ...i, url: `${handle.url}/` }));
    const out = path.join(fx.root, "run-participant");
    const r = await gitgood(["run", fx.samples, "--repos", fx.repos, "--ids", MERGE_ID, "--agent", "a2a", "--url", handle.url, "--out", out], {
      env: sandboxVars(fx.sandboxRoot),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(Object.values(recordsIn(out)).map((x) => x.verdict)).toEqual(["solved"]);
    expect(model.requests).toHaveLength(3);
  });

  it("rejects a message that names no task it can work", async () => {
    const model = new ScriptedModelClient([]);
    const card = agentCard({ name: "participant", description: "test", url: "http://127.0.0.1:1", skills: [] });
    const handle = await serveA2a({ host: "127.0.0.1", port: 0, access: { allowedOrigins: [], loopback: true }, card, executor: new ParticipantExecutor({ model, log: () => undefined }) });
    closers.push(() => handle.close());
    card.supportedInterfaces = card.supportedInterfaces.map((i) => ({ ...i, url: `${handle.url}/` }));
    const client = await connectAgent(handle.url);
    await expect(askAgent(client, [{ text: "hello" }], { signal: new AbortController().signal, pollSeconds: 0.05 })).rejects.toThrow(
      /^the participant's task ended in state rejected: this agent takes/,
    );
  });

  it("waits for a participant's first event however long it comes after the idle limit: before a task begins there is nothing to poll", async () => {
    // The task event comes 0.5 s after the message, ten times the idle limit; the stream is kept, not given up.
    const executor: AgentExecutor = {
      async execute(ctx: RequestContext, bus: ExecutionEventBus) {
        await sleep(500);
        const events = new TaskEvents(ctx, bus);
        events.start();
        events.end(TaskState.TASK_STATE_COMPLETED, "late, and done");
      },
      async cancelTask() {},
    };
    const card = agentCard({ name: "slow starter", description: "test", url: "http://127.0.0.1:1", skills: [] });
    const handle = await serveA2a({ host: "127.0.0.1", port: 0, access: { allowedOrigins: [], loopback: true }, card, executor });
    closers.push(() => handle.close());
    card.supportedInterfaces = card.supportedInterfaces.map((i) => ({ ...i, url: `${handle.url}/` }));
    const client = await connectAgent(handle.url);
    const answer = await askAgent(client, [{ text: "hello" }], { signal: new AbortController().signal, idleSeconds: 0.05, pollSeconds: 0.05 });
    expect(answer.text).toMatch(/late, and done/);
    expect(answer.taskId).not.toBeNull();
  });

  it("gitgood a2a agent without --model is wrong usage", async () => {
    const r = await gitgood(["a2a", "agent"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/required option '--model <name>' not specified/);
  });
});
