import { afterAll, describe, expect, it } from "vitest";
import { AGENT_SETTINGS, agentTakes, createAgent, registerAgentKind, unregisterAgentKind, type AgentOptions, type AgentSetting } from "../../src/agents/index.js";
import { OracleAgent } from "../../src/agents/oracle.js";
import { baselineStrategies } from "../../src/agents/strategies.js";

/*
 * An agent's definition says which of the agent settings (`--command`, `--url`, `--agent-version`, `--tools`) it
 * takes: `createAgent` gives it those alone, and `agentTakes` tells a run which ones to record.
 */

/** The options the test kinds were last made with. */
const given: Record<string, AgentOptions> = {};
const kind = (name: string, settings?: AgentSetting[]) => ({
  name,
  ...(settings ? { settings } : {}),
  create: (opts: AgentOptions) => {
    given[name] = opts;
    return new OracleAgent();
  },
});
registerAgentKind(kind("takes-url", ["url"]));
registerAgentKind(kind("takes-every-setting"));
afterAll(() => {
  unregisterAgentKind("takes-url");
  unregisterAgentKind("takes-every-setting");
});

const ALL: AgentOptions = { model: "m", command: "cat", url: "http://127.0.0.1:9/", agentVersion: "1.2.3", tools: "mcp", attempts: 2 };

describe("the agent settings an agent takes", () => {
  it("are all createAgent gives it of them; its other options reach it as before", () => {
    createAgent("takes-url", ALL);
    expect(given["takes-url"]).toEqual({ model: "m", url: "http://127.0.0.1:9/", attempts: 2 });
    createAgent("takes-every-setting", ALL);
    expect(given["takes-every-setting"]).toEqual(ALL);
  });

  it("are as each built-in agent's definition says, none for a baseline, every one for a definition that says nothing", () => {
    expect(AGENT_SETTINGS.filter((s) => agentTakes("command", s))).toEqual(["command"]);
    expect(agentTakes("mcp-command", "command")).toBe(true);
    expect(agentTakes("a2a", "url")).toBe(true);
    expect(agentTakes("a2a", "command")).toBe(false);
    expect(agentTakes("claude-code", "tools") && agentTakes("claude-code", "agentVersion")).toBe(true);
    expect(agentTakes("claude-code", "command")).toBe(false);
    for (const name of ["llm", "oracle", "baseline"]) expect(agentTakes(name, "command"), name).toBe(false);
    const [baseline] = baselineStrategies().keys();
    if (baseline === undefined) throw new Error("no baseline strategy registered");
    expect(agentTakes(baseline, "tools")).toBe(false);
    expect(agentTakes("takes-every-setting", "tools")).toBe(true);
  });
});
