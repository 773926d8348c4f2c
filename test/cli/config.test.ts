import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleToJson, type Sample } from "../../src/dataset/sample.js";
import { gitgood } from "../helpers/cli.js";
import { completion, fakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import type { Fixture } from "../helpers/fixture.js";
import { buildRunFixture } from "../helpers/runs.js";

let fx: Fixture;
let samples: Sample[];
let samplesFile: string;
let env: Record<string, string>;
let merge: Sample;
let readable: [string, string, string];
let n = 0;
let endpoint: FakeOpenAI;

beforeAll(async () => {
  ({ fx, samples } = await buildRunFixture());
  samplesFile = path.join(fx.scratch("data"), "samples.jsonl");
  writeFileSync(samplesFile, samples.map((s) => `${sampleToJson(s)}\n`).join(""));
  // The configured judges are checked before a run (and asked on IR): a local endpoint answers them.
  endpoint = await fakeOpenAI([{ body: completion({ content: "OK" }) }]);
  env = { GITGOOD_SANDBOX_ROOT: fx.scratch("sandboxes"), OPENAI_BASE_URL: endpoint.url, OPENAI_API_KEY: "test-key", GITGOOD_CACHE_DIR: fx.scratch("cache") };
  merge = samples.find((s) => s.sample_type === "merge")!;
  readable = [fx.scratch("read-a"), fx.scratch("read-b"), fx.scratch("read-c")];
});
afterAll(async () => {
  await endpoint.close();
  fx.remove();
});

/** A working directory holding `gitgood.config.yaml` (or another file name) with `text`. */
function workDir(text: string, file = "gitgood.config.yaml"): string {
  const dir = fx.scratch(`cwd-${n++}`);
  writeFileSync(path.join(dir, file), text);
  return dir;
}

interface RunJson {
  identity: Record<string, unknown>;
  limits: { jobs: number };
  spec: Record<string, unknown>;
  config: { file: string | null; options: Record<string, unknown>; prices: Record<string, unknown> };
}
const runJson = (dir: string) => JSON.parse(readFileSync(path.join(dir, "run.json"), "utf8")) as RunJson;
const keysIn = (dir: string) =>
  readFileSync(path.join(dir, "results.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => (JSON.parse(l) as { key: string }).key);

describe("gitgood.config.yaml", () => {
  const config = () => [
    "# applies to every verb that has the option",
    "agent: oracle",
    "max-turns: 12",
    "judge: [judge-a, judge-b]",
    "prices:",
    "  judge-a: { input: 1.5, output: 6 }",
    "run:",
    "  scenario: mcr",
    "  jobs: 1",
    `  allow-read: [${readable[0]}, ${readable[1]}]`,
    "  prices:",
    "    judge-b: { input: 0.5, output: 1 }",
    "",
  ].join("\n");

  it("sets the options it names, section over top level, and run.json keeps the resolved configuration", async () => {
    const cwd = workDir(config());
    const out = path.join(cwd, "run");
    // Named with --config: the file reads host folders (allow-read), which a file only found here may not.
    const r = await gitgood(["run", samplesFile, "--repo", fx.dir, "--ids", merge.id, "--out", out, "--config", "gitgood.config.yaml"], { cwd, env });
    expect(r.code, r.stderr).toBe(0);
    expect(keysIn(out)).toEqual([`${merge.id}.MCR`]);
    const saved = runJson(out);
    expect(saved.identity).toMatchObject({ agent: "oracle", spec: { max_turns: 12, scenarios: ["MCR"] } });
    expect(saved.limits).toEqual({ jobs: 1 });
    expect(saved.spec).toMatchObject({ max_turns: 12 });
    expect(saved.spec.judges).toEqual(["judge-a", "judge-b"]);
    expect(saved.config.file).toBe("gitgood.config.yaml");
    expect(saved.config.options).toMatchObject({
      agent: "oracle",
      "max-turns": 12,
      jobs: 1,
      judge: ["judge-a", "judge-b"],
      "allow-read": [readable[0], readable[1]],
      scenario: ["MCR"],
      ids: [merge.id],
      memory: false,
      timeout: 900,
    });
    expect(saved.config.prices).toEqual({ "judge-a": { input: 1.5, output: 6 }, "judge-b": { input: 0.5, output: 1 } });
  });

  it("is overridden by flags, and --config names another file", async () => {
    const cwd = workDir(config(), "team.yaml");
    const out = path.join(cwd, "run");
    const r = await gitgood(
      ["run", samplesFile, "--repo", fx.dir, "--config", "team.yaml", "--max-turns", "3", "--scenario", "ir", "--judge", "solo", "--allow-read", readable[2], "--out", out],
      { cwd, env },
    );
    expect(r.code, r.stderr).toBe(0);
    const chain = samples.find((s) => s.sample_type === "file_commit_chain")!;
    expect(keysIn(out)).toEqual([`${chain.id}.IR`]);
    const saved = runJson(out);
    expect(saved.config.file).toBe("team.yaml");
    expect(saved.config.options).toMatchObject({ "max-turns": 3, agent: "oracle", jobs: 1, judge: ["solo"], "allow-read": [readable[2]], scenario: ["IR"] });
    // Without --config, a file of another name in the working directory is not read.
    const plain = await gitgood(["run", samplesFile, "--repo", fx.dir, "--ids", merge.id, "--dry-run", "--out", path.join(cwd, "other")], { cwd, env });
    expect(plain.stdout).toContain("(agent baseline)");
  });

  it("configures bench and report too", async () => {
    const cwd = workDir(["bench:", "  per-type: 1", "  scenario: MCR", "  agent: oracle", "report:", "  json: true", ""].join("\n"));
    const out = path.join(cwd, "bench");
    const b = await gitgood(["bench", fx.dir, "--out", out], { cwd, env });
    expect(b.code, b.stderr).toBe(0);
    expect(keysIn(path.join(out, "run"))).toHaveLength(1);
    expect(runJson(path.join(out, "run")).config.options).toMatchObject({ "per-type": 1, scenario: ["MCR"], agent: "oracle", languages: ["python", "java", "kotlin"] });
    const rep = await gitgood(["report", path.join(out, "run")], { cwd, env });
    expect(rep.code, rep.stderr).toBe(0);
    expect(JSON.parse(rep.stdout)).toHaveProperty("schema_version");
  });

  it.for([
    ["max-turn: 3\n", "gitgood.config.yaml: max-turn: unknown option; keys are the long options of gitgood run, gitgood bench, gitgood report, gitgood score, a section per verb (run, bench, report, score), prices, envs and plugins"],
    ["run:\n  per-type: 3\n", "gitgood.config.yaml: run.per-type: not an option of gitgood run (see gitgood run --help)"],
    ["run:\n  jobs: zero\n", "gitgood.config.yaml: run.jobs: --jobs takes a whole number, not 'zero'"],
    ["memory: yes please\n", 'gitgood.config.yaml: memory: takes true or false, not "yes please"'],
    ["isolation: chroot\n", "gitgood.config.yaml: isolation: --isolation takes namespace, docker, none, not 'chroot'"],
    ["judge: { a: 1 }\n", "gitgood.config.yaml: judge: takes a value or a list of values"],
    ["bench: [1, 2]\n", "gitgood.config.yaml: bench: takes a mapping of gitgood bench's options to values"],
    ["prices:\n  gpt-4o: { input: 1 }\n", "gitgood.config.yaml: prices.gpt-4o.output: takes a number of US dollars per million tokens, from 0 to 1000000"],
    ["prices:\n  gpt-4o: { input: 1, output: 2, cached: 0.5 }\n", "gitgood.config.yaml: prices.gpt-4o.cached: unknown key; a price has input and output"],
    ["agent: [oracle\n", /^gitgood\.config\.yaml: not valid YAML \(line \d+\): .+$/],
    ["- agent\n", "gitgood.config.yaml: must be a mapping of option names to values"],
  ] as const)("refuses %j in one line naming the file and key, before running anything", async ([text, message]) => {
    const cwd = workDir(text);
    const out = path.join(cwd, "run");
    const r = await gitgood(["run", samplesFile, "--repo", fx.dir, "--out", out], { cwd, env });
    expect(r.code).toBe(2);
    expect(existsSync(out)).toBe(false);
    expect(r.stderr.split("\n")).toHaveLength(2);
    const line = r.stderr.replace(/^gitgood: /, "").trimEnd();
    if (typeof message === "string") expect(line).toBe(message);
    else expect(line).toMatch(message);
  });

  it("takes nothing from a file only found in the working directory that would run a program unjailed, but the same file named with --config", async () => {
    const cwd = workDir("");
    const marker = path.join(cwd, "MARKER");
    // What a cloned repository could hold: its own agent, run without isolation.
    writeFileSync(path.join(cwd, "gitgood.config.yaml"), `agent: command\ncommand: touch ${marker}\nisolation: none\n`);
    const out = path.join(cwd, "run");
    const found = await gitgood(["run", samplesFile, "--repo", fx.dir, "--ids", merge.id, "--out", out], { cwd, env });
    expect(found.code).toBe(2);
    expect(found.stderr).toBe(
      "gitgood: gitgood.config.yaml: agent: widens what runs on this machine, so it is taken only from a file named with --config gitgood.config.yaml (or from the option itself)\n",
    );
    expect(existsSync(out)).toBe(false);
    expect(existsSync(marker)).toBe(false);
    const widening = ["isolation: none\n", "network: true\n", "pass-env: [HOME]\n", "run:\n  agent: oracle,a2a\n", `allow-read: [${cwd}]\n`];
    widening.push("max-processes: 100000\n", "max-memory: 64G\n", "max-disk: 100G\n", "accept-weak-limits: true\n", "queue: redis://127.0.0.1:1\n");
    for (const text of widening) {
      writeFileSync(path.join(cwd, "gitgood.config.yaml"), text);
      const r = await gitgood(["run", samplesFile, "--repo", fx.dir, "--out", out], { cwd, env });
      expect([r.code, r.stderr], text).toEqual([2, expect.stringContaining("widens what runs on this machine") as unknown as string]);
    }
    // Narrowing is what a project's file is for: lower limits are taken.
    writeFileSync(path.join(cwd, "gitgood.config.yaml"), "max-processes: 64\nmax-memory: 1G\n");
    const narrowed = await gitgood(["run", samplesFile, "--repo", fx.dir, "--ids", merge.id, "--out", out, "--dry-run"], { cwd, env });
    expect(narrowed.code, narrowed.stderr).toBe(0);
    writeFileSync(path.join(cwd, "gitgood.config.yaml"), `agent: command\ncommand: touch ${marker}\nisolation: none\n`);
    const named = await gitgood(["run", samplesFile, "--repo", fx.dir, "--ids", merge.id, "--out", out, "--config", "gitgood.config.yaml", "--dry-run"], { cwd, env });
    expect(named.code, named.stderr).toBe(0);
  });

  it("names a --config file that is not there", async () => {
    const r = await gitgood(["report", fx.dir, "--config", path.join(fx.dir, "nope.yaml")], { env });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`gitgood: cannot read the configuration file ${path.join(fx.dir, "nope.yaml")}\n`);
  });
});
