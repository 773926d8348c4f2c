import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installPackage, PRESETS } from "../../src/agents/presets/index.js";
import { sampleToJson, type MergeSample, type Sample } from "../../src/dataset/sample.js";
import { bwrapUnavailable } from "../../src/sandbox/isolation.js";
import { gitgood } from "../helpers/cli.js";
import type { Fixture } from "../helpers/fixture.js";
import { recordsIn, trajectoryOf } from "../helpers/mcp.js";
import { buildRunFixture, tempDirs } from "../helpers/runs.js";
import type { FakeUpstream } from "../proxy/fake-upstream.js";
import { scriptedUpstream, USAGE } from "./presets-upstream.js";

// The real agents from npm, installed once (.ci/run installs them before the suite into GITGOOD_AGENTS_DIR;
// elsewhere they are kept in the temporary directory between runs). Their model is a scripted fake on 127.0.0.1.
process.env.GITGOOD_AGENTS_DIR ??= path.join(os.tmpdir(), "gitgood-test-agents");
const USER_KEY = "sk-ant-user-key-never-shown";
const preset = (name: string) => PRESETS.find((p) => p.name === name) as (typeof PRESETS)[number];

let fx: Fixture;
let easy: MergeSample;
let merges: MergeSample[];
let dirs: ReturnType<typeof tempDirs>;
let samplesFile: string;

beforeAll(async () => {
  let samples: Sample[];
  ({ fx, samples } = await buildRunFixture());
  merges = samples.filter((s): s is MergeSample => s.sample_type === "merge");
  easy = merges.find((s) => s.difficulty === "easy") as MergeSample;
  dirs = tempDirs();
  samplesFile = `${dirs.out}-samples.jsonl`;
  writeFileSync(samplesFile, samples.map((s) => `${sampleToJson(s)}\n`).join(""));
  await installPackage(preset("claude-code").package, preset("claude-code").version);
}, 600_000);
afterAll(() => {
  dirs.cleanup();
  fx.remove();
});

const noBwrap = bwrapUnavailable();

type Event = { type: string; text?: string; tool?: string; usage?: { prompt_tokens: number; completion_tokens: number } };

describe("--agent claude-code (the real Claude Code from npm, driven by a scripted model)", () => {
  let upstream: FakeUpstream;
  afterAll(() => upstream?.close());

  it("resolves an MCR sample through gitgood's MCP tools in the jail; tokens, cost and model turns are recorded", async (ctx) => {
    if (noBwrap) ctx.skip();
    upstream = await scriptedUpstream([
      { tool: "resolve_current_merge_conflict_with", args: { content: "io3 = 'topic'\n", reason: "take the merged branch's side" } },
      { tool: "finish_scenario", args: {} },
    ]);
    const out = `${dirs.out}-claude-mcr`;
    const r = await gitgood(
      ["run", samplesFile, "--ids", easy.id, "--repo", fx.dir, "--agent", "claude-code", "--model", "anthropic/claude-test", "--tools", "mcp",
        "--price-in", "3", "--price-out", "15", "--timeout", "300", "--out", out, "--json"],
      { env: { ANTHROPIC_BASE_URL: upstream.origin, ANTHROPIC_API_KEY: USER_KEY } },
    );
    const record = recordsIn(out)[`${easy.id}.MCR`];
    const events = (record ? trajectoryOf(out, record).events : []) as Event[];
    expect(r.code, `${r.stderr}\n${JSON.stringify(events.filter((e) => e.type === "note"))}`).toBe(0);
    expect(record).toMatchObject({ status: "success", solved: true, agent: `claude-code@${preset("claude-code").version}` });
    expect(events.filter((e) => e.type === "tool_call").map((e) => e.tool)).toEqual(["resolve_current_merge_conflict_with", "finish_scenario"]);
    const turns = events.filter((e) => e.type === "model");
    expect(turns.length).toBeGreaterThanOrEqual(3);
    expect(record?.tokens).toEqual({ prompt: USAGE.input * turns.length, completion: USAGE.output * turns.length });
    expect(record?.cost_usd).toBeCloseTo((USAGE.input * 3 + USAGE.output * 15) * turns.length / 1e6, 9);
    expect(events.some((e) => e.type === "note" && e.text?.startsWith("final message of claude-code") && e.text.includes("Done."))).toBe(true);
    const viaProxy = upstream.seen.filter((s) => s.path.startsWith("/v1/messages"));
    expect(viaProxy.length).toBe(turns.length);
    expect(viaProxy.every((s) => s.headers["x-api-key"] === USER_KEY)).toBe(true);
    expect(JSON.stringify(events)).not.toContain(USER_KEY);
  }, 300_000);
});

describe("a preset that cannot be installed", () => {
  it("is one line, an infrastructure error of each attempt, and the run goes on", async (ctx) => {
    if (noBwrap) ctx.skip();
    const out = `${dirs.out}-no-install`;
    const agents = mkdtempSync(path.join(os.tmpdir(), "gitgood-no-agents-"));
    try {
      const ids = [easy.id, merges[1]?.id ?? easy.id].join(",");
      // npm offline, with a version it has never cached: the install fails at once, without the network.
      const r = await gitgood(
        ["run", samplesFile, "--ids", ids, "--repo", fx.dir, "--agent", "claude-code", "--agent-version", "0.0.0-gitgood-missing", "--model", "claude-test", "--allow-errors", "--out", out],
        { env: { GITGOOD_AGENTS_DIR: agents, npm_config_offline: "true" } },
      );
      expect(r.code, r.stderr).toBe(0);
      const records = Object.values(recordsIn(out));
      expect(records.length).toBe(2);
      for (const rec of records) {
        expect(rec).toMatchObject({ status: "error", error: { code: "AGENT_INSTALL_FAILED" } });
        expect((rec as { error: { message: string } }).error.message).toMatch(/^cannot install @anthropic-ai\/claude-code@0\.0\.0-gitgood-missing: [^\n]+$/);
      }
      expect(readdirSync(agents)).toEqual([]);
    } finally {
      rmSync(agents, { recursive: true, force: true });
    }
  }, 120_000);
});
