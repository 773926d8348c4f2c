import { writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PRESETS } from "../../src/agents/presets/index.js";
import { sampleToJson, type MergeSample, type Sample } from "../../src/dataset/sample.js";
import type { ResultRecord } from "../../src/runs/record.js";
import { gitgood, type CliResult } from "../helpers/cli.js";
import { useCacheDir } from "../helpers/envs.js";
import type { Fixture } from "../helpers/fixture.js";
import { recordsIn, trajectoryOf } from "../helpers/mcp.js";
import { buildRunFixture, tempDirs } from "../helpers/runs.js";
import { pythonTask, type PythonTask } from "../helpers/swe.js";
import type { ScriptStep } from "./presets-upstream.js";

// The real agents from npm are installed once: .ci/run installs them before the suite into GITGOOD_AGENTS_DIR;
// elsewhere they are kept in the temporary directory between runs.
process.env.GITGOOD_AGENTS_DIR ??= path.join(os.tmpdir(), "gitgood-test-agents");

export const preset = (name: string) => PRESETS.find((p) => p.name === name) as (typeof PRESETS)[number];

/** The key the user's endpoint takes, which no agent may see. */
export const USER_KEY = "sk-user-key-never-shown";

export type Event = { type: string; text?: string; tool?: string; message?: { content?: unknown; tool_calls?: unknown[] } };

/** The samples the real agents are run on: the two MCR samples (the easy one is the one run) and a SWE instance (calc.sub adds instead of subtracting). */
export interface PresetFixtures {
  mcr: { repo: string; samples: string; id: string };
  swe: { repo: string; samples: string; id: string };
  out: (name: string) => string;
  /** Environment builds (the SWE instance's Python), shared by the runs of a file. */
  cacheDir: string;
  cleanup: () => void;
}

export async function presetFixtures(): Promise<PresetFixtures> {
  const { fx, samples }: { fx: Fixture; samples: Sample[] } = await buildRunFixture();
  const easy = samples.find((s): s is MergeSample => s.sample_type === "merge" && s.difficulty === "easy") as MergeSample;
  const dirs = tempDirs();
  const mcrFile = `${dirs.out}-samples.jsonl`;
  writeFileSync(mcrFile, samples.filter((s) => s.sample_type === "merge").map((s) => `${sampleToJson(s)}\n`).join(""));
  const task: PythonTask = pythonTask();
  // As SWE-bench publishes instances: a JSON list.
  const sweFile = `${dirs.out}-swe.json`;
  writeFileSync(sweFile, JSON.stringify([task.sample().scenario]));
  const cache = useCacheDir();
  return {
    mcr: { repo: fx.dir, samples: mcrFile, id: easy.id },
    swe: { repo: task.fixture.dir, samples: sweFile, id: task.sample().id },
    out: (name) => `${dirs.out}-${name}`,
    cacheDir: cache.dir,
    cleanup: () => {
      dirs.cleanup();
      cache.cleanup();
      fx.remove();
      task.fixture.remove();
    },
  };
}

/** The MCR script: resolve the conflict with the merged branch's side, then finish (gitgood's tools over MCP). */
export const MCR_SCRIPT: ScriptStep[] = [
  { tool: "resolve_current_merge_conflict_with", args: { content: "io3 = 'topic'\n", reason: "take the merged branch's side" } },
  { tool: "finish_scenario", args: {} },
];

/** The SWE script: one edit of the work tree with the agent's own shell tool (its `bash`), which fixes calc.sub. */
export const SWE_SCRIPT: ScriptStep[] = [
  { tool: "bash", args: { command: "sed -i '/def sub/{n;s/a + b/a - b/}' calc/__init__.py", description: "Make sub subtract" } },
];

export interface PresetRun {
  cli: CliResult;
  record: ResultRecord | undefined;
  events: Event[];
  /** What went wrong, for an assertion's message: stderr and the trajectory's notes. */
  why: string;
}

/** `gitgood run` of one sample with a preset agent, its model calls going to `env`'s endpoint. */
export async function runPreset(fx: PresetFixtures, family: "mcr" | "swe", args: string[], env: Record<string, string>, name: string): Promise<PresetRun> {
  const target = fx[family];
  const out = fx.out(name);
  const cli = await gitgood(["run", target.samples, "--ids", target.id, "--repo", target.repo, "--timeout", "600", "--out", out, "--json", ...args], {
    env: { GITGOOD_CACHE_DIR: fx.cacheDir, ...env },
  });
  const record = Object.values(recordsIn(out))[0];
  const events = (record?.trajectory ? trajectoryOf(out, record).events : []) as Event[];
  const why = `${cli.stderr}\n${JSON.stringify(record?.error ?? null)}\n${events.filter((e) => e.type === "note").map((e) => e.text ?? "").join("\n").slice(-6000)}`;
  return { cli, record, events, why };
}
