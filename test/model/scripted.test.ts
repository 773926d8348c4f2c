import { describe, expect, it } from "vitest";
import { ScriptedModelClient } from "../../src/model/scripted.js";

describe("ScriptedModelClient", () => {
  it("answers from its script and records requests", async () => {
    const m = new ScriptedModelClient(["plain", { tool_calls: [{ name: "t", arguments: { a: 1 } }] }, (req) => `saw ${req.messages.length}`]);
    expect((await m.complete({ messages: [] })).message.content).toBe("plain");
    const second = await m.complete({ messages: [{ role: "user", content: "x" }] });
    expect(second.message.tool_calls?.[0]).toEqual({ id: "call_2_0", type: "function", function: { name: "t", arguments: '{"a":1}' } });
    expect((await m.complete({ messages: [{ role: "user", content: "x" }, { role: "user", content: "y" }] })).message.content).toBe("saw 2");
    await expect(m.complete({ messages: [] })).rejects.toMatchObject({ code: "MODEL_ERROR", message: "scripted model has no reply #4" });
    expect(m.requests).toHaveLength(4);
  });

  it("waits for a step that answers later", async () => {
    const m = new ScriptedModelClient([() => Promise.resolve({ content: "late" })]);
    expect((await m.complete({ messages: [] })).message.content).toBe("late");
  });

  it("rejects with ABORTED when a request is aborted while the script has not answered", async () => {
    const m = new ScriptedModelClient([() => new Promise<never>(() => undefined), "next"], "slow");
    const controller = new AbortController();
    const pending = m.complete({ messages: [], signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: "ABORTED", data: { model: "slow" } });
    expect((await m.complete({ messages: [] })).message.content).toBe("next");
  });

  it("answers nothing and keeps its place when the signal is already aborted", async () => {
    const m = new ScriptedModelClient(["first"]);
    await expect(m.complete({ messages: [], signal: AbortSignal.abort() })).rejects.toMatchObject({ code: "ABORTED" });
    expect(m.requests).toHaveLength(0);
    expect((await m.complete({ messages: [] })).message.content).toBe("first");
  });
});
