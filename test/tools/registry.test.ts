import { describe, expect, it } from "vitest";
import { z } from "zod";
import { GitGoodError } from "../../src/errors.js";
import { ToolRegistry } from "../../src/tools/registry.js";
import { defineTool } from "../../src/tools/tool.js";
import { page, renderPage } from "../../src/tools/truncate.js";

interface Counter {
  n: number;
  big: string;
}

const tools = [
  defineTool<Counter, { by: z.ZodNumber }>({
    name: "add",
    description: "Adds to the counter.",
    params: { by: z.number().int().min(1).describe("How much to add.") },
    readOnly: false,
    moreWith: "show",
    async run(c, args) {
      if (args.by > 100) throw new GitGoodError("INDEX_OUT_OF_RANGE", "at most 100 at a time");
      c.n += args.by;
      return `now ${c.n}\n${c.big}`;
    },
  }),
  defineTool<Counter, Record<string, never>>({
    name: "show",
    description: "Shows the big text.",
    params: {},
    readOnly: true,
    async run(c) {
      return c.big;
    },
  }),
  defineTool<Counter, Record<string, never>>({
    name: "crash",
    description: "Fails like a bug would.",
    params: {},
    readOnly: true,
    async run() {
      throw new TypeError("bug");
    },
  }),
];

const big = Array.from({ length: 100 }, (_, i) => `line ${String(i).padStart(3, "0")} ${"x".repeat(20)}`).join("\n");

describe("ToolRegistry", () => {
  it("runs a valid call", async () => {
    const reg = new ToolRegistry(tools);
    const c = { n: 0, big: "" };
    const r = await reg.call(c, "add", { by: 2, reason: "because" });
    expect(r).toEqual({ tool: "add", ok: true, output: "now 2\n" });
  });

  it("turns unknown tools, bad arguments and handler errors into error results, changing nothing", async () => {
    const reg = new ToolRegistry(tools);
    const c = { n: 0, big: "" };
    const calls: [string, unknown, string, string][] = [
      ["nope", { reason: "r" }, "UNKNOWN_TOOL", "there is no tool 'nope'; the tools are: add, show, crash"],
      ["add", { by: 1 }, "BAD_ARGUMENTS", "bad arguments for add: reason: required parameter is missing"],
      ["add", { by: 1, reason: "" }, "BAD_ARGUMENTS", "reason: Too small"],
      ["add", { by: 0, reason: "r" }, "BAD_ARGUMENTS", "by: Too small"],
      ["add", { by: "1", reason: "r" }, "BAD_ARGUMENTS", "by: Invalid input: expected number, received string"],
      ["add", { by: 1, reason: "r", extra: 1 }, "BAD_ARGUMENTS", "unknown parameter(s) extra"],
      ["add", "by=1", "BAD_ARGUMENTS", "add takes a JSON object of named arguments"],
      ["add", null, "BAD_ARGUMENTS", "JSON object"],
      ["add", { by: 101, reason: "r" }, "INDEX_OUT_OF_RANGE", "at most 100 at a time"],
      ["add", { by: 1, reason: "r", output_offset: 5 }, "BAD_ARGUMENTS", "unknown parameter(s) output_offset"],
    ];
    for (const [name, args, code, text] of calls) {
      const r = await reg.call(c, name, args);
      expect(r.ok, name).toBe(false);
      expect(r.error?.code).toBe(code);
      expect(r.output).toContain(text);
      expect(r.output.startsWith("error: ")).toBe(true);
    }
    expect(c.n).toBe(0);
  });

  it("lets errors that are not GitGoodErrors through (they are system errors, not agent mistakes)", async () => {
    const reg = new ToolRegistry(tools);
    await expect(reg.call({ n: 0, big: "" }, "crash", { reason: "r" })).rejects.toThrow("bug");
  });

  it("refuses a tool defined twice", () => {
    expect(() => new ToolRegistry([...tools, tools[0] as (typeof tools)[number]])).toThrow("defined twice");
  });

  it("pages long answers of read-only tools with output_offset, and points mutating tools elsewhere", async () => {
    const reg = new ToolRegistry(tools, 1000);
    const c = { n: 0, big };
    const first = await reg.call(c, "show", { reason: "r" });
    expect(first.truncated).toMatchObject({ from: 0, total: big.length });
    const to = first.truncated?.to ?? 0;
    expect(first.output).toContain(`[... output truncated: characters 0-${to} of ${big.length} shown; call show again with "output_offset": ${to} to see the rest]`);
    expect(big.slice(0, to).endsWith("\n")).toBe(true);
    let seen = big.slice(0, to);
    let offset = to;
    while (offset < big.length) {
      const next = await reg.call(c, "show", { reason: "r", output_offset: offset });
      expect(next.output.startsWith(`[... continued from character ${offset} of ${big.length}]\n`)).toBe(true);
      const end = next.truncated?.to ?? big.length;
      seen += big.slice(offset, end);
      offset = end;
    }
    expect(seen).toBe(big);
    const mutating = await reg.call(c, "add", { by: 1, reason: "r" });
    expect(mutating.output).toContain("call show to see it]");
    expect(c.n).toBe(1);
  });
});

describe("page", () => {
  it("returns short text whole and never splits a surrogate pair", () => {
    expect(renderPage(page("abc", 0, 10), null)).toBe("abc");
    const emoji = "a😀b";
    const p = page(emoji, 0, 2);
    expect(p.text).toBe("a");
    expect(renderPage(p, null)).toContain("the rest is not shown");
    expect(page("abc", 99, 10)).toMatchObject({ text: "", from: 3, to: 3 });
  });
});
