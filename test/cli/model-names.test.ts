import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keywordListOption, listOption } from "../../src/cli/io.js";
import { sampleToJson, type Sample } from "../../src/dataset/sample.js";
import { gitgood } from "../helpers/cli.js";
import { completion, fakeOpenAI } from "../helpers/fake-openai.js";
import type { Fixture } from "../helpers/fixture.js";
import { buildRunFixture } from "../helpers/runs.js";

const JUDGE = "Qwen/Qwen2.5-72B-Instruct";

describe("list options", () => {
  it("keep the case of names and lower-case keywords", () => {
    expect(listOption(` ${JUDGE}, gpt-4o ,,`)).toEqual([JUDGE, "gpt-4o"]);
    expect(keywordListOption("Python, KOTLIN")).toEqual(["python", "kotlin"]);
  });
});

describe("gitgood run --judge", () => {
  let fx: Fixture;
  let samples: Sample[];
  beforeAll(async () => {
    ({ fx, samples } = await buildRunFixture());
  });
  afterAll(() => fx.remove());

  it("sends the judge model's name to the endpoint as written", async () => {
    const chain = samples.find((s) => s.sample_type === "file_commit_chain");
    if (!chain) throw new Error("the run fixture has no file-commit chain");
    const file = path.join(fx.scratch("data"), "samples.jsonl");
    writeFileSync(file, `${sampleToJson(chain)}\n`);
    const say = (better: string) => ({ body: completion({ content: JSON.stringify({ better, reason: "r" }) }) });
    const server = await fakeOpenAI([say("1"), say("2"), say("1"), say("2")]);
    try {
      const out = path.join(fx.scratch("run"), "run");
      const r = await gitgood(["run", file, "--repo", fx.dir, "--agent", "keep", "--judge", JUDGE, "--out", out, "--json"], {
        env: { GITGOOD_SANDBOX_ROOT: fx.scratch("sandboxes"), OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "k" },
      });
      expect(r.stderr).not.toMatch(/error/i);
      expect(r.code).toBe(0);
      expect(server.requests.length).toBeGreaterThan(0);
      expect(server.requests.map((q) => (q as { model: string }).model)).toEqual(server.requests.map(() => JUDGE));
      expect(JSON.parse(readFileSync(path.join(out, "run.json"), "utf8"))).toMatchObject({ spec: { judges: [JUDGE] } });
    } finally {
      await server.close();
    }
  });
});
