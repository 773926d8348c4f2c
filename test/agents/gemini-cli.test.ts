import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installPackage, PRESETS } from "../../src/agents/presets/index.js";
import { bwrapUnavailable } from "../../src/sandbox/isolation.js";
import { trajectoryOf } from "../helpers/mcp.js";
import { useRunFixture } from "../helpers/run-fixture.js";
import { fakeUpstream, type FakeUpstream, type SeenRequest, type UpstreamReply } from "../proxy/fake-upstream.js";
import { PROBE_OUTPUT, SHELL_PROBE } from "./preset-runs.js";
import type { ScriptStep } from "./presets-upstream.js";

// The real gemini-cli from npm (one bundled JavaScript file), installed once as presets.test.ts does, driven
// through the Gemini API by a scripted fake on 127.0.0.1.
process.env.GITGOOD_AGENTS_DIR ??= path.join(os.tmpdir(), "gitgood-test-agents");
const USER_KEY = "AIza-user-gemini-key-never-shown";
const USAGE = { prompt: 400, cached: 100, candidates: 30, thoughts: 20 };
const gemini = PRESETS.find((p) => p.name === "gemini-cli") as (typeof PRESETS)[number];

type Json = Record<string, unknown>;


function declared(body: Json): string[] {
  return ((body.tools as Json[] | undefined) ?? []).flatMap((t) => ((t.functionDeclarations as Json[] | undefined) ?? []).map((f) => String(f.name)));
}

/** How many function responses the conversation holds: the step the agent is at. */
function responsesIn(body: Json): number {
  return (JSON.stringify(body.contents ?? []).match(/"functionResponse"/g) ?? []).length;
}

/** An answer of one part, streamed as server-sent events in two chunks (the usage complete in the last), or whole. */
function reply(req: SeenRequest, part: Json): UpstreamReply {
  const usageMetadata = { promptTokenCount: USAGE.prompt, cachedContentTokenCount: USAGE.cached, candidatesTokenCount: USAGE.candidates, thoughtsTokenCount: USAGE.thoughts, totalTokenCount: USAGE.prompt + USAGE.candidates + USAGE.thoughts };
  const last = { candidates: [{ content: { role: "model", parts: [part] }, finishReason: "STOP", index: 0 }], usageMetadata, modelVersion: "gemini-test" };
  if (!req.path.includes(":streamGenerateContent")) return { json: last };
  const thinking = { candidates: [{ content: { role: "model", parts: [{ text: "Let me see.", thought: true }] }, index: 0 }], usageMetadata: { promptTokenCount: USAGE.prompt } };
  return { events: [{ data: thinking }, { data: last }] };
}

/**
 * A Gemini endpoint that drives gemini-cli through `script` (the step is the number of function responses so
 * far), then says "Done."; a request without tools (a check of gemini-cli's own) gets a JSON answer when it
 * asks for one, else text.
 */
function scriptedGemini(script: ScriptStep[]): Promise<FakeUpstream> {
  return fakeUpstream((req: SeenRequest): UpstreamReply => {
    if (req.method !== "POST") return { json: { models: [] } };
    const body = (req.body ?? {}) as Json;
    const names = declared(body);
    const step = names.length > 0 ? script[responsesIn(body)] : undefined;
    // A step whose tool the agent does not offer is called all the same, as a model may: the agent must refuse it.
    const name = step ? (names.find((n) => n === step.tool || n.endsWith(`_${step.tool}`)) ?? step.tool) : undefined;
    if (step && name) return reply(req, { functionCall: { name, args: step.args } });
    const wantsJson = (body.generationConfig as Json | undefined)?.responseMimeType === "application/json";
    return reply(req, { text: wantsJson ? JSON.stringify({ next_speaker: "user", reasoning: "The task is done." }) : "Done." });
  }, false);
}

const calc = useRunFixture();

beforeAll(async () => {
  await installPackage(gemini.package, gemini.version);
}, 600_000);

type Event = { type: string; text?: string; tool?: string };

describe("--agent gemini-cli (the real gemini-cli from npm, driven by a scripted Gemini API)", () => {
  let upstream: FakeUpstream;
  afterAll(() => upstream?.close());

  it("resolves an MCR sample through gitgood's MCP tools in the jail, refusing its own shell and editing (--tools mcp); tokens (thinking included) and model turns are recorded", async (ctx) => {
    if (bwrapUnavailable()) ctx.skip();
    upstream = await scriptedGemini([
      // The model asks for gemini-cli's own shell and file writing first, which --tools mcp turned off: neither may act.
      { tool: "run_shell_command", args: { command: SHELL_PROBE, description: "probe" } },
      { tool: "write_file", args: { file_path: "io.py", content: "written by write_file\n" } },
      { tool: "resolve_current_merge_conflict_with", args: { content: "io3 = 'topic'\n", reason: "take the merged branch's side" } },
      { tool: "finish_scenario", args: {} },
    ]);
    const out = `${calc.out}-gemini-mcr`;
    const r = await calc.runEasy(
      ["--agent", "gemini-cli", "--model", "gemini-test", "--tools", "mcp", "--price-in", "1", "--price-out", "10", "--timeout", "300", "--out", out, "--json"],
      { GOOGLE_GEMINI_BASE_URL: upstream.origin, GEMINI_API_KEY: USER_KEY },
    );
    const record = calc.easyRecord(out);
    const events = (record ? trajectoryOf(out, record).events : []) as Event[];
    const notes = JSON.stringify(events.filter((e) => e.type === "note"));
    expect(r.code, `${r.stderr}\n${notes}`).toBe(0);
    expect(record, notes).toMatchObject({ status: "success", solved: true, agent: `gemini-cli@${gemini.version}` });
    expect(events.filter((e) => e.type === "tool_call").map((e) => e.tool)).toEqual(["resolve_current_merge_conflict_with", "finish_scenario"]);
    const turns = events.filter((e) => e.type === "model");
    const viaProxy = upstream.seen.filter((s) => s.path.includes("/models/gemini-test:"));
    expect(turns.length).toBeGreaterThanOrEqual(3);
    expect(viaProxy.length).toBe(turns.length);
    const output = USAGE.candidates + USAGE.thoughts;
    expect(record?.tokens).toEqual({ prompt: USAGE.prompt * turns.length, completion: output * turns.length });
    expect(record?.cost_usd).toBeCloseTo(((USAGE.prompt * 1 + output * 10) * turns.length) / 1e6, 9);
    // Only gitgood's tools and gemini-cli's readers: no shell or editing of its own with --tools mcp, nothing that needs the network.
    const names = declared(viaProxy.find((s) => declared(s.body as Json).length > 0)?.body as Json);
    expect(names).toContain("mcp_gitgood_finish_scenario");
    for (const own of ["run_shell_command", "replace", "write_file", "web_fetch", "google_web_search"]) expect(names).not.toContain(own);
    // Both calls were refused: no shell ran, and io.py is the merge's resolution (the tree was compared above), not the written text.
    const sent = viaProxy.slice(1).map((s) => JSON.stringify(s.body)).join("\n");
    expect(sent).toContain("run_shell_command");
    expect(sent).not.toContain(PROBE_OUTPUT);
    expect(events.some((e) => e.type === "note" && e.text?.startsWith("final message of gemini-cli") && e.text.includes("Done."))).toBe(true);
    expect(upstream.seen.every((s) => s.headers["x-goog-api-key"] === USER_KEY)).toBe(true);
    expect(JSON.stringify(events)).not.toContain(USER_KEY);
  }, 300_000);
});
