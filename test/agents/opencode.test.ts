import { describe, expect, it } from "vitest";
import { bwrapUnavailable } from "../../src/sandbox/isolation.js";
import { expectTurnsRecorded, MCR_SCRIPT, preset, PROBE_OUTPUT, runPreset, SHELL_PROBE, shellStep, SWE_SCRIPT, usePresetFixtures, USER_KEY, type PresetRun } from "./preset-runs.js";
import { offeredNames, scriptedUpstream, sentBack } from "./presets-upstream.js";

// The real opencode from npm (its Linux binary), driven by a scripted OpenAI-compatible model on 127.0.0.1.
const opencode = preset("opencode");
const fx = usePresetFixtures("opencode", 900_000);

const noBwrap = bwrapUnavailable();

/** What every real-agent run must show: the agent's turns are model turns, each counted, each sent with the user's key only. */
function expectRecorded(run: PresetRun, seen: Array<{ path: string; headers: Record<string, unknown> }>): void {
  const turns = expectTurnsRecorded(run, "opencode");
  const calls = seen.filter((s) => s.path.endsWith("/chat/completions"));
  // No title request: the preset names the session itself.
  expect(calls.length).toBe(turns);
  expect(calls.every((s) => s.headers.authorization === `Bearer ${USER_KEY}`)).toBe(true);
}

describe(`--agent opencode (opencode-ai ${opencode.version} from npm, driven by a scripted model)`, () => {
  it("resolves a SWE instance by editing the work tree with its own shell tool, in the jail", async (ctx) => {
    if (noBwrap) ctx.skip();
    const upstream = await scriptedUpstream(SWE_SCRIPT);
    try {
      const run = await runPreset(fx, "swe", ["--agent", "opencode", "--model", "openai/test-model", "--tools", "shell", "--price-in", "3", "--price-out", "15"],
        { OPENAI_BASE_URL: upstream.url, OPENAI_API_KEY: USER_KEY }, "opencode-swe");
      expect(run.cli.code, run.why).toBe(0);
      expect(run.record, run.why).toMatchObject({ status: "success", verdict: "solved", agent: `opencode@${opencode.version}`, scores: { swe: { status: "resolved" } } });
      expectRecorded(run, upstream.seen);
    } finally {
      await upstream.close();
    }
  }, 900_000);

  it("resolves an MCR sample through gitgood's tools over MCP, in the jail, refusing its own shell (--tools mcp)", async (ctx) => {
    if (noBwrap) ctx.skip();
    // The model asks for opencode's own bash first, which --tools mcp turned off: it must not run.
    const upstream = await scriptedUpstream([shellStep("opencode", SHELL_PROBE), ...MCR_SCRIPT]);
    try {
      const run = await runPreset(fx, "mcr", ["--agent", "opencode", "--model", "openai/test-model", "--tools", "mcp", "--price-in", "3", "--price-out", "15"],
        { OPENAI_BASE_URL: upstream.url, OPENAI_API_KEY: USER_KEY }, "opencode-mcr");
      expect(run.cli.code, run.why).toBe(0);
      expect(run.record, run.why).toMatchObject({ status: "success", solved: true, agent: `opencode@${opencode.version}` });
      expect(run.events.filter((e) => e.type === "tool_call").map((e) => e.tool)).toEqual(["resolve_current_merge_conflict_with", "finish_scenario"]);
      expectRecorded(run, upstream.seen);
      const offered = offeredNames(upstream.seen).flat();
      expect(offered.some((n) => n.endsWith("finish_scenario"))).toBe(true);
      for (const own of ["bash", "edit", "write", "patch"]) expect(offered).not.toContain(own);
      expect(sentBack(upstream.seen)).not.toContain(PROBE_OUTPUT);
    } finally {
      await upstream.close();
    }
  }, 900_000);
});
