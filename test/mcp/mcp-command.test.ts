import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleToJson, type MergeSample, type Sample } from "../../src/dataset/sample.js";
import { shellQuote } from "../../src/agents/mcp-config.js";
import { gitgood } from "../helpers/cli.js";
import type { Fixture } from "../helpers/fixture.js";
import { recordsIn, sandboxesIn, trajectoryOf } from "../helpers/mcp.js";
import { buildRunFixture, tempDirs } from "../helpers/runs.js";

// The agent is a node script using the SDK's client; it reaches the server through the built CLI (npm run build first).
const AGENT = path.join(path.dirname(fileURLToPath(import.meta.url)), "agents", "theirs.mjs");

let fx: Fixture;
let easy: MergeSample;
let dirs: ReturnType<typeof tempDirs>;
let samplesFile: string;

beforeAll(async () => {
  let samples: Sample[];
  ({ fx, samples } = await buildRunFixture());
  easy = samples.find((s): s is MergeSample => s.sample_type === "merge" && s.difficulty === "easy") as MergeSample;
  dirs = tempDirs();
  samplesFile = `${dirs.out}-samples.jsonl`;
  writeFileSync(samplesFile, samples.map((s) => `${sampleToJson(s)}\n`).join(""));
});
afterAll(() => {
  dirs.cleanup();
  fx.remove();
});

const sandboxRoot = (): string => process.env.GITGOOD_SANDBOX_ROOT as string;

describe("gitgood run --agent mcp-command", () => {
  it("gives an external MCP agent the server configuration and scores what it did", async () => {
    const out = `${dirs.out}-agent`;
    const command = `${shellQuote(process.execPath)} ${shellQuote(AGENT)}`;
    const r = await gitgood(["run", samplesFile, "--ids", easy.id, "--repo", fx.dir, "--agent", "mcp-command", "--command", command, "--out", out, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const record = recordsIn(out)[`${easy.id}.MCR`];
    expect(record).toMatchObject({ status: "success", solved: true, verdict: "solved", tool_calls: 3 });
    expect(record?.agent).toMatch(/^mcp-command:/);
    const t = trajectoryOf(out, record);
    const events = t.events as { type: string; tool?: string; text?: string }[];
    expect(events.filter((e) => e.type === "tool_call").map((e) => e.tool)).toEqual([
      "get_task",
      "resolve_current_merge_conflict_with",
      "finish_scenario",
    ]);
    expect(events.find((e) => e.type === "note" && e.text?.startsWith("command exited with code 0"))?.text).toContain("Submitted.");
    expect(sandboxesIn(sandboxRoot())).toEqual([]);
  });

  it("hands the agent a configuration file and a command line for the same server", async () => {
    const out = `${dirs.out}-env`;
    const seen = path.join(path.dirname(out), "seen.json");
    const script = `node -e 'const fs=require("fs");fs.writeFileSync(${JSON.stringify(seen)}, JSON.stringify({config: JSON.parse(fs.readFileSync(process.env.GITGOOD_MCP_CONFIG,"utf8")), line: process.env.GITGOOD_MCP_COMMAND, cwd: process.cwd()}))'`;
    const r = await gitgood(["run", samplesFile, "--ids", easy.id, "--repo", fx.dir, "--agent", "mcp-command", "--command", script, "--out", out]);
    expect(r.code, r.stderr).toBe(0);
    const got = JSON.parse(readFileSync(seen, "utf8")) as { config: { mcpServers: { gitgood: { command: string; args: string[] } } }; line: string; cwd: string };
    const entry = got.config.mcpServers.gitgood;
    expect(entry.command).toBe(process.execPath);
    expect(entry.args.slice(1, 3)).toEqual(["mcp", "--sandbox"]);
    expect(got.line).toBe([entry.command, ...entry.args].map(shellQuote).join(" "));
    expect(path.basename(got.cwd)).toBe("work");
    expect(existsSync(got.cwd)).toBe(false);
    // The agent did nothing: the record says so, it is not an error.
    expect(recordsIn(out)[`${easy.id}.MCR`]).toMatchObject({ status: "success", solved: false });
  });

  it("records a failing agent program as an error", async () => {
    const out = `${dirs.out}-fail`;
    const r = await gitgood(["run", samplesFile, "--ids", easy.id, "--repo", fx.dir, "--agent", "mcp-command", "--command", "echo broken >&2; exit 3", "--out", out]);
    expect(r.code, r.stderr).toBe(0);
    expect(recordsIn(out)[`${easy.id}.MCR`]).toMatchObject({ status: "error", error: { code: "AGENT_FAILED" } });
    expect(recordsIn(out)[`${easy.id}.MCR`]?.error?.message).toContain("exited with code 3: broken");
  });

  it("needs --command", async () => {
    const r = await gitgood(["run", samplesFile, "--repo", fx.dir, "--agent", "mcp-command"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the mcp-command agent needs --command "PROGRAM ARGS"');
  });
});
