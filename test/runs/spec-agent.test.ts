import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { registerAgentKind, unregisterAgentKind } from "../../src/agents/index.js";
import { OracleAgent } from "../../src/agents/oracle.js";
import { buildProgram } from "../../src/cli/main.js";
import { RunStore } from "../../src/runs/store.js";
import { parseTicket } from "../../src/runs/ticket.js";
import { useOneMerge } from "../helpers/one-merge.js";
import { oracleTicket } from "../helpers/runs.js";

/*
 * The agent's own settings as run settings (`--command`, `--url`, `--agent-version`, `--tools`): options of run
 * and bench made from their declarations, recorded in run.json's spec, `command` and `tools` in its identity
 * too, each only where the agent takes it (as its definition says: the oracle takes none, the command agent its
 * command); a queue ticket carries them in its spec, and one of an older producer that carries them in its agent
 * spec is refused; a run.json written before they moved resumes with the same flags.
 */

const merge = useOneMerge([]);
const { run, silent } = merge;

/** The oracle, as an agent whose definition does not say which agent settings it takes: it takes every one. */
const EVERY_SETTING = "oracle-every-setting";
registerAgentKind({ name: EVERY_SETTING, create: () => new OracleAgent() });
afterAll(() => unregisterAgentKind(EVERY_SETTING));

type RunJson = { identity: { agent: string; spec?: Record<string, unknown> }; spec?: Record<string, unknown> };

const readRunJson = (dir: string) => merge.readRunJson<RunJson>(dir);

/** The keys of the agent's settings in the spec. */
const AGENT_KEYS = ["command", "url", "agent_version", "tools"];

/** run.json as a run made before the agent's settings moved into the spec wrote it: neither its spec nor its identity's names them. */
function writePreviousLayout(dir: string): void {
  const json = readRunJson(dir);
  const without = (spec: Record<string, unknown> | undefined) => Object.fromEntries(Object.entries(spec ?? {}).filter(([k]) => !AGENT_KEYS.includes(k)));
  const { spec, ...rest } = json.identity;
  const identitySpec = without(spec);
  const identity = Object.keys(identitySpec).length > 0 ? { ...rest, spec: identitySpec } : rest;
  writeFileSync(path.join(dir, "run.json"), JSON.stringify({ ...json, identity, spec: without(json.spec) }));
}

/** A command the command agent runs, longer than the 60 characters its agent name keeps. */
const longCommand = (tail: string) => `cat > /dev/null # ${"x".repeat(60)} ${tail}`;

/** The refusal of a resume with another command of the same first 60 characters (the values shown cut at 80). */
const COMMAND_DIFFERS = /holds a run with other settings \(spec\.command: "cat > \/dev\/null # x+\.\.\. -> "cat > \/dev\/null # x+\.\.\.\);/;

describe("the agent's settings as run settings", () => {
  it("are options of run and bench, --tools with its choices and default", async () => {
    for (const verb of ["run", "bench"]) {
      const help = ((await buildProgram(silent, verb)).commands.find((c) => c.name() === verb)?.helpInformation() ?? "").replace(/\s+/g, " ");
      expect(help, verb).toContain("--command <cmd> program for the command and mcp-command agents");
      expect(help, verb).toContain("--agent-version <version> the npm version of a CLI-agent preset");
      expect(help, verb).toContain("--url <url> the a2a agent's A2A base URL");
      expect(help, verb).toContain('--tools <mode> how a CLI-agent preset gets a scenario\'s tools: over MCP, through its own shell (gitgood tool), or both (choices: "both", "mcp", "shell", default: "both")');
    }
  });

  it("record the command in the identity whole: a resume with another command is refused even where the agent's name is the same", async () => {
    const out = path.join(merge.fx.scratch("runs"), "command");
    const args = ["--agent", "command", "--command", longCommand("a"), "--isolation", "none"];
    const first = await run(out, args);
    expect(first.code, first.stderr).toBe(0);
    const json = readRunJson(out);
    expect(json.spec).toMatchObject({ command: longCommand("a"), url: null, agent_version: null, tools: "both" });
    expect(json.identity.spec).toEqual({ command: longCommand("a") });
    const again = await run(out, args);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/already done/);
    const other = await run(out, ["--agent", "command", "--command", longCommand("b"), "--isolation", "none"]);
    expect(other.code).not.toBe(0);
    // The only difference named is the command's: the agent's names (its first 60 characters) are the same.
    expect(other.stderr).toMatch(COMMAND_DIFFERS);
  });

  it("record the tools in the identity when not both, the version and URL in the spec alone", async () => {
    const out = path.join(merge.fx.scratch("runs"), "tools");
    const args = ["--agent", EVERY_SETTING, "--tools", "mcp", "--agent-version", "1.2.3", "--url", "http://127.0.0.1:9/"];
    expect((await run(out, args)).code).toBe(0);
    const json = readRunJson(out);
    expect(json.spec).toMatchObject({ tools: "mcp", agent_version: "1.2.3", url: "http://127.0.0.1:9/", command: null });
    expect(json.identity.spec).toEqual({ tools: "mcp" });
    const both = await run(out, ["--agent", EVERY_SETTING]);
    expect(both.code).not.toBe(0);
    expect(both.stderr).toMatch(/\(spec\.tools: "mcp" -> none\)/);
    const bad = await run(path.join(merge.fx.scratch("runs"), "bad-tools"), ["--agent", "oracle", "--tools", "all"]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr.trim().split("\n")).toHaveLength(1);
    expect(bad.stderr).toMatch(/--tools/);
  });

  it("a run.json of the previous layout resumes with the same flags and is refused with others", async () => {
    const out = path.join(merge.fx.scratch("runs"), "previous");
    const args = ["--agent", "command", "--command", longCommand("a"), "--tools", "shell", "--isolation", "none"];
    expect((await run(out, args)).code).toBe(0);
    writePreviousLayout(out);
    // The options its session was given stand for the settings.
    const read = RunStore.readConfig(out);
    // The command agent takes no --tools: it is left out as a run made now leaves it out.
    expect(read.identity.spec).toEqual({ command: longCommand("a") });
    expect(read.spec).toMatchObject({ command: longCommand("a"), tools: "both" });
    const again = await run(out, args);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/already done/);
    writePreviousLayout(out);
    const other = await run(out, ["--agent", "command", "--command", longCommand("b"), "--tools", "shell", "--isolation", "none"]);
    expect(other.code).not.toBe(0);
    expect(other.stderr).toMatch(COMMAND_DIFFERS);
    writePreviousLayout(out);
    const mcp = await run(out, ["--agent", "command", "--command", longCommand("a"), "--tools", "mcp", "--isolation", "none"]);
    expect(mcp.code, mcp.stderr).toBe(0);
    expect(mcp.stderr).toMatch(/already done/);
  });

  it("travel in a queue ticket's spec; a ticket of an older producer carrying them in its agent spec is refused", async () => {
    const out = path.join(merge.fx.scratch("runs"), "ticketed");
    expect((await run(out, ["--agent", EVERY_SETTING, "--tools", "shell", "--agent-version", "1.2.3"])).code).toBe(0);
    const ticket = oracleTicket(out, merge.sample);
    expect(ticket.spec).toMatchObject({ tools: "shell", agent_version: "1.2.3", command: null, url: null });
    expect(ticket.agent).toEqual({ name: "oracle", model: null, options: {} });
    const older: Record<string, Record<string, unknown>> = {
      "agent.command": { ...ticket.agent, command: null },
      "agent.url": { ...ticket.agent, url: "http://127.0.0.1:9/" },
      "agent.options.tools": { ...ticket.agent, options: { tools: "mcp" } },
      "agent.options.agentVersion": { ...ticket.agent, options: { agentVersion: "1.0.0" } },
    };
    for (const [field, agent] of Object.entries(older)) {
      expect(() => parseTicket({ ...ticket, agent }), field).toThrow(
        new RegExp(`^not a job ticket of this gitgood: ${field.replace(/\./g, "\\.")} travel in its spec now; run the producer and the workers at the same version$`),
      );
    }
  });
  it("leave out of the spec and the identity what the agent does not take: a resume with another value goes on", async () => {
    const out = path.join(merge.fx.scratch("runs"), "ignored");
    const first = await run(out, ["--agent", "oracle", "--command", "cat", "--tools", "mcp", "--url", "http://127.0.0.1:9/", "--agent-version", "1.2.3"]);
    expect(first.code, first.stderr).toBe(0);
    const json = readRunJson(out);
    expect(json.spec).toMatchObject({ command: null, url: null, agent_version: null, tools: "both" });
    expect(json.identity.spec).toBeUndefined();
    const other = await run(out, ["--agent", "oracle", "--command", "cat -n", "--tools", "shell"]);
    expect(other.code, other.stderr).toBe(0);
    expect(other.stderr).toMatch(/already done/);

    // The command agent takes its command and not the tools.
    const command = path.join(merge.fx.scratch("runs"), "ignored-tools");
    expect((await run(command, ["--agent", "command", "--command", longCommand("a"), "--tools", "shell", "--isolation", "none"])).code).toBe(0);
    expect(readRunJson(command).identity.spec).toEqual({ command: longCommand("a") });
    const tools = await run(command, ["--agent", "command", "--command", longCommand("a"), "--tools", "mcp", "--isolation", "none"]);
    expect(tools.code, tools.stderr).toBe(0);
    expect(tools.stderr).toMatch(/already done/);
  });

  it("a run.json that recorded a setting its agent does not take reads without it, and resumes with another value", async () => {
    const out = path.join(merge.fx.scratch("runs"), "recorded-ignored");
    expect((await run(out, ["--agent", "oracle", "--command", "cat"])).code).toBe(0);
    const json = readRunJson(out);
    // As a run made before agents said which settings they take recorded it.
    writeFileSync(path.join(out, "run.json"), JSON.stringify({ ...json, identity: { ...json.identity, spec: { command: "cat" } }, spec: { ...json.spec, command: "cat" } }));
    const read = RunStore.readConfig(out);
    expect(read.identity.spec).toBeUndefined();
    expect(read.spec).toMatchObject({ command: null });
    const other = await run(out, ["--agent", "oracle", "--command", "cat -n"]);
    expect(other.code, other.stderr).toBe(0);
    expect(other.stderr).toMatch(/already done/);
  });
});
