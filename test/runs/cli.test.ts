import { readStaticPage } from "../../src/report/html-read.js";
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleToJson, type Sample } from "../../src/dataset/sample.js";
import { BIN, gitgood, spawnGitgood } from "../helpers/cli.js";
import type { Fixture } from "../helpers/fixture.js";
import { buildRunFixture, tempDirs } from "../helpers/runs.js";

let fx: Fixture;
let samples: Sample[];
let dirs: ReturnType<typeof tempDirs>;
let samplesFile: string;
let env: Record<string, string>;

beforeAll(async () => {
  ({ fx, samples } = await buildRunFixture());
  dirs = tempDirs();
  samplesFile = path.join(fx.scratch("data"), "samples.jsonl");
  writeFileSync(samplesFile, samples.map((s) => `${sampleToJson(s)}\n`).join(""));
  env = { GITGOOD_SANDBOX_ROOT: path.join(fx.scratch("sandboxes")) };
});
afterAll(() => {
  dirs.cleanup();
  fx.remove();
});

const lines = (file: string) => readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l));

describe("gitgood run and report", () => {
  it("runs an agent, prints the tables, and the report (its own process) reads the run back as text, JSON and HTML", async () => {
    const out = path.join(fx.scratch("r1"), "run");
    const r = await gitgood(["run", samplesFile, "--repo", fx.dir, "--agent", "oracle", "--out", out], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/MCR\s+2\s+100\.00\s+100\.00/);
    expect(r.stderr).toMatch(/\[4\/4\]/);
    const rep = spawnGitgood(["report", out, "--json", "--html", path.join(out, "r.html")], { env });
    expect(rep.code).toBe(0);
    const json = JSON.parse(rep.stdout);
    expect(json.totals.find((t: { scenario: string }) => t.scenario === "MCR")).toMatchObject({ samples: 2, solve_rate: 100 });
    const page = JSON.stringify(readStaticPage(readFileSync(path.join(out, "r.html"), "utf8")).attempts());
    expect(page).toContain("resolve_current_merge_conflict_with");
    expect(page).toContain("Against the recorded merge");
    expect((await gitgood(["report", fx.scratch("not-a-run")])).stderr).toMatch(/^gitgood: .* is not a gitgood run directory/);
  });

  it("resumes a killed run (its own process) without counting anything twice", async () => {
    const args = (out: string) => [BIN, "run", samplesFile, "--repo", fx.dir, "--agent", "command", "--command", "sleep 0.4", "--jobs", "1", "--out", out];
    const whole = path.join(fx.scratch("whole"), "run");
    expect((await gitgood(args(whole).slice(1), { env })).code).toBe(0);

    const cut = path.join(fx.scratch("cut"), "run");
    const child = spawn(process.execPath, args(cut), { env: { ...process.env, ...env }, stdio: "ignore" });
    const results = path.join(cut, "results.jsonl");
    await new Promise<void>((resolve, reject) => {
      const started = Date.now();
      const poll = setInterval(() => {
        if (existsSync(results) && readFileSync(results, "utf8").split("\n").filter(Boolean).length >= 1) {
          clearInterval(poll);
          child.kill("SIGKILL");
          resolve();
        } else if (Date.now() - started > 30_000) {
          clearInterval(poll);
          reject(new Error("the run never wrote a record"));
        }
      }, 20);
    });
    await new Promise((resolve) => child.on("close", resolve));
    const before = lines(results).length;
    expect(before).toBeLessThan(4);
    const again = await gitgood(args(cut).slice(1), { env });
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/already done/);
    const strip = (r: Record<string, unknown>) => [r.key, r.status, r.verdict, JSON.stringify(r.scores)];
    const a = lines(path.join(whole, "results.jsonl")).map(strip).sort();
    const b = lines(results).map(strip).sort();
    expect(b).toEqual(a);
    expect(new Set(b.map((x) => x[0])).size).toBe(4);
    // The sandbox of the killed sample was swept; nothing is left behind.
    expect(readdirSync(env.GITGOOD_SANDBOX_ROOT!).filter((d) => !d.startsWith("."))).toEqual([]);
  }, 180_000);

  it("refuses bad usage with one line", async () => {
    const both = await gitgood(["run", samplesFile, "--repo", fx.dir, "--repos", fx.dir], { env });
    expect(both.code).toBe(2);
    expect(both.stderr.trim()).toBe("gitgood: give exactly one of --repo PATH (one repository) or --repos DIR (clones at DIR/owner/repo)");
    const agent = await gitgood(["run", samplesFile, "--repo", fx.dir, "--agent", "wizard"], { env });
    expect(agent.stderr).toMatch(/^gitgood: unknown agent 'wizard'; agents: llm, command, mcp-command, a2a, /);
    const llm = await gitgood(["run", samplesFile, "--repo", fx.dir, "--agent", "llm"], { env });
    expect(llm.stderr).toMatch(/needs --model/);
    const jobs = await gitgood(["run", samplesFile, "--repo", fx.dir, "--jobs", "0"], { env });
    expect(jobs.code).toBe(2);
    expect(jobs.stderr.trim()).toBe("gitgood: --jobs must be at least 1, not 0");
    const out = path.join(fx.scratch("norepo"), "run");
    const noRepo = await gitgood(["run", samplesFile, "--repo", path.join(fx.dir, "missing"), "--out", out], { env });
    expect(noRepo.code).toBe(1);
    expect(noRepo.stderr.trim()).toMatch(/^gitgood: no such directory: .*missing$/);
    expect(existsSync(out)).toBe(false);
  });
});

describe("command agent", () => {
  it("drives a scenario through 'gitgood tool' and is scored from the state on disk", async () => {
    const merge = samples.find((s) => s.sample_type === "merge" && s.difficulty === "easy")!;
    const script = path.join(fx.scratch("agent"), "agent.sh");
    writeFileSync(
      script,
      [
        "#!/bin/sh",
        "set -e",
        'cat > /dev/null',
        `gitgood tool view_current_merge_conflict_with --args '{"context_window_size": 1, "reason": "look"}' > /dev/null`,
        `gitgood tool resolve_current_merge_conflict_with --args '{"content": "io3 = '"'"'topic'"'"'\\n", "reason": "take topic"}'`,
        "",
      ].join("\n"),
      { mode: 0o755 },
    );
    const out = path.join(fx.scratch("cmd"), "run");
    const r = await gitgood(
      ["run", samplesFile, "--ids", merge.id, "--repo", fx.dir, "--agent", "command", "--command", script, "--allow-read", script, "--out", out],
      { env },
    );
    expect(r.code).toBe(0);
    const [rec] = lines(path.join(out, "results.jsonl"));
    expect(rec).toMatchObject({ status: "success", solved: true, tool_calls: 2 });
    const t = JSON.parse(readFileSync(path.join(out, rec.trajectory), "utf8"));
    expect(t.events.filter((e: { type: string }) => e.type === "tool_call").map((e: { tool: string }) => e.tool)).toEqual([
      "view_current_merge_conflict_with",
      "resolve_current_merge_conflict_with",
    ]);
  });
});

describe("gitgood bench", () => {
  it("mines, runs the baselines and writes the report in one command (its own process)", () => {
    const out = path.join(fx.scratch("bench"), "b");
    const r = spawnGitgood(["bench", fx.dir, "--per-type", "1", "--out", out], { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/agent: baseline/);
    expect(r.stdout).toMatch(/total\s+3\s+100\.00/);
    expect(existsSync(path.join(out, "report.html"))).toBe(true);
    expect(lines(path.join(out, "samples.jsonl"))).toHaveLength(2);
  });

  it("refuses a repository that does not exist before writing anything", async () => {
    const out = path.join(fx.scratch("bench-bad"), "b");
    const r = await gitgood(["bench", path.join(fx.dir, "nowhere"), "--out", out], { env });
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toMatch(/^gitgood: no such directory: .*nowhere$/);
    expect(existsSync(out)).toBe(false);
  });
});

describe("llm agent over an OpenAI-compatible endpoint", () => {
  it("retries a 429, solves through tool calls, and records tokens and cost", async () => {
    const { fakeOpenAI, completion } = await import("../helpers/fake-openai.js");
    const merge = samples.find((s) => s.sample_type === "merge" && s.difficulty === "easy")!;
    const server = await fakeOpenAI([
      { body: completion({ content: "OK" }) },
      { status: 429, headers: { "retry-after-ms": "5" }, body: { error: { message: "rate limited" } } },
      {
        body: completion(
          { tool_calls: [{ name: "resolve_current_merge_conflict_with", arguments: JSON.stringify({ content: "io3 = 'topic'\n", reason: "take topic" }) }] },
          { prompt_tokens: 1000, completion_tokens: 200 },
        ),
      },
    ]);
    try {
      const out = path.join(fx.scratch("llm"), "run");
      const r = await gitgood(
        ["run", samplesFile, "--ids", merge.id, "--repo", fx.dir, "--agent", "llm", "--model", "tiny", "--out", out, "--price-in", "2", "--price-out", "10"],
        { env: { ...env, OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "test" } },
      );
      expect(r.code).toBe(0);
      // The check of the model before the run, then the sample's request (retried once).
      expect(server.requests).toHaveLength(3);
      expect(server.requests[0]).toEqual({ model: "tiny", messages: [{ role: "user", content: "Reply with OK." }] });
      const [rec] = lines(path.join(out, "results.jsonl"));
      expect(rec).toMatchObject({ agent: "llm:tiny", solved: true, turns: 1, tokens: { prompt: 1000, completion: 200 }, cost_usd: 0.004 });
    } finally {
      await server.close();
    }
  });
});
