import { existsSync, statSync } from "node:fs";
import path from "node:path";
import type { Agent } from "../agents/index.js";
import type { RepoLocator } from "../dataset/clones.js";
import { readDataset } from "../dataset/importer.js";
import type { Sample } from "../dataset/sample.js";
import { samplesDigest } from "../dataset/digest.js";
import { GitGoodError } from "../errors.js";
import { Repo } from "../git/repo.js";
import type { RepoPool } from "../git/repo-pool.js";
import { modelEndpoint, type ModelOptions } from "../model/lookup.js";
import type { ModelClient } from "../model/types.js";
import { chooseIsolation, isolationNote, probeIsolation, type Isolation } from "../sandbox/isolation.js";
import { escapeControls } from "../util/escape.js";
import { budgetOf } from "./budget.js";
import { DIFFICULTY, agentPrices, agentRunSpec, IDS, ISOLATION, JUDGES, LANGUAGES, LIMIT, MAX_TURNS, MEMORY, MODEL_SETTINGS, REPEATS, SAMPLE, SCENARIOS, SHARD, TIMEOUT, isolationRequest, scenarioSettings, settingsFromOptions, specFromOptions, specValue, type RunSpec } from "./spec.js";
import { runConfig, type ModelInfo, type ResolvedConfig, type RunConfig, type RunConfigInput } from "./config.js";
import type { Executor } from "./executor.js";
import type { RunFlags } from "./flags.js";
import { lockRunDir } from "./run-lock.js";
import { formatPlan, planRun, selectSamples, type Selection } from "./plan.js";
import { checkBudget, checkFreshRun, runBenchmark, type RunOptions, type RunSummary } from "./runner.js";
import { RunStore } from "./store.js";
import { judgesFromSpec, modelOptionsOf } from "./ticket.js";

/*
 * What the flags of flags.ts build: the selection of samples, how models are asked, the isolation,
 * what run.json records, the dry run's plan, and the run itself. `run` and `bench` share all of it.
 */

/** Where text goes: a stream of the process or a caller's buffer. */
interface TextSink {
  write(text: string): unknown;
}

function slug(s: string): string {
  return s.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 60);
}

/** A run's directory when --out does not say: `runs/<first samples file's name>-<agent>`. */
export function defaultRunDir(files: readonly string[], agent: string): string {
  return path.join("runs", `${slug(path.basename(files[0] ?? "samples").replace(/\.[^.]+$/, ""))}-${slug(agent)}`);
}

/**
 * Wrong usage stops before any sample runs: --repo must be a repository, --repos a directory. With
 * `sources`, the repository is opened through it, and the run that reads through the same pool opens it
 * no second time.
 */
export async function checkLocator(where: RepoLocator, sources?: RepoPool): Promise<void> {
  if ("repo" in where) {
    await (sources ? sources.get(where.repo) : Repo.open(where.repo));
  } else if (!existsSync(where.repos) || !statSync(where.repos).isDirectory()) {
    throw new GitGoodError("NOT_FOUND", `--repos ${where.repos} is not a directory`);
  }
}

/** Loads the samples of a run, narrowed by a selection (filters, stratified sample, limit). */
export async function loadSelected(files: readonly string[], selection: Selection): Promise<Sample[]> {
  if (files.length === 0) throw new GitGoodError("BAD_OPTION", "give a samples file (JSONL, CSV or Parquet)");
  return selectSamples((await readDataset(files)).samples, selection);
}

/** Loads the samples of a run, narrowed by --ids and --limit. */
export async function loadSamples(files: readonly string[], ids?: readonly string[], limit?: number): Promise<Sample[]> {
  return loadSelected(files, { ids, limit });
}

/** The samples and scenarios the spec selects (--ids, --scenario, --difficulty, --language, --sample, --limit). */
export function selectionOfSpec(spec: RunSpec): Selection {
  return {
    ids: specValue(spec, IDS) ?? undefined,
    scenarios: specValue(spec, SCENARIOS) ?? undefined,
    difficulties: specValue(spec, DIFFICULTY) ?? undefined,
    languages: specValue(spec, LANGUAGES) ?? undefined,
    sample: specValue(spec, SAMPLE) ?? undefined,
    limit: specValue(spec, LIMIT) ?? undefined,
  };
}

/** The selection the flags ask for (--ids, --scenario, --difficulty, --language, --sample/--seed, --limit: the spec's). */
export function selectionOf(flags: RunFlags): Selection {
  return selectionOfSpec(specOfFlags(flags));
}


/** What run.json records of the model an llm agent uses (how it is asked is the spec's). */
function modelInfo(name: string | undefined): ModelInfo | null {
  return name ? { name, endpoint: modelEndpoint(name) } : null;
}

/**
 * How every model of one command is asked, by the options of its model settings (`--temperature`,
 * `--max-tokens`, `--seed`, `--max-connections`, `--no-cache`): see `modelOptionsOf`.
 */
export function modelOptions(options: object): ModelOptions {
  return modelOptionsOf(settingsFromOptions(options as Record<string, unknown>, MODEL_SETTINGS));
}

/** The run settings the flags give (every declared setting's option, or its default). */
function specOfFlags(flags: RunFlags): RunSpec {
  return specFromOptions(flags as unknown as Record<string, unknown>, { families: true });
}

/** The judges the flags name (the spec's `judges`, `--judge`), asked with `models`. */
export function judgesOf(flags: RunFlags, models: ModelOptions): ModelClient[] {
  return judgesFromSpec(specValue(specOfFlags(flags), JUDGES), models);
}

/** Starts the probe of the isolation the flags ask for (bubblewrap's), which `isolationFrom` then needs not wait for. */
export function probeIsolationOf(flags: RunFlags): Promise<void> {
  let mode: string;
  try {
    mode = specValue(specOfFlags(flags), ISOLATION);
  } catch {
    // A wrong option is reported where the run reads its spec, in its turn.
    return Promise.resolve();
  }
  return probeIsolation(mode);
}

/** The isolation the flags ask for (the spec's), as this host gives it; says once on `stderr` when agent programs run without. */
export function isolationFrom(flags: RunFlags, stderr: TextSink): Isolation {
  const spec = specOfFlags(flags);
  // A process may use as much CPU time as the attempt has time.
  const isolation = chooseIsolation(isolationRequest(spec, specValue(spec, TIMEOUT)));
  const note = isolationNote(isolation);
  if (note) stderr.write(`${note}\n`);
  return isolation;
}

/** The agent a run's flags built, with its model when it uses one. */
interface FlagAgent {
  agent: Agent;
  /** The model the agent asks (an llm agent's), for run.json and its prices; undefined for agents without one. */
  model?: string;
  /** The agent's model client, checked with the judges before the first sample runs. */
  client?: ModelClient;
}

/** Prints what a run would do (`--dry-run`) on `stdout`, as text or JSON. */
export async function printPlan(
  samples: readonly Sample[],
  flags: RunFlags,
  run: FlagAgent & { where: RepoLocator; dir: string },
  stdout: TextSink,
): Promise<void> {
  const spec = specOfFlags(flags);
  const judges = specValue(spec, JUDGES);
  const plan = await planRun(samples, {
    agent: run.agent,
    agentModel: run.model ?? null,
    scenarios: specValue(spec, SCENARIOS) ?? undefined,
    memory: specValue(spec, MEMORY),
    repeats: specValue(spec, REPEATS),
    maxTurns: specValue(spec, MAX_TURNS),
    judges,
    where: run.where,
    shard: specValue(spec, SHARD) ?? undefined,
  });
  if (flags.json) {
    stdout.write(`${JSON.stringify({ dry_run: true, run_directory: run.dir, ...plan }, null, 2)}\n`);
    return;
  }
  const text = formatPlan(plan, { agent: run.agent.name, maxTurns: specValue(spec, MAX_TURNS), judges, runDir: run.dir });
  stdout.write(`${escapeControls(text)}\n`);
}

/** A run the flags describe, built and ready to start. */
export interface FlagRun extends FlagAgent {
  /**
   * The name the agent was made by (`--agent`'s, or the agent a family picked: `predictions`): the run's spec
   * holds only the agent settings that agent takes (`agentRunSpec`).
   */
  agentName: string;
  /** The run directory. */
  dir: string;
  samples: readonly Sample[];
  /** The samples files run.json records. */
  files: readonly string[];
  where: RepoLocator;
  /** Repositories opened before the run (`checkLocator`'s): the run reads through them, and closes them. */
  sources?: RepoPool;
  judges: readonly ModelClient[];
  isolation: Isolation;
  config: ResolvedConfig;
  /** The families' scenario settings (the spec adds its own: `scenarioSettings`). */
  settings?: Record<string, unknown>;
  /** Told the run directory once it is open. */
  stderr?: TextSink;
  onResult?: RunOptions["onResult"];
  /**
   * Where the jobs run instead of this process's pool (`gitgood run --queue`), made once run.json is
   * written: from the run's settings as stored (the families' in its spec, the agent's prices among them).
   */
  executor?: (run: { config: RunConfig }) => Executor;
}

/** The run.json the flags make for a run (its `identity` is what resuming, shards and queues compare). */
export function flagRunConfig(run: FlagRun, flags: RunFlags): Omit<RunConfig, "created_at"> {
  const input: RunConfigInput = {
    jobs: flags.jobs,
    samples: run.files,
    samplesDigest: samplesDigest(run.samples),
    agent: run.agent.name,
    model: modelInfo(run.model),
    where: run.where,
    isolation: run.isolation,
    config: run.config,
    spec: runSpecOf(run, flags),
  };
  return runConfig(input, (p) => path.resolve(p));
}

/** The spec of the run the flags describe: theirs, without the agent settings its agent does not take. */
function runSpecOf(run: FlagRun, flags: RunFlags): RunSpec {
  return agentRunSpec(specOfFlags(flags), run.agentName);
}

/** Runs a benchmark as the flags ask, holding the run directory's lock: opens (or resumes) the run and runs every attempt. */
export async function runFromFlags(run: FlagRun, flags: RunFlags): Promise<RunSummary> {
  // A queue's workers ready the agent where it runs; here it is readied before the run directory is made.
  if (!run.executor) await run.agent.prepare?.();
  const spec = runSpecOf(run, flags);
  // The families' settings (made from the spec's fragments); each attempt's gets the spec's own too (the MCR tools).
  const settings = scenarioSettings(spec, run.settings ?? {});
  const prices = agentPrices(spec, run.model, run.config.prices);
  const options: Omit<RunOptions, "store"> = {
    samples: run.samples,
    where: run.where,
    agent: run.agent,
    jobs: flags.jobs,
    judges: run.judges,
    prices,
    modelPrices: run.config.prices,
    agentModel: run.client?.model,
    spec,
    settings,
    isolation: run.isolation,
    models: run.client ? [run.client] : [],
    retryErrors: flags.retryErrors,
    onResult: run.onResult,
    ...(run.sources ? { sources: run.sources } : {}),
  };
  if (budgetOf(spec)) checkBudget(options, run.executor !== undefined);
  // A new run directory is made only once the repositories and models passed their checks.
  const checked = !run.executor && !existsSync(run.dir);
  // The repositories the checks opened are the run's: it reads through them, and closes them.
  const sources = checked ? await checkFreshRun(options) : null;
  try {
    const unlock = lockRunDir(run.dir);
    try {
      const store = RunStore.open(run.dir, flagRunConfig(run, flags));
      run.stderr?.write(`run directory: ${run.dir}\n`);
      return await runBenchmark({
        ...options,
        store,
        checked,
        ...(sources ? { sources } : {}),
        ...(run.executor ? { executor: run.executor({ config: RunStore.readConfig(run.dir) }) } : {}),
      });
    } finally {
      unlock();
    }
  } finally {
    await sources?.close();
  }
}
