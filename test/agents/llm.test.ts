import { describe, expect, it } from "vitest";
import type { Session } from "../../src/agents/agent.js";
import { MCR } from "../../src/scenarios/mcr/index.js";
import { elideOldResults, LlmAgent } from "../../src/agents/llm.js";
import { ScriptedModelClient } from "../../src/model/scripted.js";

describe("long conversations", () => {
  it("elides the oldest tool results first and keeps the last one and the task", () => {
    const big = "x".repeat(1000);
    const messages = [
      { role: "system" as const, content: "s" },
      { role: "user" as const, content: "task" },
      { role: "tool" as const, tool_call_id: "a", content: big },
      { role: "tool" as const, tool_call_id: "b", content: big },
      { role: "tool" as const, tool_call_id: "c", content: big },
    ];
    elideOldResults(messages, 2200);
    expect(messages[2]?.content).toMatch(/^\[earlier output elided .*\(1000 characters\)/);
    expect(messages[3]?.content).toBe(big);
    expect(messages[4]?.content).toBe(big);
    expect(messages[1]?.content).toBe("task");
    elideOldResults(messages, 100);
    expect(messages[3]?.content).toMatch(/^\[earlier output elided/);
    expect(messages[4]?.content).toBe(big);
  });
});

describe("the session's signal", () => {
  it("reaches the model call, so a sample's time-out stops a model that does not answer", async () => {
    const controller = new AbortController();
    const model = new ScriptedModelClient([() => new Promise<never>(() => undefined)]);
    const session = {
      definition: MCR,
      hasExtraTools: false,
      context: { text: "resolve the conflict" },
      signal: controller.signal,
      tools: [],
      get canContinue() {
        return !controller.signal.aborted;
      },
      beginTurn: () => undefined,
      recordModel: () => undefined,
      isDone: () => false,
    } as unknown as Session;
    const running = new LlmAgent(model).run(session);
    while (model.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    expect(model.requests[0]?.signal).toBe(controller.signal);
    controller.abort();
    await expect(running).rejects.toMatchObject({ code: "ABORTED" });
  });
});
