import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { shellQuote } from "../../src/agents/mcp-config.js";
import { bwrapUnavailable } from "../../src/sandbox/isolation.js";
import { MCR } from "../../src/scenarios/mcr/index.js";
import { gitgood } from "../helpers/cli.js";
import { sandboxesIn, trajectoryOf } from "../helpers/mcp.js";
import { useRunFixture } from "../helpers/run-fixture.js";

// The agent is a node script using the SDK's client; it reaches the server through the built CLI (npm run build first).
const AGENT = path.join(path.dirname(fileURLToPath(import.meta.url)), "agents", "theirs.mjs");
const PACKAGE_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

const calc = useRunFixture();

const sandboxRoot = (): string => process.env.GITGOOD_SANDBOX_ROOT as string;
const noBwrap = bwrapUnavailable();
if (noBwrap) process.stderr.write(`mcp-command tests in namespace isolation skipped: ${noBwrap}\n`);

describe("gitgood run --agent mcp-command", () => {
  it.for([
    ["namespace", noBwrap !== null],
    ["none", false],
  ] as const)("gives an external MCP agent the server configuration and scores what it did (isolation %s)", async ([mode, skip], ctx) => {
    if (skip) ctx.skip();
    const out = `${calc.out}-agent-${mode}`;
    const command = `${shellQuote(process.execPath)} ${shellQuote(AGENT)}`;
    const r = await calc.runEasy(["--agent", "mcp-command", "--command", command, "--isolation", mode, "--allow-read", path.dirname(AGENT), "--out", out, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(readFileSync(path.join(out, "run.json"), "utf8")) as { isolation: unknown }).isolation).toMatchObject({ mode });
    const record = calc.easyRecord(out);
    expect(record).toMatchObject({ status: "success", solved: true, verdict: "solved", tool_calls: 3 });
    expect(record?.agent).toMatch(/^mcp-command:/);
    const t = trajectoryOf(out, record);
    const events = t.events as { type: string; tool?: string; text?: string; output?: string }[];
    expect(events.filter((e) => e.type === "tool_call").map((e) => e.tool)).toEqual([
      "get_task",
      "resolve_current_merge_conflict_with",
      "finish_scenario",
    ]);
    // The trajectory holds what the agent got back, through the run's tool broker.
    expect(events.find((e) => e.type === "tool_result" && e.tool === "get_task")?.output).toContain("call finish_scenario");
    expect(events.find((e) => e.type === "note" && e.text?.startsWith("command exited with code 0"))?.text).toContain("Submitted.");
    expect(sandboxesIn(sandboxRoot())).toEqual([]);
  });

  it("hands the agent a configuration file and a command line for the same server, on the attempt's tool socket", async (ctx) => {
    if (noBwrap) ctx.skip();
    const out = `${calc.out}-env`;
    const script = `node -e 'const fs=require("fs");console.log("SEEN"+JSON.stringify({config: JSON.parse(fs.readFileSync(process.env.GITGOOD_MCP_CONFIG,"utf8")), file: process.env.GITGOOD_MCP_CONFIG, line: process.env.GITGOOD_MCP_COMMAND, socket: process.env.GITGOOD_TOOL_SOCKET, sandbox: process.env.GITGOOD_SANDBOX ?? null, cwd: process.cwd()}))'`;
    const r = await calc.runEasy(["--agent", "mcp-command", "--command", script, "--out", out], { GITGOOD_SANDBOX: "/somewhere/else" });
    expect(r.code, r.stderr).toBe(0);
    const record = calc.easyRecord(out);
    const note = (trajectoryOf(out, record).events as { type: string; text?: string }[]).find((e) => e.type === "note")?.text ?? "";
    const got = JSON.parse(/SEEN(.*)/.exec(note)?.[1] ?? "null") as {
      config: { mcpServers: { gitgood: { command: string; args: string[] } } };
      file: string;
      line: string;
      socket: string;
      sandbox: string | null;
      cwd: string;
    };
    const entry = got.config.mcpServers.gitgood;
    expect(entry.command).toBe(process.execPath);
    expect(entry.args.slice(1)).toEqual(["mcp", "--tool-socket", "/run/gitgood/tool.sock"]);
    expect(got.file).toBe("/run/gitgood/mcp.json");
    expect(got.socket).toBe("/run/gitgood/tool.sock");
    expect(got.sandbox).toBeNull();
    expect(got.line).toBe([entry.command, ...entry.args].map(shellQuote).join(" "));
    expect(path.basename(got.cwd)).toBe("work");
    expect(existsSync(got.cwd)).toBe(false);
    // The agent did nothing: the record says so, it is not an error.
    expect(record).toMatchObject({ status: "success", solved: false });
  });

  it("serves the attempt through the proxy until it is submitted; later scenario calls are refused and recorded", async () => {
    const out = `${calc.out}-proxy`;
    const code = `
const { createRequire } = await import("node:module");
const fs = await import("node:fs");
const require = createRequire(${JSON.stringify(path.join(PACKAGE_DIR, "package.json"))});
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
const entry = JSON.parse(fs.readFileSync(process.env.GITGOOD_MCP_CONFIG, "utf8")).mcpServers.gitgood;
const client = new Client({ name: "probe", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command: entry.command, args: entry.args }));
const names = async () => (await client.listTools()).tools.map((t) => t.name);
const resources = async () => (await client.listResources()).resources.map((r) => r.uri);
const out = { before: await names(), resources: await resources() };
out.task = JSON.parse((await client.readResource({ uri: "gitgood://task.json" })).contents[0].text).files;
out.finish = (await client.callTool({ name: "finish_scenario", arguments: {} })).content[0].text;
out.after = await names();
out.resourcesAfter = await resources();
const late = await client.callTool({ name: "view_current_merge_conflict_with", arguments: { context_window_size: 1, reason: "late" } });
out.late = [late.isError, late.content[0].text];
console.log("PROBE" + JSON.stringify(out));
await client.close();
`;
    const r = await calc.runEasy(["--agent", "mcp-command", "--command", `node --input-type=module -e ${shellQuote(code)}`, "--out", out]);
    expect(r.code, r.stderr).toBe(0);
    const record = calc.easyRecord(out);
    const events = trajectoryOf(out, record).events as { type: string; tool?: string; ok?: boolean; text?: string }[];
    const got = JSON.parse(/PROBE(.*)/.exec(events.find((e) => e.type === "note")?.text ?? "")?.[1] ?? "null") as Record<string, unknown>;
    expect(got.before).toEqual(["get_task", "finish_scenario", ...MCR.tools.names()]);
    expect(got.resources).toEqual(["gitgood://task", "gitgood://task.json"]);
    expect(got.task).toEqual(["io.py"]);
    expect(got.finish).toMatch(/^Submitted\./);
    expect(got.after).toEqual(["get_task", "finish_scenario"]);
    expect(got.resourcesAfter).toEqual([]);
    expect(got.late).toEqual([true, "error: the scenario was submitted; end your program to have it scored"]);
    expect(events.filter((e) => e.type === "tool_result").map((e) => [e.tool, e.ok])).toEqual([
      ["finish_scenario", true],
      ["view_current_merge_conflict_with", false],
    ]);
    expect(record).toMatchObject({ status: "success", solved: false, tool_calls: 2 });
  });

  it("records a failing agent program as an error", async () => {
    const out = `${calc.out}-fail`;
    const r = await calc.runEasy(["--agent", "mcp-command", "--command", "echo broken >&2; exit 3", "--out", out]);
    // The run goes on past a failed sample, then exits 1 for it.
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/\ngitgood: 1 of 1 attempt\(s\) ended in a system error: AGENT_FAILED ×1 \(acme_calc_merge_0000\.MCR\): agent command exited with code 3: broken; .*--allow-errors/);
    expect(calc.easyRecord(out)).toMatchObject({ status: "error", error: { code: "AGENT_FAILED" } });
    expect(calc.easyRecord(out)?.error?.message).toContain("exited with code 3: broken");
  });

  it("needs --command", async () => {
    const r = await gitgood(["run", calc.samplesFile, "--repo", calc.fx.dir, "--agent", "mcp-command"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the mcp-command agent needs --command "PROGRAM ARGS"');
  });
});
