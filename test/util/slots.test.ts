import { describe, expect, it } from "vitest";
import { interleave } from "../../src/util/interleave.js";
import { Slots } from "../../src/util/slots.js";

describe("Slots", () => {
  it("keeps two pools side by side to the shared number of sources at once, and runs every source", async () => {
    const slots = new Slots(2);
    let running = 0;
    let most = 0;
    const source = (name: string) => async function* () {
      running++;
      most = Math.max(most, running);
      for (let i = 0; i < 3; i++) {
        await new Promise((resolve) => setImmediate(resolve));
        yield `${name}${i}`;
      }
      running--;
    };
    const pool = (prefix: string) => interleave(["a", "b", "c"].map((n) => slots.gate(source(prefix + n))), 3);
    const drain = async (it: AsyncIterable<string>) => {
      const out: string[] = [];
      for await (const x of it) out.push(x);
      return out;
    };
    const [first, second] = await Promise.all([drain(pool("x")), drain(pool("y"))]);
    expect(most).toBe(2);
    expect(first).toHaveLength(9);
    expect(second).toHaveLength(9);
  });

  it("runs a task in a slot of its own beside gated sources, and gives the slot back when it fails", async () => {
    const slots = new Slots(1);
    const order: string[] = [];
    const gated = slots.gate(async function* () {
      order.push("source start");
      await new Promise((resolve) => setImmediate(resolve));
      order.push("source end");
      yield 1;
    });
    const drained = (async () => {
      for await (const _ of gated()) void _;
    })();
    const task = slots.run(async () => {
      order.push("task");
      return 42;
    });
    await Promise.all([drained, expect(task).resolves.toBe(42)]);
    expect(order).toEqual(["source start", "source end", "task"]);
    await expect(slots.run(() => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await slots.run(async () => "free again")).toBe("free again");
  });
});
