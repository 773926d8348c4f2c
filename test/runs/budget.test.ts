import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleToJson, type Sample } from "../../src/dataset/sample.js";
import { gitgood } from "../helpers/cli.js";
import { completion, fakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import type { Fixture } from "../helpers/fixture.js";
import { buildRunFixture } from "../helpers/runs.js";

/*
 * `--budget-usd` against a priced fake OpenAI-compatible endpoint on 127.0.0.1: every attempt of the llm
 * agent is one answer of 1000 prompt and 200 completion tokens, at $2 / $10 per million: $0.004 each.
 */

const ATTEMPT_USD = 0.004;
const REPEATS = 6;

let fx: Fixture;
let samples: Sample[];
let samplesFile: string;
let server: FakeOpenAI;
let env: Record<string, string>;

beforeAll(async () => {
  ({ fx, samples } = await buildRunFixture());
  samplesFile = path.join(fx.scratch("data"), "samples.jsonl");
  writeFileSync(samplesFile, samples.map((s) => `${sampleToJson(s)}\n`).join(""));
  server = await fakeOpenAI([
    { body: completion({ content: "OK" }) },
    {
      body: completion(
        { tool_calls: [{ name: "resolve_current_merge_conflict_with", arguments: JSON.stringify({ content: "io3 = 'topic'\n", reason: "take topic" }) }] },
        { prompt_tokens: 1000, completion_tokens: 200 },
      ),
    },
  ]);
  env = { GITGOOD_SANDBOX_ROOT: fx.scratch("sandboxes"), OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "test" };
});
afterAll(async () => {
  await server.close();
  fx.remove();
});

const records = (out: string): { cost_usd: number | null; judge_cost_usd?: number | null }[] => {
  const file = path.join(out, "results.jsonl");
  return existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l)) : [];
};
const spend = (out: string) => records(out).reduce((sum, r) => sum + (r.cost_usd ?? 0) + (r.judge_cost_usd ?? 0), 0);

function run(out: string, jobs: number, budget: string | null) {
  const merge = samples.find((s) => s.sample_type === "merge" && s.difficulty === "easy")!;
  const args = ["run", samplesFile, "--ids", merge.id, "--repo", fx.dir, "--agent", "llm", "--model", "tiny", "--out", out];
  args.push("--price-in", "2", "--price-out", "10", "--repeats", String(REPEATS), "--jobs", String(jobs), "--no-cache");
  if (budget !== null) args.push("--budget-usd", budget);
  return gitgood(args, { env });
}

describe("--budget-usd", () => {
  for (const jobs of [1, 2]) {
    it(`stops starting attempts within one attempt's cost of the cap (--jobs ${jobs}), and a resume with a higher budget runs the rest`, async () => {
      const out = path.join(fx.scratch(`budget-${jobs}`), "run");
      const cap = 0.01;
      const first = await run(out, jobs, String(cap));
      expect(first.code, first.stderr).toBe(0);
      const spent = spend(out);
      expect(spent).toBeGreaterThanOrEqual(cap);
      expect(spent).toBeLessThanOrEqual(cap + ATTEMPT_USD + 1e-9);
      const ran = records(out).length;
      expect(ran).toBeLessThan(REPEATS);
      expect(first.stderr).toContain(`${REPEATS - ran} attempt(s) not started: the measured spend`);
      expect(JSON.parse(readFileSync(path.join(out, "run.json"), "utf8")).spec.budget_usd).toBe(cap);

      // The same budget again starts nothing more: the spend recorded already reaches it.
      const again = await run(out, jobs, String(cap));
      expect(again.code, again.stderr).toBe(0);
      expect(records(out)).toHaveLength(ran);

      const rest = await run(out, jobs, "1");
      expect(rest.code, rest.stderr).toBe(0);
      expect(records(out)).toHaveLength(REPEATS);
      expect(rest.stderr).not.toContain("not started");
    });
  }

  it("refuses a budget it could not measure (a model without prices) in one line, before making the run directory", async () => {
    const merge = samples.find((s) => s.sample_type === "merge")!;
    const out = path.join(fx.scratch("budget-unpriced"), "run");
    const r = await gitgood(["run", samplesFile, "--ids", merge.id, "--repo", fx.dir, "--agent", "llm", "--model", "tiny", "--out", out, "--budget-usd", "1"], { env });
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain("--budget-usd needs prices for every model the run pays for; none for tiny");
    expect(existsSync(out)).toBe(false);
  }, 180_000);

  it("refuses a budget that is not a positive number", async () => {
    const r = await gitgood(["run", samplesFile, "--repo", fx.dir, "--agent", "oracle", "--out", path.join(fx.scratch("budget-bad"), "run"), "--budget-usd", "-3"], { env });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("--budget-usd takes a positive number of US dollars, not '-3'");
  });
});
