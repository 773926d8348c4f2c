import { writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installPackage, PRESETS } from "../../src/agents/presets/index.js";
import { bwrapUnavailable } from "../../src/sandbox/isolation.js";
import { gitgood } from "../helpers/cli.js";
import { recordsIn, trajectoryOf } from "../helpers/mcp.js";
import { useCacheDir } from "../helpers/envs.js";
import { useRunFixture } from "../helpers/run-fixture.js";
import { pythonTask, type PythonTask } from "../helpers/swe.js";
import { fakeUpstream, type FakeUpstream, type SeenRequest, type UpstreamReply } from "../proxy/fake-upstream.js";
import { PROBE_OUTPUT, SHELL_PROBE } from "./preset-runs.js";
import { responseStream, type ScriptStep } from "./presets-upstream.js";

// The real Codex from npm (a Rust binary in its platform package), installed once as presets.test.ts does,
// driven through the Responses API by a scripted fake on 127.0.0.1.
process.env.GITGOOD_AGENTS_DIR ??= path.join(os.tmpdir(), "gitgood-test-agents");
const USER_KEY = "sk-user-openai-key-never-shown";
const USAGE = { input: 500, cached: 200, output: 60 };
const codex = PRESETS.find((p) => p.name === "codex") as (typeof PRESETS)[number];

type Json = Record<string, unknown>;


/** The tools a Responses request offers, the functions inside namespaces (MCP servers) with their namespace. */
function offered(body: Json): Array<{ name: string; namespace: string | null }> {
  const out: Array<{ name: string; namespace: string | null }> = [];
  for (const t of (body.tools as Json[] | undefined) ?? []) {
    if (t.type === "function") out.push({ name: String(t.name), namespace: null });
    else if (t.type === "namespace") for (const inner of (t.tools as Json[] | undefined) ?? []) out.push({ name: String(inner.name), namespace: String(t.name) });
    // A built-in tool (local_shell, web_search) or a free-form one (apply_patch): by its name, else its type.
    else out.push({ name: String(t.name ?? t.type), namespace: null });
  }
  return out;
}

/** A Responses endpoint that drives Codex through `script` (the step is the number of tool outputs so far), then says "Done.". */
function scriptedResponses(script: ScriptStep[]): Promise<FakeUpstream> {
  return fakeUpstream((req: SeenRequest): UpstreamReply => {
    if (req.method !== "POST") return { json: { object: "list", data: [] } };
    const body = (req.body ?? {}) as Json;
    const model = String(body.model ?? "m");
    const done = ((body.input as Json[] | undefined) ?? []).filter((i) => i.type === "function_call_output").length;
    const step = script[done];
    // A step whose tool the agent does not offer is called all the same, as a model may: the agent must refuse it.
    const tool = step ? (offered(body).find((t) => t.name === step.tool || t.name.endsWith(`__${step.tool}`)) ?? { name: step.tool, namespace: null }) : undefined;
    if (step && tool) {
      const call = { type: "function_call", id: `fc_${done}`, call_id: `call_${done}`, name: tool.name, ...(tool.namespace ? { namespace: tool.namespace } : {}), arguments: JSON.stringify(step.args), status: "completed" };
      return responseStream(model, call, USAGE);
    }
    return responseStream(model, { type: "message", id: `msg_${done}`, role: "assistant", status: "completed", content: [{ type: "output_text", text: "Done.", annotations: [] }] }, USAGE);
  });
}

const calc = useRunFixture();
let swe: PythonTask;
let sweFile: string;
let cache: ReturnType<typeof useCacheDir>;

beforeAll(async () => {
  swe = pythonTask();
  cache = useCacheDir();
  // As SWE-bench publishes instances: a JSON list.
  sweFile = `${calc.out}-swe.json`;
  writeFileSync(sweFile, JSON.stringify([swe.sample().scenario]));
  await installPackage(codex.package, codex.version);
}, 600_000);
afterAll(() => {
  swe?.fixture.remove();
  cache?.cleanup();
});

type Event = { type: string; text?: string; tool?: string };

describe("--agent codex (the real Codex from npm, driven by a scripted Responses API)", () => {
  let upstream: FakeUpstream;
  afterAll(() => upstream?.close());

  it("resolves an MCR sample through gitgood's MCP tools in the jail, refusing its own shell (--tools mcp); tokens, cache reads and model turns are recorded", async (ctx) => {
    if (bwrapUnavailable()) ctx.skip();
    upstream = await scriptedResponses([
      // The model asks for Codex's own shell first, which --tools mcp turned off: it must not run.
      { tool: "exec_command", args: { cmd: SHELL_PROBE } },
      { tool: "shell", args: { command: ["sh", "-c", SHELL_PROBE] } },
      { tool: "resolve_current_merge_conflict_with", args: { content: "io3 = 'topic'\n", reason: "take the merged branch's side" } },
      { tool: "finish_scenario", args: {} },
    ]);
    const out = `${calc.out}-codex-mcr`;
    const r = await calc.runEasy(
      ["--agent", "codex", "--model", "openai/gpt-test", "--tools", "mcp", "--price-in", "2", "--price-out", "8", "--timeout", "300", "--out", out, "--json"],
      { OPENAI_BASE_URL: upstream.url, OPENAI_API_KEY: USER_KEY },
    );
    const record = calc.easyRecord(out);
    const events = (record ? trajectoryOf(out, record).events : []) as Event[];
    expect(r.code, `${r.stderr}\n${JSON.stringify(events.filter((e) => e.type === "note"))}`).toBe(0);
    expect(record, JSON.stringify(events.filter((e) => e.type === "note"))).toMatchObject({ status: "success", solved: true, agent: `codex@${codex.version}` });
    expect(events.filter((e) => e.type === "tool_call").map((e) => e.tool)).toEqual(["resolve_current_merge_conflict_with", "finish_scenario"]);
    const turns = events.filter((e) => e.type === "model");
    const viaProxy = upstream.seen.filter((s) => s.path === "/v1/responses");
    expect(turns.length).toBe(5);
    expect(viaProxy.length).toBe(turns.length);
    expect(record?.tokens).toEqual({ prompt: USAGE.input * turns.length, completion: USAGE.output * turns.length });
    expect(events.filter((e) => e.type === "note" && e.text?.includes(`tokens ${USAGE.input} in (cache read ${USAGE.cached}, written 0) / ${USAGE.output} out`)).length).toBe(turns.length);
    expect(record?.cost_usd).toBeCloseTo(((USAGE.input * 2 + USAGE.output * 8) * turns.length) / 1e6, 9);
    // Only gitgood's tools: no shell of its own with --tools mcp.
    const names = offered(viaProxy[0]?.body as Json).map((t) => t.name);
    expect(names.some((n) => n.endsWith("finish_scenario"))).toBe(true);
    for (const own of ["exec_command", "shell", "apply_patch", "write_stdin", "local_shell"]) expect(names).not.toContain(own);
    // Both calls of its shell were refused, and nothing ran.
    const sent = viaProxy.slice(1).map((s) => JSON.stringify(s.body)).join("\n");
    expect(sent).toContain("function_call_output");
    expect(sent).not.toContain(PROBE_OUTPUT);
    expect(events.some((e) => e.type === "note" && e.text?.startsWith("final message of codex") && e.text.includes("Done."))).toBe(true);
    expect(upstream.seen.every((s) => s.headers.authorization === `Bearer ${USER_KEY}`)).toBe(true);
    expect(JSON.stringify(events)).not.toContain(USER_KEY);
  }, 300_000);
});

describe("--agent codex on a SWE-style task", () => {
  let upstream: FakeUpstream;
  afterAll(() => upstream?.close());

  it("fixes the bug with its own shell in the jail (exec_command); the project's tests resolve it", async (ctx) => {
    if (bwrapUnavailable()) ctx.skip();
    upstream = await scriptedResponses([{ tool: "exec_command", args: { cmd: "sed -i '6s/a + b/a - b/' calc/__init__.py && git diff --stat" } }]);
    const out = `${calc.out}-codex-swe`;
    const r = await gitgood(
      ["run", sweFile, "--repo", swe.fixture.dir, "--agent", "codex", "--model", "gpt-test", "--timeout", "300", "--out", out, "--json"],
      { env: { OPENAI_BASE_URL: upstream.url, OPENAI_API_KEY: USER_KEY, GITGOOD_CACHE_DIR: cache.dir } },
    );
    const record = Object.values(recordsIn(out))[0];
    const events = (record ? trajectoryOf(out, record).events : []) as Event[];
    const notes = JSON.stringify(events.filter((e) => e.type === "note"));
    expect(r.code, `${r.stderr}\n${notes}`).toBe(0);
    expect(record, notes).toMatchObject({ scenario: "SWE", status: "success", verdict: "solved", scores: { swe: { status: "resolved" } } });
    const turns = events.filter((e) => e.type === "model");
    expect(turns.length).toBe(2);
    expect(record?.tokens).toEqual({ prompt: USAGE.input * 2, completion: USAGE.output * 2 });
    // The command's output went back to the model.
    const second = JSON.stringify(upstream.seen.filter((s) => s.path === "/v1/responses")[1]?.body);
    expect(second).toContain("function_call_output");
    expect(second).toMatch(/1 file changed/);
  }, 300_000);
});
