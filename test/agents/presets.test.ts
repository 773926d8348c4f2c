import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { bwrapUnavailable } from "../../src/sandbox/isolation.js";
import { gitgood } from "../helpers/cli.js";
import { expectTurnsRecorded, MCR_SCRIPT, preset, PROBE_OUTPUT, runPreset, SHELL_PROBE, shellStep, SWE_SCRIPT, usePresetFixtures, USER_KEY, type PresetRun } from "./preset-runs.js";
import { offeredNames, scriptedUpstream, sentBack } from "./presets-upstream.js";

// The real Claude Code from npm (plain JavaScript), driven by a scripted Anthropic-API model on 127.0.0.1.
const claude = preset("claude-code");
const fx = usePresetFixtures("claude-code", 600_000);

const noBwrap = bwrapUnavailable();

/** The agent's turns are model turns, each counted and priced, each sent upstream with the user's key only. */
function expectRecorded(run: PresetRun, seen: Array<{ path: string; headers: Record<string, unknown> }>): void {
  const turns = expectTurnsRecorded(run, "claude-code");
  const viaProxy = seen.filter((s) => s.path.startsWith("/v1/messages"));
  expect(viaProxy.length).toBe(turns);
  expect(viaProxy.every((s) => s.headers["x-api-key"] === USER_KEY)).toBe(true);
}

const env = (origin: string) => ({ ANTHROPIC_BASE_URL: origin, ANTHROPIC_API_KEY: USER_KEY });
const args = (tools: string) => ["--agent", "claude-code", "--model", "anthropic/claude-test", "--tools", tools, "--price-in", "3", "--price-out", "15"];

describe(`--agent claude-code (${claude.package} ${claude.version} from npm, driven by a scripted model)`, () => {
  it("resolves an MCR sample through gitgood's MCP tools in the jail, refusing its own Bash (--tools mcp); tokens, cost and model turns are recorded", async (ctx) => {
    if (noBwrap) ctx.skip();
    // The model asks for Claude Code's own Bash first, which --tools mcp turned off: it must not run.
    const upstream = await scriptedUpstream([shellStep("claude-code", SHELL_PROBE), ...MCR_SCRIPT]);
    try {
      const run = await runPreset(fx, "mcr", args("mcp"), env(upstream.origin), "claude-mcr");
      expect(run.cli.code, run.why).toBe(0);
      expect(run.record, run.why).toMatchObject({ status: "success", solved: true, agent: `claude-code@${claude.version}` });
      expect(run.events.filter((e) => e.type === "tool_call").map((e) => e.tool)).toEqual(["resolve_current_merge_conflict_with", "finish_scenario"]);
      expectRecorded(run, upstream.seen);
      const offered = offeredNames(upstream.seen);
      expect(offered.flat().some((n) => n.endsWith("finish_scenario"))).toBe(true);
      for (const own of ["Bash", "Edit", "Write", "NotebookEdit", "MultiEdit"]) expect(offered.flat()).not.toContain(own);
      expect(sentBack(upstream.seen)).not.toContain(PROBE_OUTPUT);
    } finally {
      await upstream.close();
    }
  }, 600_000);

  it("resolves a SWE instance by editing the work tree with its own Bash tool, in the jail", async (ctx) => {
    if (noBwrap) ctx.skip();
    const upstream = await scriptedUpstream(SWE_SCRIPT);
    try {
      const run = await runPreset(fx, "swe", args("shell"), env(upstream.origin), "claude-swe");
      expect(run.cli.code, run.why).toBe(0);
      expect(run.record, run.why).toMatchObject({ status: "success", verdict: "solved", agent: `claude-code@${claude.version}`, scores: { swe: { status: "resolved" } } });
      expectRecorded(run, upstream.seen);
    } finally {
      await upstream.close();
    }
  }, 600_000);
});

describe("a preset that cannot be installed", () => {
  it("stops the run before it starts, in one line saying what npm lacks, and writes no run directory", async (ctx) => {
    if (noBwrap) ctx.skip();
    const agents = mkdtempSync(path.join(os.tmpdir(), "gitgood-no-agents-"));
    try {
      // npm offline, with a version it has never cached: the install fails at once, without the network.
      const out = fx.out("no-install");
      const r = await gitgood(
        ["run", fx.mcr.samples, "--repo", fx.mcr.repo, "--agent", "claude-code", "--agent-version", "0.0.0-gitgood-missing", "--model", "claude-test", "--allow-errors", "--out", out],
        { env: { GITGOOD_AGENTS_DIR: agents, npm_config_offline: "true" } },
      );
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(/^gitgood: cannot install @anthropic-ai\/claude-code@0\.0\.0-gitgood-missing: (the npm registry cannot be reached|npm has no version 0\.0\.0-gitgood-missing)[^\n]+\n$/);
      expect(existsSync(out)).toBe(false);
      expect(readdirSync(agents).filter((n) => !n.startsWith(".installing-"))).toEqual([]);
    } finally {
      rmSync(agents, { recursive: true, force: true });
    }
  }, 120_000);
});
