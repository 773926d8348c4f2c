import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installPackage, PRESETS } from "../../src/agents/presets/index.js";
import { bwrapUnavailable } from "../../src/sandbox/isolation.js";
import {
  commit0Script,
  ICC_SCRIPT,
  irScript,
  preset,
  presetFixtures,
  runPreset,
  shellStep,
  SWE_COMMAND,
  TEST_MODEL,
  upstreamEnv,
  USER_KEY,
  type Family,
  type PresetFixtures,
  type PresetRun,
} from "./preset-runs.js";
import type { SeenRequest } from "../proxy/fake-upstream.js";
import { modelsAsked, scriptedUpstream, USAGE, type ScriptStep } from "./presets-upstream.js";

// The real agents from npm on the families other files do not run them on: IR and ICC through gitgood's
// tools over MCP, COMMIT0 by editing the work tree with the agent's own shell. Real agents start slowly,
// so each family is covered by one preset here (claude-code's MCP on IR, Codex's on ICC, Codex's shell on COMMIT0); GITGOOD_PRESET_MATRIX=1 runs every preset on every family
// (the table in the README's "Plugging in an agent" comes from it).

type Case = { agent: string; scenario: "ir" | "icc" | "commit0" | "swe"; tools: string };
// Codex starts in seconds where opencode takes a minute or more on a loaded machine: it takes two families.
const CHEAP: Case[] = [
  { agent: "claude-code", scenario: "ir", tools: "mcp" },
  { agent: "codex", scenario: "icc", tools: "mcp" },
  { agent: "codex", scenario: "commit0", tools: "shell" },
];
const MATRIX: Case[] = PRESETS.flatMap((p) => [
  { agent: p.name, scenario: "ir" as const, tools: "mcp" },
  { agent: p.name, scenario: "icc" as const, tools: "mcp" },
  { agent: p.name, scenario: "commit0" as const, tools: "shell" },
  { agent: p.name, scenario: "swe" as const, tools: "shell" },
]);
// GITGOOD_PRESET_MATRIX=1 (every case) or a list of AGENT:SCENARIO (gemini-cli:commit0,codex:ir).
const chosen = process.env.GITGOOD_PRESET_MATRIX;
const cases = !chosen ? CHEAP : chosen === "1" ? MATRIX : MATRIX.filter((c) => chosen.split(",").includes(`${c.agent}:${c.scenario}`));

let fx: PresetFixtures;
beforeAll(async () => {
  fx = await presetFixtures({ commit0: cases.some((c) => c.scenario === "commit0") });
  for (const name of new Set(cases.map((c) => c.agent))) await installPackage(preset(name).package, preset(name).version);
}, 900_000);
afterAll(() => fx?.cleanup());

function script(c: Case): ScriptStep[] {
  if (c.scenario === "ir") return irScript(fx.chain.commits);
  if (c.scenario === "icc") return ICC_SCRIPT;
  return c.scenario === "commit0" ? commit0Script(c.agent) : [shellStep(c.agent, SWE_COMMAND)];
}

type History = { commits: Array<{ message: string }> };

const FAMILY: Record<Case["scenario"], Family> = { ir: "chain", icc: "chain", commit0: "commit0", swe: "swe" };

/** The agent's turns are model turns, each counted and priced, each sent upstream with the user's key only. */
function expectRecorded(run: PresetRun, agent: string, seen: SeenRequest[]): void {
  const turns = run.events.filter((e) => e.type === "model");
  expect(turns.length, run.why).toBeGreaterThanOrEqual(2);
  expect(run.record?.tokens).toEqual({ prompt: USAGE.input * turns.length, completion: USAGE.output * turns.length });
  expect(run.record?.cost_usd).toBeCloseTo(((USAGE.input * 3 + USAGE.output * 15) * turns.length) / 1e6, 9);
  expect(JSON.stringify(run.events)).not.toContain(USER_KEY);
  // Every request asked for the model of --model (Claude Code asks others of its own unless told).
  expect(new Set(modelsAsked(seen))).toEqual(new Set([(TEST_MODEL[agent] as string).replace(/^[a-z-]+\//, "")]));
  expect(run.events.some((e) => e.type === "note" && e.text?.startsWith(`final message of ${agent}@`) && e.text.includes("Done.")), run.why).toBe(true);
}

describe("preset agents on IR, ICC and COMMIT0 (real agents from npm, driven by a scripted model)", () => {
  for (const c of cases) {
    it(`${c.agent} on ${c.scenario.toUpperCase()} (--tools ${c.tools})`, async (ctx) => {
      if (bwrapUnavailable()) ctx.skip();
      const upstream = await scriptedUpstream(script(c));
      try {
        const args = ["--agent", c.agent, "--model", TEST_MODEL[c.agent] as string, "--tools", c.tools, "--scenario", c.scenario, "--price-in", "3", "--price-out", "15"];
        const run = await runPreset(fx, FAMILY[c.scenario], args, upstreamEnv(c.agent, upstream.origin), `${c.agent}-${c.scenario}`);
        expect(run.cli.code, run.why).toBe(0);
        expect(run.record, run.why).toMatchObject({ status: "success", scenario: c.scenario.toUpperCase(), agent: `${c.agent}@${preset(c.agent).version}` });
        const calls = run.events.filter((e) => e.type === "tool_call").map((e) => e.tool);
        if (c.scenario === "ir") {
          // The rebase git made: the fix-up folded in, so one commit fewer than the chain.
          expect(calls).toEqual(["update_rebase_todo_list", "execute_rebase"]);
          expect(run.final, run.why).toMatchObject({ done: true, pending: null });
          expect((run.final as History).commits.map((h) => h.message.split("\n")[0])).toEqual(["Add sub()", "Add mul()", "Add div()"]);
        } else if (c.scenario === "icc") {
          expect(calls).toEqual(["commit_remaining_changes"]);
          expect(run.final, run.why).toMatchObject({ done: true, pending: null });
          expect((run.final as History).commits.map((h) => h.message.trim())).toEqual(["Add sub, mul and div"]);
        } else if (c.scenario === "commit0") {
          expect(run.record?.scores, run.why).toMatchObject({ commit0: { passed: 11, total: 11 } });
        } else {
          expect(run.record, run.why).toMatchObject({ verdict: "solved", scores: { swe: { status: "resolved" } } });
        }
        expectRecorded(run, c.agent, upstream.seen);
      } finally {
        await upstream.close();
      }
    }, 900_000);
  }
});
