import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sample } from "../../src/dataset/sample.js";
import { gitgood } from "../helpers/cli.js";
import type { Fixture } from "../helpers/fixture.js";
import { buildRunFixture, tempDirs } from "../helpers/runs.js";
import { pythonTask, type PythonTask } from "../helpers/swe.js";

const here = path.dirname(fileURLToPath(import.meta.url));
/** Harbor's task format as its code declares it (see the file's $comment for the sources). */
interface Field {
  type: string;
  required?: boolean;
  items?: string;
  enum?: string[];
  deprecated?: string;
}
const FACTS = JSON.parse(readFileSync(path.join(here, "schemas", "harbor-task.facts.json"), "utf8")) as {
  task_config: {
    top: Record<string, Field>;
    tables: Record<string, Record<string, Field>>;
    task_name_pattern: string;
  };
  layout: { required_files: string[]; required_dirs: string[]; environment_definition: string[]; oracle_script: string };
  container: { reward_text: string; reward_json: string; verifier_logs_dir: string };
};

let fx: Fixture;
let swe: PythonTask;
let dirs: { out: string; cleanup: () => void };
let out: string;
let scratch: string;
let merge: Sample;
let chain: Sample;
let exported: string;

beforeAll(async () => {
  dirs = tempDirs();
  scratch = mkdtempSync(path.join(os.tmpdir(), "gitgood-harbor-"));
  out = path.join(scratch, "tasks");
  const built = await buildRunFixture();
  fx = built.fx;
  merge = built.samples.find((s) => s.sample_type === "merge" && s.difficulty === "medium")!;
  chain = built.samples.find((s) => s.sample_type === "file_commit_chain")!;
  const file = path.join(scratch, "samples.jsonl");
  writeFileSync(file, [merge, chain].map((s) => `${JSON.stringify(s)}\n`).join(""));
  // The README's own example: a relative OUT, from the directory the user is in.
  const r = await gitgood(["export", "harbor", "samples.jsonl", "tasks", "--repo", fx.dir], { cwd: scratch });
  exported = r.stderr;
  expect(r.stderr).toMatch(/3 Harbor task\(s\) written under tasks\n/);
  expect(r.code).toBe(0);
  swe = pythonTask();
  // A SWE-bench instance file, as SWE-bench publishes them.
  const sweFile = path.join(scratch, "instances.json");
  writeFileSync(sweFile, JSON.stringify([swe.sample().scenario]));
  const s = await gitgood(["export", "harbor", sweFile, out, "--repo", swe.fixture.dir]);
  expect(s.stderr).toMatch(/1 Harbor task\(s\) written/);
  expect(s.code).toBe(0);
}, 240_000);

afterAll(() => {
  fx?.remove();
  swe?.fixture.remove();
  dirs?.cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

const taskDir = (sample: Sample | string, scenario: string): string => path.join(out, `${typeof sample === "string" ? sample : sample.id}-${scenario}`);

function git(cwd: string, ...args: string[]): string {
  const r = spawnSync("git", args, { cwd, encoding: "utf8", env: { ...process.env, GIT_CONFIG_GLOBAL: os.devNull, GIT_CONFIG_NOSYSTEM: "1" } });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

/** What Docker's build does with environment/start: the task's repository, built in a directory of the test's. */
function startRepo(task: string): string {
  const repo = mkdtempSync(path.join(scratch, "app-"));
  const r = spawnSync("sh", [path.join(task, "environment", "start", "start.sh"), repo], { encoding: "utf8" });
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
  return repo;
}

/**
 * Runs a task's script as Harbor would in the container, /app and /logs mapped to the test's directories;
 * returns the reward written, if any, and reward.json's metrics, which must hold the same reward.
 */
function runScript(task: string, script: "tests/test.sh" | "solution/solve.sh", repo: string): { reward: string | null; metrics: Record<string, number> | null; output: string } {
  const logs = mkdtempSync(path.join(scratch, "logs-"));
  const r = spawnSync("bash", [path.join(task, script)], { encoding: "utf8", env: { ...process.env, GITGOOD_TASK_REPO: repo, GITGOOD_TASK_LOGS: logs } });
  expect(r.status, r.stderr).toBe(0);
  const file = path.join(logs, "verifier", "reward.txt");
  const json = path.join(logs, "verifier", "reward.json");
  const metrics = existsSync(json) ? (JSON.parse(readFileSync(json, "utf8")) as Record<string, number>) : null;
  const reward = existsSync(file) ? readFileSync(file, "utf8") : null;
  if (reward !== null) expect(metrics?.reward).toBe(Number(reward));
  return { reward, metrics, output: r.stdout + r.stderr };
}

/** Every object the environment's bundle carries, read back as Docker's build would get them. */
function bundleObjects(task: string): Set<string> {
  const repo = mkdtempSync(path.join(scratch, "bundle-"));
  const start = path.join(task, "environment", "start");
  git(repo, "init", "-q", "--template=");
  if (existsSync(path.join(start, "git", "shallow"))) writeFileSync(path.join(repo, ".git", "shallow"), readFileSync(path.join(start, "git", "shallow")));
  git(repo, "bundle", "unbundle", path.join(start, "repo.bundle"));
  return new Set(git(repo, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)").trim().split("\n"));
}

/** Every file's bytes under a directory, joined (to look for answer text in it). */
function allBytes(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(path.join(e.parentPath, e.name)).toString("latin1"))
    .join("\n");
}

/** task.toml files read by Python's tomllib (an independent TOML reader), in one process. */
function readTomls(files: readonly string[]): Record<string, unknown>[] {
  const r = spawnSync("python3", ["-c", "import tomllib,json,sys\nprint(json.dumps([tomllib.load(open(f,'rb')) for f in sys.argv[1:]]))", ...files], { encoding: "utf8" });
  expect(r.stderr).toBe("");
  return JSON.parse(r.stdout) as Record<string, unknown>[];
}

function typeOk(type: string, value: unknown): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "float":
    case "integer":
      return typeof value === "number" && (type === "float" || Number.isInteger(value));
    case "boolean":
      return typeof value === "boolean";
    case "array":
      return Array.isArray(value);
    case "table":
      return typeof value === "object" && value !== null && !Array.isArray(value);
    default:
      return true;
  }
}

/** What a task.toml has that Harbor's TaskConfig does not declare, or declares otherwise. */
function tomlProblems(doc: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const { top, tables, task_name_pattern } = FACTS.task_config;
  for (const [key, value] of Object.entries(doc)) {
    const table = tables[key];
    if (table) {
      if (!typeOk("table", value)) problems.push(`[${key}] is not a table`);
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        const field = table[k] ?? table["*"];
        if (!field) problems.push(`${key}.${k} is not a field of Harbor's ${key} section`);
        else if (!typeOk(field.type, v)) problems.push(`${key}.${k} should be ${field.type}`);
        else if (field.enum && !field.enum.includes(v as string)) problems.push(`${key}.${k} should be one of ${field.enum.join(", ")}`);
        else if (field.deprecated) problems.push(`${key}.${k} is deprecated in Harbor (${field.deprecated})`);
        if (field?.items === "string" && Array.isArray(v) && !v.every((x) => typeof x === "string")) problems.push(`${key}.${k} should hold strings`);
      }
      for (const [k, field] of Object.entries(table)) if (field.required && (value as Record<string, unknown>)[k] === undefined) problems.push(`${key}.${k} is missing`);
    } else if (top[key]) {
      if (!typeOk(top[key].type, value)) problems.push(`${key} should be ${top[key].type}`);
    } else problems.push(`${key} is not a field of Harbor's TaskConfig`);
  }
  const name = (doc.task as { name?: string } | undefined)?.name ?? "";
  if (!new RegExp(task_name_pattern).test(name)) problems.push(`task.name ${name} is not org/name`);
  return problems;
}

describe("export harbor: the task directories", () => {
  it("writes a relative OUT below the directory it was given from, each task checked first", () => {
    for (const name of [`${merge.id}-mcr`, `${chain.id}-ir`, `${chain.id}-icc`]) {
      expect(exported).toContain(`wrote ${path.join("tasks", name)} (checked: the oracle scores 1, the untouched start 0)\n`);
      expect(statSync(path.join(scratch, "tasks", name, "task.toml")).isFile()).toBe(true);
    }
    expect(readTomls([path.join(taskDir(merge, "mcr"), "task.toml")])[0]).toMatchObject({ metadata: { gitgood_check: "passed in gitgood's jail (namespace) with git alone" } });
  });

  it("writes the layout and task.toml Harbor's code declares, for every scenario", () => {
    const tasks = readdirSync(out).sort();
    expect(tasks).toEqual([`${chain.id}-icc`, `${chain.id}-ir`, `${merge.id}-mcr`, "acme__calc-1-swe"].sort());
    const docs = readTomls(tasks.map((name) => path.join(out, name, "task.toml")));
    for (const [i, name] of tasks.entries()) {
      const task = path.join(out, name);
      for (const f of [...FACTS.layout.required_files, FACTS.layout.oracle_script]) expect(statSync(path.join(task, f)).isFile(), `${name}/${f}`).toBe(true);
      for (const d of FACTS.layout.required_dirs) expect(statSync(path.join(task, d)).isDirectory()).toBe(true);
      expect(FACTS.layout.environment_definition.some((f) => existsSync(path.join(task, f)))).toBe(true);
      for (const s of ["tests/test.sh", "solution/solve.sh"]) expect(statSync(path.join(task, s)).mode & 0o111, s).not.toBe(0);
      const test = readFileSync(path.join(task, "tests", "test.sh"), "utf8");
      // The script's default places are Harbor's: the reward file under the mounted /logs.
      expect(test).toContain("logs=${GITGOOD_TASK_LOGS:-/logs}");
      expect(`/logs/verifier/reward.txt`).toBe(FACTS.container.reward_text);
      expect(test).toContain(`"$logs/verifier/reward.txt"`);
      expect(`/logs/verifier/reward.json`).toBe(FACTS.container.reward_json);
      expect(test).toContain(`"$logs/verifier/reward.json"`);
      const doc = docs[i]!;
      expect(tomlProblems(doc), name).toEqual([]);
      expect(doc).toMatchObject({
        schema_version: "1.4",
        task: { name: `gitgood/${name}` },
        verifier: { environment_mode: "shared", network_mode: "no-network" },
        environment: { network_mode: "no-network", workdir: "/app" },
      });
      expect(readFileSync(path.join(task, "environment", "Dockerfile"), "utf8")).toMatch(/\nARG BASE_IMAGE=debian:[^\n]+\nFROM \$\{BASE_IMAGE\}\nRUN apt-get update && apt-get install -y --no-install-recommends git /);
    }
    // The check can fail: a key Harbor does not know, a wrong type, a name outside org/name.
    expect(tomlProblems({ task: { name: "gitgood/x", surprise: 1 }, verifier: { timeout_sec: "600" } })).toHaveLength(2);
    expect(tomlProblems({ task: { name: "gitgood/x" }, verifier: { environment_mode: "elsewhere" }, environment: { allow_internet: false } })).toHaveLength(2);
    expect(tomlProblems({ task: { name: "no-org" } })).toHaveLength(1);
  });

  it("notes in task.toml that the history tasks' judge was not run", () => {
    expect(readTomls([path.join(taskDir(chain, "ir"), "task.toml")])[0]).toMatchObject({ metadata: { judge: "not run", scenario: "IR" } });
    expect(readFileSync(path.join(taskDir(chain, "icc"), "instruction.md"), "utf8")).toMatch(/HEAD at `[0-9a-f]{40}`/);
  });
});

describe("export harbor: no answer in the environment", () => {
  it("MCR: the bundle holds neither the recorded merge nor its hand-made resolution", () => {
    const task = taskDir(merge, "mcr");
    const objects = bundleObjects(task);
    const m = merge.sample_type === "merge" ? merge.scenario.merge_commit_hash : "";
    expect(objects.has(merge.sample_type === "merge" ? merge.scenario.parents[1] : "")).toBe(true);
    expect(objects.has(m)).toBe(false);
    expect(objects.has(git(fx.dir, "rev-parse", `${m}^{tree}`).trim())).toBe(false);
    expect(objects.has(git(fx.dir, "rev-parse", `${m}:win.py`).trim())).toBe(false);
    expect(allBytes(path.join(task, "environment"))).not.toContain("M2+B2");
    expect(allBytes(path.join(task, "solution"))).toContain("M2+B2");
  });

  it("SWE: the bundle holds neither the fix, later commits, the gold code nor the evaluation's tests", () => {
    const task = taskDir("acme__calc-1", "swe");
    const objects = bundleObjects(task);
    expect(objects.has(swe.base)).toBe(true);
    for (const c of [swe.fix, swe.later]) expect(objects.has(c)).toBe(false);
    expect(objects.has(git(swe.fixture.dir, "rev-parse", `${swe.fix}:calc/__init__.py`).trim())).toBe(false);
    expect(objects.has(git(swe.fixture.dir, "rev-parse", `${swe.fix}:tests/test_sub.py`).trim())).toBe(false);
    const env = allBytes(path.join(task, "environment"));
    expect(env).not.toContain("test_sub_negative");
    expect(env).not.toContain("return a - b");
    expect(readFileSync(path.join(task, "instruction.md"), "utf8")).toContain("calc.sub(3, 1) returns 4");
  });

  it("ICC: the bundle holds none of the chain's commits, only the tree they end in", () => {
    const objects = bundleObjects(taskDir(chain, "icc"));
    const ids = chain.sample_type === "file_commit_chain" ? git(fx.dir, "rev-list", `${chain.scenario.oldest_commit}^..${chain.scenario.newest_commit}`).trim().split("\n") : [];
    expect(ids.length).toBeGreaterThan(2);
    for (const c of ids) expect(objects.has(c)).toBe(false);
    expect(objects.has(git(fx.dir, "rev-parse", `${chain.sample_type === "file_commit_chain" ? chain.scenario.newest_commit : ""}^{tree}`).trim())).toBe(true);
  });
});

describe("export harbor: the scripts, run outside Docker", () => {
  const history = { tree_match: 1, history_checks: 1, finished: 1, on_base: 1, empty_messages: 0, empty_commits: 0 };
  const cases = [
    { name: "MCR", dir: () => taskDir(merge, "mcr"), solved: { tree_match: 1, merge_committed: 1 }, untouched: { tree_match: 0, merge_committed: 0 } },
    { name: "IR", dir: () => taskDir(chain, "ir"), solved: history, untouched: { finished: 0 } },
    { name: "ICC", dir: () => taskDir(chain, "icc"), solved: history, untouched: { tree_match: 0, finished: 1 } },
    { name: "SWE", dir: () => taskDir("acme__calc-1", "swe"), solved: { fail_to_pass: 1, pass_to_pass: 1, pass_fraction: 1 }, untouched: { fail_to_pass: 0, pass_to_pass: 1, pass_fraction: 0.5 } },
  ];
  for (const c of cases) {
    it(`${c.name}: the untouched start scores 0, solution/solve.sh scores 1, in reward.txt and reward.json`, () => {
      const task = c.dir();
      const untouched = runScript(task, "tests/test.sh", startRepo(task));
      expect(untouched.reward, untouched.output).toBe("0\n");
      expect(untouched.metrics).toMatchObject({ reward: 0, solved: 0, ...c.untouched });
      const repo = startRepo(task);
      runScript(task, "solution/solve.sh", repo);
      const solved = runScript(task, "tests/test.sh", repo);
      expect(solved.reward, solved.output).toBe("1\n");
      expect(solved.metrics).toMatchObject({ reward: 1, solved: 1, ...c.solved });
    });
  }

  it("MCR's start is the conflicted merge, and a resolution off by its line endings scores 0", () => {
    const task = taskDir(merge, "mcr");
    const repo = startRepo(task);
    expect(git(repo, "status", "--porcelain")).toContain("UU win.py");
    expect(readFileSync(path.join(repo, "win.py"), "utf8")).toMatch(/<<<<<<< /);
    runScript(task, "solution/solve.sh", repo);
    writeFileSync(path.join(repo, "win.py"), readFileSync(path.join(repo, "win.py"), "utf8").replaceAll("\r\n", "\n"));
    expect(runScript(task, "tests/test.sh", repo).reward).toBe("0\n");
  });

  it("IR's start is the paused rebase; a history that drops a commit's change scores 0", () => {
    const task = taskDir(chain, "ir");
    const repo = startRepo(task);
    expect(existsSync(path.join(repo, ".git", "rebase-merge", "git-rebase-todo"))).toBe(true);
    const todo = path.join(repo, ".git", "rebase-merge", "git-rebase-todo");
    const lines = readFileSync(todo, "utf8").split("\n");
    const last = lines.map((l, i) => (l.startsWith("pick ") ? i : -1)).filter((i) => i >= 0).pop()!;
    writeFileSync(todo, lines.map((l, i) => (i === last ? l.replace(/^pick /, "drop ") : l)).join("\n"));
    spawnSync("git", ["rebase", "--continue"], { cwd: repo, env: { ...process.env, GIT_EDITOR: ":", GIT_CONFIG_GLOBAL: os.devNull } });
    const r = runScript(task, "tests/test.sh", repo);
    expect(r.output).toMatch(/"tree_matches_tip": 0/);
    expect(r.reward).toBe("0\n");
  });

  it("SWE: an answer that edits the evaluation's tests instead of the code scores 0", () => {
    const task = taskDir("acme__calc-1", "swe");
    const repo = startRepo(task);
    writeFileSync(path.join(repo, "tests", "test_sub.py"), "def test_sub():\n    pass\n\n\ndef test_sub_negative():\n    pass\n");
    const r = runScript(task, "tests/test.sh", repo);
    expect(r.output).toMatch(/FAIL_TO_PASS: 0\/2/);
    expect(r.reward).toBe("0\n");
  });
});

describe("export harbor: wrong usage", () => {
  it("refuses to run without a repository, in one line", async () => {
    const r = await gitgood(["export", "harbor", path.join(scratch, "samples.jsonl"), out]);
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/--repo/);
  });
});
