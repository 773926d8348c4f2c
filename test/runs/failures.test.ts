import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/agents/index.js";
import { sampleToJson, type Sample } from "../../src/dataset/sample.js";
import { runConfig } from "../../src/runs/config.js";
import { runBenchmark } from "../../src/runs/runner.js";
import { RunStore } from "../../src/runs/store.js";
import type { ResultRecord } from "../../src/runs/record.js";
import { gitgood } from "../helpers/cli.js";
import { NEVER, completion, deadEndpoint, fakeOpenAI } from "../helpers/fake-openai.js";
import { Fixture } from "../helpers/fixture.js";
import { waitFor } from "../helpers/processes.js";
import { buildRunFixture } from "../helpers/runs.js";

let fx: Fixture;
let samples: Sample[];
let samplesFile: string;
let mergeIds: string;
let env: Record<string, string>;
let n = 0;

beforeAll(async () => {
  ({ fx, samples } = await buildRunFixture());
  samplesFile = path.join(fx.scratch("data"), "samples.jsonl");
  writeFileSync(samplesFile, samples.map((s) => `${sampleToJson(s)}\n`).join(""));
  mergeIds = samples
    .filter((s) => s.sample_type === "merge")
    .map((s) => s.id)
    .join(",");
  env = { GITGOOD_SANDBOX_ROOT: fx.scratch("sandboxes") };
});
afterAll(() => fx.remove());

const outDir = (): string => path.join(fx.scratch(`failures-${n++}`), "run");
const resultLines = (out: string): ResultRecord[] =>
  readFileSync(path.join(out, "results.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as ResultRecord);
const byKey = (out: string): Record<string, ResultRecord> => Object.fromEntries(resultLines(out).map((r) => [r.key, r]));
const lastLine = (text: string): string => text.trimEnd().split("\n").at(-1) ?? "";
const model = (url: string) => ({ ...env, OPENAI_BASE_URL: url, OPENAI_API_KEY: "test-key" });

describe("a stalled model endpoint", () => {
  it("has each sample's request aborted by its time-out: TIMEOUT records, and no request left open when the run returns", { timeout: 60_000 }, async () => {
    // It answers the check before the run, then takes every request and never answers.
    const server = await fakeOpenAI([{ body: completion({ content: "OK" }) }, { body: null, after: NEVER }]);
    try {
      const out = outDir();
      const r = await gitgood(
        ["run", samplesFile, "--ids", mergeIds, "--repo", fx.dir, "--agent", "llm", "--model", "stalled", "--timeout", "3", "--jobs", "2", "--out", out],
        { env: model(server.url) },
      );
      expect(r.code, r.stderr).toBe(1);
      const records = resultLines(out);
      expect(records.map((x) => [x.scenario, x.status, x.error?.code])).toEqual([
        ["MCR", "error", "TIMEOUT"],
        ["MCR", "error", "TIMEOUT"],
      ]);
      // The check, then at most one request per sample (none if its set-up used up the time): none was retried after its time-out.
      expect(server.requests.length).toBeGreaterThanOrEqual(1);
      expect(server.requests.length).toBeLessThanOrEqual(3);
      await waitFor(() => server.open() === 0, "the aborted requests' connections are closed");
    } finally {
      await server.close();
    }
  });
});

describe("a wrong --repo", () => {
  it("is found before the run with one line, and --retry-errors --repo RIGHT into the same --out finishes the run", async () => {
    const wrong = new Fixture();
    try {
      wrong.commit("another project", { "x.txt": "x\n" });
      const out = outDir();
      const bad = await gitgood(["run", samplesFile, "--ids", mergeIds, "--repo", wrong.dir, "--agent", "oracle", "--out", out], { env });
      expect(bad.code).toBe(2);
      expect(bad.stderr.trim().split("\n").at(-1)).toMatch(/^gitgood: --repo is wrong: .* holds none of the commits of the 2 sample\(s\) of /);
      expect(bad.stderr).not.toContain("MISSING_COMMIT");
      const good = await gitgood(["run", samplesFile, "--ids", mergeIds, "--repo", fx.dir, "--agent", "oracle", "--retry-errors", "--out", out], { env });
      expect(good.code, good.stderr).toBe(0);
      expect(resultLines(out).map((x) => [x.scenario, x.status])).toEqual([
        ["MCR", "success"],
        ["MCR", "success"],
      ]);
    } finally {
      wrong.remove();
    }
  });
});

describe("the endpoint check", () => {
  it("takes the run's --timeout when it is shorter than its own 60 s: a stalled endpoint stops the run within it", { timeout: 60_000 }, async () => {
    const server = await fakeOpenAI([{ body: null, after: NEVER }]);
    try {
      const out = outDir();
      const r = await gitgood(["run", samplesFile, "--ids", mergeIds, "--repo", fx.dir, "--agent", "llm", "--model", "stalled", "--timeout", "2", "--out", out], {
        env: model(server.url),
      });
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain("model stalled did not answer within 2 s");
    } finally {
      await server.close();
    }
  });
});

describe("time-outs", () => {
  it("records TIMEOUT, not a result, when the time runs out before the agent starts (during set-up)", async () => {
    const out = outDir();
    const agent = createAgent("oracle");
    const store = RunStore.open(out, runConfig({ samples: ["t"], agent: agent.name }, (p) => p));
    const merges = samples.filter((s) => s.sample_type === "merge");
    // 1 ms: the timer fires while the sandbox is set up, long before the oracle would have solved it.
    const summary = await runBenchmark({ samples: merges, where: { repo: fx.dir }, agent, store, jobs: 1, spec: { timeout_s: 0.001, max_turns: 5 }, judges: [] });
    expect(summary.records.map((r) => [r.status, r.verdict, r.error?.code])).toEqual([
      ["error", "error", "TIMEOUT"],
      ["error", "error", "TIMEOUT"],
    ]);
  });
});

describe("the model check before a run", () => {
  it.for([
    ["a wrong key", 401, "Incorrect API key provided", "MODEL_AUTH"],
    ["an unknown model", 404, "The model `nope` does not exist", "MODEL_NOT_FOUND"],
  ] as const)("stops the run with one line for %s, before any sample runs", async ([, status, message]) => {
    const server = await fakeOpenAI([{ status, body: { error: { message } } }]);
    try {
      const out = outDir();
      const r = await gitgood(["run", samplesFile, "--repo", fx.dir, "--agent", "llm", "--model", "nope", "--out", out], { env: model(server.url) });
      expect(r.code).toBe(1);
      expect(lastLine(r.stderr)).toBe(
        `gitgood: the agent model failed its check, so no sample was run: model nope: ${status} ${message} (endpoint ${server.url}); ` +
          "check OPENAI_BASE_URL, OPENAI_API_KEY and the model name",
      );
      expect(r.stderr).not.toMatch(/\[\d+\/\d+\]/);
      expect(r.stdout).toBe("");
      expect(server.requests).toHaveLength(1);
      expect(existsSync(out), "a failed check leaves no run directory").toBe(false);
    } finally {
      await server.close();
    }
  });

  it("stops the run when nothing listens at the endpoint, and checks judges too", async () => {
    const dead = await deadEndpoint();
    const out = outDir();
    const r = await gitgood(["run", samplesFile, "--repo", fx.dir, "--agent", "llm", "--model", "m", "--out", out], { env: model(dead) });
    expect(r.code).toBe(1);
    expect(lastLine(r.stderr)).toMatch(
      /^gitgood: the agent model failed its check, so no sample was run: cannot reach the model endpoint for m: .*\(endpoint http:\/\/127\.0\.0\.1:\d+\/v1\); check OPENAI_BASE_URL/,
    );
    expect(existsSync(out), "a failed check leaves no run directory").toBe(false);

    const server = await fakeOpenAI([{ status: 404, body: { error: { message: "no such judge" } } }]);
    try {
      const judged = outDir();
      const j = await gitgood(["run", samplesFile, "--repo", fx.dir, "--agent", "oracle", "--judge", "judge-x", "--out", judged], { env: model(server.url) });
      expect(j.code).toBe(1);
      expect(lastLine(j.stderr)).toMatch(/^gitgood: the judge model failed its check, so no sample was run: model judge-x: 404 no such judge/);
      expect(existsSync(judged), "a failed judge check leaves no run directory").toBe(false);
    } finally {
      await server.close();
    }
  });

  it("is made only when samples will run: a finished run resumes without asking the endpoint", async () => {
    const server = await fakeOpenAI([{ body: completion({ content: "OK" }) }]);
    const out = outDir();
    const args = ["run", samplesFile, "--ids", mergeIds, "--repo", fx.dir, "--agent", "oracle", "--judge", "judge-y", "--out", out];
    try {
      expect((await gitgood(args, { env: model(server.url) })).code).toBe(0);
      expect(server.requests).toEqual([{ model: "judge-y", messages: [{ role: "user", content: "Reply with OK." }] }]);
    } finally {
      await server.close();
    }
    const again = await gitgood(args, { env: model(await deadEndpoint()) });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/already done/);
  });

  it("stops gitgood bench with a model and no endpoint in one line", { timeout: 120_000 }, async () => {
    const out = fx.scratch("bench-no-endpoint");
    const r = await gitgood(["bench", "--demo", "--per-type", "1", "--out", out], { env: { ...model(await deadEndpoint()), GITGOOD_MODEL: "gpt-4o" } });
    expect(r.code).toBe(1);
    expect(lastLine(r.stderr)).toMatch(/^gitgood: the agent model failed its check, so no sample was run: cannot reach the model endpoint for gpt-4o/);
    expect(existsSync(path.join(out, "run")), "a failed check leaves no run directory").toBe(false);
  });
});

describe("--retry-errors and exit codes", () => {
  it("exits 1 for system errors (0 with --allow-errors); --retry-errors reruns exactly the error records and replaces them", async () => {
    // The agent fails on MCR until the flag file exists; on IR and ICC it succeeds (unjudged).
    const flag = path.join(fx.scratch("retry-flag"), "go");
    const command = `test "$GITGOOD_SCENARIO" != mcr || test -e ${flag} || { echo not yet >&2; exit 3; }`;
    const out = outDir();
    const args = ["run", samplesFile, "--repo", fx.dir, "--agent", "command", "--command", command, "--isolation", "none", "--out", out];

    const first = await gitgood(args, { env });
    expect(first.code).toBe(1);
    expect(first.stdout).toMatch(/MCR\s+2\s+0\.00/);
    expect(lastLine(first.stderr)).toBe(
      "gitgood: 2 of 4 attempt(s) ended in a system error: AGENT_FAILED ×2 (acme_calc_merge_0000.MCR, acme_calc_merge_0001.MCR): agent command exited with code 3: not yet; run again with --retry-errors to retry them, or pass --allow-errors to exit 0",
    );
    const before = byKey(out);
    const failed = Object.values(before).filter((r) => r.status === "error");
    expect(failed.map((r) => r.scenario)).toEqual(["MCR", "MCR"]);
    const trajectoryText = (r: ResultRecord) => readFileSync(path.join(out, r.trajectory ?? ""), "utf8");
    for (const r of failed) expect(trajectoryText(r)).toContain("not yet");

    // Resuming without the flag reruns nothing; --allow-errors exits 0 on the same records.
    writeFileSync(flag, "");
    const resumed = await gitgood([...args, "--allow-errors"], { env });
    expect(resumed.code).toBe(0);
    expect(resumed.stderr.match(/already done/g)).toHaveLength(4);
    expect(byKey(out)).toEqual(before);

    // Where the repositories are is not part of the run's identity (issue 22): another location is no other run.
    const elsewhere = await gitgood([...args.slice(0, 2), "--repos", fx.dir, ...args.slice(4)], { env });
    expect(lastLine(elsewhere.stderr)).not.toMatch(/holds a run with other settings/);

    const retried = await gitgood([...args, "--retry-errors"], { env });
    expect(retried.code, retried.stderr).toBe(0);
    expect(retried.stderr.match(/already done/g)).toHaveLength(2);
    const lines = resultLines(out);
    expect(lines.map((r) => r.key).sort()).toEqual(Object.keys(before).sort());
    const after = byKey(out);
    for (const [key, r] of Object.entries(before)) {
      if (r.status === "error") {
        expect(after[key]).toMatchObject({ status: "success", error: null });
        expect(after[key]?.started_at).not.toBe(r.started_at);
        expect(trajectoryText(after[key]!)).not.toContain("not yet");
      } else {
        expect(after[key]).toEqual(r);
      }
    }
  });

  it("exits 3 when the solve rate is below --fail-under (unjudged attempts are not solved), after printing the report", async () => {
    const out = outDir();
    const args = ["run", samplesFile, "--repo", fx.dir, "--agent", "oracle", "--out", out];
    const passing = await gitgood([...args, "--fail-under", "50"], { env });
    expect(passing.code, passing.stderr).toBe(0);
    const failing = await gitgood([...args, "--fail-under", "60"], { env });
    expect(failing.code).toBe(3);
    expect(failing.stdout).toMatch(/MCR\s+2\s+100\.00\s+100\.00/);
    expect(lastLine(failing.stderr)).toBe("gitgood: the solve rate is 50.00 % (2 of 4 attempt(s) solved), below --fail-under 60");
    const bad = await gitgood([...args, "--fail-under", "120"], { env });
    expect(bad.code).toBe(2);
    expect(lastLine(bad.stderr)).toBe("gitgood: --fail-under takes a number from 0 to 100, not '120'");
  });

  it("exits 1 rather than 3 when attempts failed, and 3 with --allow-errors", async () => {
    const out = outDir();
    const args = ["run", samplesFile, "--ids", mergeIds, "--repo", fx.dir, "--agent", "command", "--command", "exit 4", "--isolation", "none", "--out", out];
    expect((await gitgood([...args, "--fail-under", "10"], { env })).code).toBe(1);
    const allowed = await gitgood([...args, "--fail-under", "10", "--allow-errors"], { env });
    expect(allowed.code).toBe(3);
    expect(lastLine(allowed.stderr)).toBe("gitgood: the solve rate is 0.00 % (0 of 2 attempt(s) solved), below --fail-under 10");
  });
});

describe("run.json", () => {
  it("empty or damaged: one line naming the file and what to do; deleting it resumes the run with its results", async () => {
    const out = outDir();
    const args = ["run", samplesFile, "--ids", mergeIds, "--repo", fx.dir, "--agent", "oracle", "--out", out];
    expect((await gitgood(args, { env })).code).toBe(0);
    const runJson = path.join(out, "run.json");
    for (const [content, what] of [
      ["", "is empty"],
      ['{"schema_version": 2, "identity"', "is damaged (not JSON)"],
    ] as const) {
      writeFileSync(runJson, content);
      const expected = `gitgood: ${runJson} ${what}; delete it and run the same gitgood run command again to resume (the results are kept), or use another --out\n`;
      const r = await gitgood(args, { env });
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(expected);
      const report = await gitgood(["report", out]);
      expect(report).toEqual({ code: 1, stdout: "", stderr: expected });
    }
    rmSync(runJson);
    const resumed = await gitgood(args, { env });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr.match(/already done/g)).toHaveLength(2);
    expect(readdirSync(out).sort()).toEqual(["progress.jsonl", "results.jsonl", "run.json", "trajectories"]);
  });
});
