import { describe, expect, it } from "vitest";
import { checkAccess, isLoopbackHost, originAllowed } from "../../src/mcp/guard.js";
import { shellLine, shellQuote } from "../../src/agents/mcp-config.js";
import { callResult, mcpTool } from "../../src/mcp/descriptors.js";
import { ICC_TOOLS } from "../../src/scenarios/icc/tools.js";
import { IR_TOOLS } from "../../src/scenarios/ir/tools.js";
import type { Tool } from "../../src/tools/tool.js";

describe("access checks", () => {
  it("knows loopback hosts", () => {
    for (const h of ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]", "LOCALHOST"]) expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ["0.0.0.0", "192.168.1.2", "example.com", "localhost.evil.com", "::", "128.0.0.1"]) expect(isLoopbackHost(h), h).toBe(false);
  });

  it("allows local origins and listed ones only", () => {
    expect(originAllowed("http://localhost:3000", [])).toBe(true);
    expect(originAllowed("https://127.0.0.1", [])).toBe(true);
    expect(originAllowed("http://[::1]:8080", [])).toBe(true);
    expect(originAllowed("http://localhost.evil.com", [])).toBe(false);
    expect(originAllowed("null", [])).toBe(false);
    expect(originAllowed("file://", [])).toBe(false);
    expect(originAllowed("https://app.example.com", [])).toBe(false);
    expect(originAllowed("https://app.example.com", ["https://app.example.com/"])).toBe(true);
  });

  it("checks origin, host and token, in that order", () => {
    const policy = { token: "t0k", allowedOrigins: [], loopback: true };
    const local = { host: "127.0.0.1:9000", authorization: "Bearer t0k" };
    expect(checkAccess(local, policy)).toBeNull();
    expect(checkAccess({ ...local, origin: "http://evil.example" }, policy)?.status).toBe(403);
    expect(checkAccess({ ...local, host: "evil.example:9000" }, policy)?.status).toBe(403);
    expect(checkAccess({ host: local.host }, policy)).toMatchObject({ status: 401, message: expect.stringContaining("required") });
    expect(checkAccess({ ...local, authorization: "Bearer t0k2" }, policy)).toMatchObject({ status: 401, message: "the bearer token is wrong" });
    expect(checkAccess({ ...local, authorization: "Basic t0k" }, policy)?.status).toBe(401);
    // Bound beyond loopback (token required then), any Host is fine.
    expect(checkAccess({ host: "10.0.0.5:9000", authorization: "Bearer t0k" }, { ...policy, loopback: false })).toBeNull();
    expect(checkAccess({ host: "localhost" }, { allowedOrigins: [], loopback: true })).toBeNull();
  });
});

describe("MCP descriptions", () => {
  it("derive hints from readOnly and keep the registry's schema", () => {
    for (const registry of [IR_TOOLS, ICC_TOOLS] as { tools: readonly Tool<unknown>[]; functionTools(): { function: { name: string; parameters: unknown } }[] }[]) {
      for (const tool of registry.tools) {
        const d = mcpTool({ tool, destructive: true });
        expect(d.annotations).toEqual({ readOnlyHint: tool.readOnly, destructiveHint: !tool.readOnly, idempotentHint: tool.readOnly, openWorldHint: false });
        expect(d.inputSchema).toEqual(registry.functionTools().find((f) => f.function.name === tool.name)?.function.parameters);
        expect((d.inputSchema.required ?? []) as string[]).toContain("reason");
      }
    }
  });

  it("turn results into content, errors flagged", () => {
    expect(callResult({ tool: "x", ok: false, output: "error: no" })).toEqual({ content: [{ type: "text", text: "error: no" }], isError: true });
    expect(callResult({ tool: "x", ok: true, output: "a\r\nb" }, ["done"]).content).toEqual([
      { type: "text", text: "a\r\nb" },
      { type: "text", text: "done" },
    ]);
  });

  it("quote command lines for a shell", () => {
    expect(shellQuote("/usr/bin/node")).toBe("/usr/bin/node");
    expect(shellQuote("it's here")).toBe(`"it's here"`);
    expect(shellLine({ command: "/n", args: ["a b", "--x"] })).toBe("/n 'a b' --x");
  });
});
