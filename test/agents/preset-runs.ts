import { writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect } from "vitest";
import { installPackage, PRESETS } from "../../src/agents/presets/index.js";
import { makeSkeleton } from "../../src/commit0/skeleton.js";
import { sampleToJson, type ChainSample, type MergeSample, type Sample } from "../../src/dataset/sample.js";
import type { ResultRecord } from "../../src/runs/record.js";
import { builtLater } from "../helpers/built-later.js";
import { gitgood, type CliResult } from "../helpers/cli.js";
import { LIBRARY, libraryRepository } from "../helpers/commit0.js";
import { useCacheDir } from "../helpers/envs.js";
import type { Fixture } from "../helpers/fixture.js";
import { recordsIn, trajectoryOf } from "../helpers/mcp.js";
import { buildRunFixture, tempDirs } from "../helpers/runs.js";
import { pythonTask, type PythonTask } from "../helpers/swe.js";
import { USAGE, type ScriptStep } from "./presets-upstream.js";

// The real agents from npm are installed once: .ci/run installs them before the suite into GITGOOD_AGENTS_DIR;
// elsewhere they are kept in the temporary directory between runs.
process.env.GITGOOD_AGENTS_DIR ??= path.join(os.tmpdir(), "gitgood-test-agents");

export const preset = (name: string) => PRESETS.find((p) => p.name === name) as (typeof PRESETS)[number];

/** The key the user's endpoint takes, which no agent may see. */
export const USER_KEY = "sk-user-key-never-shown";

export type Event = { type: string; text?: string; tool?: string; message?: { content?: unknown; tool_calls?: unknown[] } };

export type Family = "mcr" | "swe" | "chain" | "commit0";
export interface Target {
  repo: string;
  samples: string;
  id: string;
}

/**
 * The samples the real agents are run on: the two MCR samples (the easy one is the one run), a SWE instance
 * (calc.sub adds instead of subtracting), a chain of four commits to calc.py (IR and ICC; its third commit is
 * a typo fix-up) and, when asked for, a COMMIT0 task (the shapes library with its ten bodies stubbed).
 */
export interface PresetFixtures {
  mcr: Target;
  swe: Target;
  chain: Target & { commits: number };
  commit0: Target;
  out: (name: string) => string;
  /** Environment builds (the SWE instance's Python), shared by the runs of a file. */
  cacheDir: string;
  cleanup: () => void;
}

export async function presetFixtures(opts: { commit0?: boolean } = {}): Promise<PresetFixtures> {
  const { fx, samples }: { fx: Fixture; samples: Sample[] } = await buildRunFixture();
  const easy = samples.find((s): s is MergeSample => s.sample_type === "merge" && s.difficulty === "easy") as MergeSample;
  const dirs = tempDirs();
  const mcrFile = `${dirs.out}-samples.jsonl`;
  writeFileSync(mcrFile, samples.filter((s) => s.sample_type === "merge").map((s) => `${sampleToJson(s)}\n`).join(""));
  const task: PythonTask = pythonTask();
  // As SWE-bench publishes instances: a JSON list.
  const sweFile = `${dirs.out}-swe.json`;
  writeFileSync(sweFile, JSON.stringify([task.sample().scenario]));
  const chain = samples.find((s): s is ChainSample => s.sample_type === "file_commit_chain") as ChainSample;
  const chainFile = `${dirs.out}-chain.jsonl`;
  writeFileSync(chainFile, `${sampleToJson(chain)}\n`);
  const cache = useCacheDir();
  const library = opts.commit0 ? libraryRepository() : null;
  const commit0File = `${dirs.out}-commit0.jsonl`;
  let commit0Id = "";
  if (library) {
    const { sample } = await makeSkeleton(library.fixture.dir, { src: "shapes", cacheDir: cache.dir, testTimeoutSeconds: 120, setupTimeoutSeconds: 300 });
    writeFileSync(commit0File, `${sampleToJson(sample)}\n`);
    commit0Id = sample.id;
  }
  return {
    mcr: { repo: fx.dir, samples: mcrFile, id: easy.id },
    swe: { repo: task.fixture.dir, samples: sweFile, id: task.sample().id },
    chain: { repo: fx.dir, samples: chainFile, id: chain.id, commits: chain.scenario.times_seen_consecutively },
    commit0: { repo: library?.fixture.dir ?? "", samples: commit0File, id: commit0Id },
    out: (name) => `${dirs.out}-${name}`,
    cacheDir: cache.dir,
    cleanup: () => {
      dirs.cleanup();
      cache.cleanup();
      fx.remove();
      task.fixture.remove();
      library?.fixture.remove();
    },
  };
}

/**
 * Builds the preset fixtures before the test file's tests and installs preset `name` from npm (the hook may take
 * `ms`), and removes the fixtures after them. The fixtures are there once the file's tests run.
 */
export function usePresetFixtures(name: string, ms: number): PresetFixtures {
  let made: PresetFixtures | undefined;
  beforeAll(async () => {
    made = await presetFixtures();
    await installPackage(preset(name).package, preset(name).version);
  }, ms);
  afterAll(() => made?.cleanup());
  return builtLater(() => made, "the preset fixtures");
}

/** The MCR script: resolve the conflict with the merged branch's side, then finish (gitgood's tools over MCP). */
export const MCR_SCRIPT: ScriptStep[] = [
  { tool: "resolve_current_merge_conflict_with", args: { content: "io3 = 'topic'\n", reason: "take the merged branch's side" } },
  { tool: "finish_scenario", args: {} },
];

/** The SWE script: one edit of the work tree with the agent's own shell tool (its `bash`), which fixes calc.sub. */
export const SWE_SCRIPT: ScriptStep[] = [{ tool: "bash", args: { command: "sed -i '/def sub/{n;s/a + b/a - b/}' calc/__init__.py", description: "Make sub subtract" } }];

/** The IR script: fold the typo fix-up (the third commit) into the commit before, then run the rebase. */
export function irScript(commits: number): ScriptStep[] {
  const items = Array.from({ length: commits }, (_, i) => ({ commit_index: i, command: i === 2 ? "fixup" : "pick" }));
  return [
    { tool: "update_rebase_todo_list", args: { rebase_todo_list_items: items, reason: "fold the typo fix into the commit it fixes" } },
    { tool: "execute_rebase", args: { reason: "run the plan" } },
  ];
}

/** The ICC script: every change in one commit. */
export const ICC_SCRIPT: ScriptStep[] = [{ tool: "commit_remaining_changes", args: { commit_message: "Add sub, mul and div", reason: "one change" } }];

/** A shell command whose output (PROBE_OUTPUT) is not in its text: seen in a tool result only if a shell ran it. */
export const SHELL_PROBE = "echo shell-ran-$((6 * 7))";
export const PROBE_OUTPUT = "shell-ran-42";

/** Each preset's own shell tool, as its model calls it. */
const SHELL_TOOL: Record<string, (command: string) => ScriptStep> = {
  "claude-code": (command) => ({ tool: "Bash", args: { command, description: "Edit the work tree" } }),
  opencode: (command) => ({ tool: "bash", args: { command, description: "Edit the work tree" } }),
  codex: (cmd) => ({ tool: "exec_command", args: { cmd } }),
  "gemini-cli": (command) => ({ tool: "run_shell_command", args: { command, description: "Edit the work tree" } }),
};

/** A call of `name`'s own shell tool running `command`. */
export function shellStep(name: string, command: string): ScriptStep {
  return (SHELL_TOOL[name] as (command: string) => ScriptStep)(command);
}

const STUBBED = ["shapes/vectors.py", "shapes/units.py", "shapes/convert.py", "shapes/area.py"];

/**
 * The COMMIT0 script: the four stubbed modules of the shapes library written back whole, by one shell
 * command (heredocs), or for gemini-cli by its write_file tool: gemini-cli's shell tool refuses that command
 * ("Command injection detected: command substitution syntax"), its own check misreading the Python text.
 */
export function commit0Script(name: string): ScriptStep[] {
  if (name === "gemini-cli") return STUBBED.map((file) => ({ tool: "write_file", args: { file_path: file, content: LIBRARY[file] as string } }));
  return [shellStep(name, STUBBED.map((file) => `cat > ${file} <<'GITGOOD_EOF'\n${LIBRARY[file] as string}GITGOOD_EOF`).join("\n"))];
}

/** The SWE fix as a shell command (SWE_SCRIPT's). */
export const SWE_COMMAND = (SWE_SCRIPT[0] as ScriptStep).args.command as string;

/** Variables pointing a run's proxy at `origin` (a fake upstream) for a preset's API, with the user's key. */
export function upstreamEnv(name: string, origin: string): Record<string, string> {
  const api = preset(name).api;
  if (api === "anthropic") return { ANTHROPIC_BASE_URL: origin, ANTHROPIC_API_KEY: USER_KEY };
  if (api === "gemini") return { GOOGLE_GEMINI_BASE_URL: origin, GEMINI_API_KEY: USER_KEY };
  return { OPENAI_BASE_URL: `${origin}/v1`, OPENAI_API_KEY: USER_KEY };
}

/** The model each preset is run with in the tests. */
export const TEST_MODEL: Record<string, string> = { "claude-code": "anthropic/claude-test", opencode: "openai/test-model", codex: "openai/gpt-test", "gemini-cli": "gemini-test" };

export interface PresetRun {
  cli: CliResult;
  record: ResultRecord | undefined;
  events: Event[];
  /** The attempt's final state as its trajectory holds it (IR/ICC: the history git made; COMMIT0: the work tree's diff). */
  final: unknown;
  /** What went wrong, for an assertion's message: stderr and the trajectory's notes. */
  why: string;
}

/** `gitgood run` of one sample with a preset agent, its model calls going to `env`'s endpoint. */
export async function runPreset(fx: PresetFixtures, family: Family, args: string[], env: Record<string, string>, name: string): Promise<PresetRun> {
  const target = fx[family];
  const out = fx.out(name);
  const cli = await gitgood(["run", target.samples, "--ids", target.id, "--repo", target.repo, "--timeout", "600", "--out", out, "--json", ...args], {
    env: { GITGOOD_CACHE_DIR: fx.cacheDir, ...env },
  });
  const record = Object.values(recordsIn(out))[0];
  const trajectory = record?.trajectory ? trajectoryOf(out, record) : null;
  const events = (trajectory?.events ?? []) as Event[];
  const why = `${cli.stderr}\n${JSON.stringify(record?.error ?? null)}\n${events.filter((e) => e.type === "note").map((e) => e.text ?? "").join("\n").slice(-6000)}`;
  return { cli, record, events, final: trajectory?.final, why };
}

/**
 * What every run of preset `name` priced at 3 and 15 a million tokens must show: at least two model turns, each
 * counted and priced; the user's key in no event; a final message of the preset's saying "Done.". The number of
 * turns, for the file to check them against the requests its API's fake upstream saw.
 */
export function expectTurnsRecorded(run: PresetRun, name: string): number {
  const turns = run.events.filter((e) => e.type === "model");
  expect(turns.length).toBeGreaterThanOrEqual(2);
  expect(run.record?.tokens).toEqual({ prompt: USAGE.input * turns.length, completion: USAGE.output * turns.length });
  expect(run.record?.cost_usd).toBeCloseTo((USAGE.input * 3 + USAGE.output * 15) * turns.length / 1e6, 9);
  expect(JSON.stringify(run.events)).not.toContain(USER_KEY);
  expect(run.events.some((e) => e.type === "note" && e.text?.startsWith(`final message of ${name}@${preset(name).version}`) && e.text.includes("Done."))).toBe(true);
  return turns.length;
}
