import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { Command, Option } from "commander";
import { agentNames, agentProxied, agentUsesModel, createAgent, type Agent } from "../agents/index.js";
import { TOOLS_MODES, type ToolsMode } from "../agents/presets/index.js";
import { ResponseCache } from "../model/cache.js";
import { ConnectionLimit } from "../model/connections.js";
import { RECORD_MODEL_IO, RunProxy, upstreamsFromEnv, type RecordModelIo } from "../proxy/index.js";
import { lookupModel, type ModelOptions } from "../model/lookup.js";
import type { ModelClient } from "../model/types.js";
import { readDataset } from "../dataset/importer.js";
import { DIFFICULTIES, type Difficulty, type Sample } from "../dataset/sample.js";
import { GitGoodError } from "../errors.js";
import { Repo } from "../git/repo.js";
import { DEFAULT_HISTORY, parseHistory, type HistoryDepth } from "../git/store.js";
import { buildReport } from "../report/summary.js";
import { formatReport } from "../report/text.js";
import type { RepoLocator } from "../dataset/clones.js";
import { runConfig, type ModelInfo, type ModelSettings, type ResolvedConfig, type RunConfigInput } from "../runs/config.js";
import { formatPlan, planRun, scenarioSet, selectSamples, type PlanOptions, type Selection } from "../runs/plan.js";
import type { Prices } from "../runs/result.js";
import { runBenchmark, type RunSummary } from "../runs/runner.js";
import { lockRunDir } from "../runs/lock.js";
import { RunStore } from "../runs/store.js";
import { escapeControls } from "../util/escape.js";
import { listenToolHost, type ToolHostServer } from "../mcp/tool-host.js";
import { scenarioChoices } from "./scenario-option.js";
import { MCR_TOOL_SETS, type McrToolSet } from "../scenarios/mcr/state.js";
import { DEFAULT_DOCKER_IMAGE, DEFAULT_ISOLATION, ISOLATION_MODES, chooseIsolation, isolates, isolationHelp, isolationNote, type Isolation, type IsolationMode } from "../sandbox/isolation.js";
import { resolvedConfig, withConfig } from "./config.js";
import { checkOutcome } from "./outcome.js";
import { progressPrinter } from "./progress.js";
import { intOption, keywordListOption, listOption, numberOption, positiveIntOption, type CliIO } from "./io.js";
import { addFamilyOptions, familyIdentity, familySettings, finishFamilies, prepareFamilies } from "./family-options.js";

/** The model flags of `run`, `bench` and `score`. */
export interface ModelFlags {
  temperature?: number;
  maxTokens?: number;
  seed?: number;
  maxConnections?: number;
  /** false with --no-cache. */
  cache: boolean;
}

/** The flags of `run` and `bench`; the families' own flags (`--hints`, `--attempts`, …) travel alongside, read by each family. */
export interface RunFlags extends ModelFlags {
  dataset?: string[];
  repo?: string;
  repos?: string;
  agent: string;
  model?: string;
  command?: string;
  url?: string;
  judge?: string[];
  jobs: number;
  timeout: number;
  maxTurns: number;
  out?: string;
  ids?: string[];
  limit?: number;
  priceIn?: number;
  /** How much of each model request of an external agent the trajectory keeps (`--record-model-io`). */
  recordModelIo: RecordModelIo;
  /** The version of a CLI-agent preset (`--agent-version`). */
  agentVersion?: string;
  /** How a CLI-agent preset gets the scenario's tools (`--tools`). */
  tools?: ToolsMode;
  priceOut?: number;
  memory: boolean;
  history: HistoryDepth;
  json: boolean;
  isolation: IsolationMode;
  network: boolean;
  dockerImage: string;
  allowRead?: string[];
  passEnv?: string[];
  scenario?: string[];
  difficulty?: Difficulty[];
  language?: string[];
  sample?: number;
  dryRun: boolean;
  mcrTools: McrToolSet;
  repeats: number;
  retryErrors: boolean;
  allowErrors: boolean;
  failUnder?: number;
}

function slug(s: string): string {
  return s.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 60);
}

/** Wrong usage stops before any sample runs: --repo must be a repository, --repos a directory. */
export async function checkLocator(where: RepoLocator): Promise<void> {
  if ("repo" in where) {
    await Repo.open(where.repo);
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

/** The selection the flags ask for (--ids, --scenario, --difficulty, --language, --sample/--seed, --limit). */
export function selectionOf(flags: RunFlags): Selection {
  return {
    ids: flags.ids,
    scenarios: flags.scenario,
    difficulties: flags.difficulty,
    languages: flags.language,
    sample: flags.sample !== undefined ? { size: flags.sample, seed: flags.seed ?? 0 } : undefined,
    limit: flags.limit,
  };
}

/** What run.json records of the selection beyond ids and limit (part of the run's identity). */
export function selectionIdentity(flags: RunFlags): Pick<RunConfigInput, "scenarios" | "difficulties" | "languages" | "sample"> {
  const selection = selectionOf(flags);
  return {
    scenarios: selection.scenarios,
    difficulties: selection.difficulties ? DIFFICULTIES.filter((d) => selection.difficulties?.includes(d)) : undefined,
    languages: selection.languages ? [...new Set(selection.languages)].sort() : undefined,
    sample: selection.sample,
  };
}

/** What run.json records of the flags `run` and `bench` share: limits, identity and the selection. */
export function runFlagsConfig(flags: RunFlags): Partial<RunConfigInput> {
  return {
    ids: flags.ids,
    limit: flags.limit,
    judges: flags.judge,
    jobs: flags.jobs,
    timeoutSeconds: flags.timeout,
    maxTurns: flags.maxTurns,
    memory: flags.memory,
    history: flags.history,
    mcrTools: flags.mcrTools,
    repeats: flags.repeats,
    models: modelSettings(flags),
    ...selectionIdentity(flags),
  };
}

/** The agent's prices: --price-in and --price-out, else the configuration's prices of its model. */
export function agentPrices(flags: RunFlags, model: string | undefined, config: ResolvedConfig): Prices | undefined {
  if (flags.priceIn !== undefined && flags.priceOut !== undefined) return { input: flags.priceIn, output: flags.priceOut };
  return model !== undefined ? config.prices[model] : undefined;
}

/** Prints what a run would do (`--dry-run`): on stdout, as text or JSON. */
export async function printPlan(samples: readonly Sample[], opts: PlanOptions, runDir: string, json: boolean, io: CliIO): Promise<void> {
  const plan = await planRun(samples, opts);
  if (json) {
    io.stdout.write(`${JSON.stringify({ dry_run: true, run_directory: runDir, ...plan }, null, 2)}\n`);
    return;
  }
  const text = formatPlan(plan, { agent: opts.agent.name, maxTurns: opts.maxTurns, judges: opts.judges, runDir });
  io.stdout.write(`${escapeControls(text)}\n`);
}

/** What run.json records of the model an llm agent uses. */
export function modelInfo(name: string | undefined, flags: Partial<ModelFlags> = {}): ModelInfo | null {
  if (!name) return null;
  return {
    name,
    endpoint: process.env.OPENAI_BASE_URL || null,
    temperature: flags.temperature ?? null,
    ...(flags.maxTokens !== undefined ? { max_tokens: flags.maxTokens } : {}),
    ...(flags.seed !== undefined ? { seed: flags.seed } : {}),
  };
}

/**
 * How every model of one command is asked, the agent's and the judges' alike: the sampling parameters,
 * one connection limit shared by all, and the response cache (on unless --no-cache).
 */
export function modelOptions(flags: ModelFlags): ModelOptions {
  return {
    temperature: flags.temperature,
    maxTokens: flags.maxTokens,
    seed: flags.seed,
    ...(flags.cache ? { cache: ResponseCache.default() } : {}),
    ...(flags.maxConnections !== undefined ? { connections: new ConnectionLimit(flags.maxConnections) } : {}),
  };
}

/** What run.json records of how models were asked. */
export function modelSettings(flags: ModelFlags): ModelSettings {
  return {
    temperature: flags.temperature ?? null,
    max_tokens: flags.maxTokens ?? null,
    seed: flags.seed ?? null,
    max_connections: flags.maxConnections ?? null,
    cache: flags.cache,
  };
}

/** The options `--temperature`, `--max-tokens`, `--seed`, `--max-connections` and `--no-cache` of `run`, `bench` and `score`. */
export function addModelOptions(cmd: Command): Command {
  return cmd
    .option("--temperature <t>", "sampling temperature of every model request, the agent's and the judges' (default 0)", numberOption("--temperature", 0, 2))
    .option("--max-tokens <n>", "upper bound on the tokens of each model answer", positiveIntOption("--max-tokens"))
    .option("--seed <n>", "seed of --sample's random draw (default 0), also sent with every model request (endpoints that support it)", intOption("--seed"))
    .option("--max-connections <n>", "model requests in flight at once, the agent's and the judges' together (default: no limit)", positiveIntOption("--max-connections"))
    .option("--no-cache", "ask the endpoint every time: do not answer temperature-0 requests from the response cache");
}

/** The isolation the flags ask for, as this host gives it; says once on stderr when agent programs run without. */
export function isolationFrom(flags: RunFlags, io: CliIO): Isolation {
  const isolation = chooseIsolation({
    mode: flags.isolation,
    network: flags.network,
    dockerImage: flags.dockerImage,
    allowRead: flags.allowRead,
    passEnv: flags.passEnv,
  });
  const note = isolationNote(isolation);
  if (note) io.stderr.write(`${note}\n`);
  return isolation;
}

/** Opens (or resumes) a run directory with run.json built from what the command knows. */
export function openRun(dir: string, input: RunConfigInput): RunStore {
  return RunStore.open(dir, runConfig(input, (p) => path.resolve(p)));
}

/** Runs the benchmark for the CLI's flags and prints the report; returns the run directory and summary. */
export async function runFromFlags(
  files: string[],
  flags: RunFlags,
  io: CliIO,
  config: ResolvedConfig,
): Promise<{ dir: string; summary: RunSummary | null }> {
  if ((flags.repo ? 1 : 0) + (flags.repos ? 1 : 0) !== 1) {
    throw new GitGoodError("BAD_OPTION", "give exactly one of --repo PATH (one repository) or --repos DIR (clones at DIR/owner/repo)");
  }
  const where: RepoLocator = flags.repo ? { repo: flags.repo } : { repos: flags.repos as string };
  // A dry run reports a missing repository in its plan instead of stopping.
  if (!flags.dryRun) await checkLocator(where);
  const all = [...files, ...(flags.dataset ?? [])];
  const prepared = prepareFamilies(flags, await loadSelected(all, selectionOf(flags)), flags.agent, io);
  const samples = prepared.samples;
  const models = modelOptions(flags);
  const client = agentUsesModel(prepared.agent) && !agentProxied(prepared.agent) && flags.model !== undefined ? lookupModel(flags.model, models) : undefined;
  // The a2a agent's GitGoodBench tasks get their tools over MCP from a server on loopback, started with the run.
  let tools: ToolHostServer | null = null;
  const toolHost = { open: (socket: string) => (tools ? tools.host.open(socket) : Promise.reject(new GitGoodError("INTERNAL", "the MCP tool host is not started"))) };
  // External agents reach their model through the run's recording proxy, started with their first attempt.
  const proxy = new RunProxy({ upstreams: upstreamsFromEnv(), cache: models.cache, connections: models.connections, record: flags.recordModelIo });
  const agent = createAgent(prepared.agent, {
    ...prepared.agentOptions,
    model: flags.model,
    command: flags.command,
    client,
    url: flags.url,
    toolHost,
    proxy,
    agentVersion: flags.agentVersion,
    tools: flags.tools,
  });
  const dir =
    flags.out ?? path.join("runs", `${slug(path.basename(all[0] ?? "samples").replace(/\.[^.]+$/, ""))}-${slug(agent.name)}`);
  if (flags.dryRun) {
    const plan = {
      agent,
      agentModel: flags.agent === "llm" ? (flags.model ?? null) : null,
      scenarios: flags.scenario,
      memory: flags.memory,
      repeats: flags.repeats,
      maxTurns: flags.maxTurns,
      judges: flags.judge ?? [],
      where,
    };
    await printPlan(samples, plan, dir, flags.json, io);
    return { dir, summary: null };
  }
  const judges = (flags.judge ?? []).map((m) => lookupModel(m, models));
  const isolation = isolationFrom(flags, io);
  const unlock = lockRunDir(dir);
  try {
    if (flags.agent === "a2a") tools = await listenToolHost("127.0.0.1", 0);
    return await runLocked(dir, { all, samples, where, agent, client, judges, isolation, config }, flags, io);
  } finally {
    await tools?.close();
    await proxy.close();
    unlock();
  }
}

/** The run itself, while this process holds the run directory's lock. */
async function runLocked(
  dir: string,
  run: {
    all: string[];
    samples: Sample[];
    where: RepoLocator;
    agent: Agent;
    client: ModelClient | undefined;
    judges: ModelClient[];
    isolation: Isolation;
    config: ResolvedConfig;
  },
  flags: RunFlags,
  io: CliIO,
): Promise<{ dir: string; summary: RunSummary }> {
  const { all, samples, where, agent, client, judges, isolation, config } = run;
  const store = openRun(dir, {
    ...runFlagsConfig(flags),
    samples: all,
    agent: agent.name,
    model: agentUsesModel(flags.agent) ? modelInfo(flags.model, flags) : null,
    where,
    isolation,
    config,
    families: familyIdentity(flags),
  });
  io.stderr.write(`run directory: ${dir}\n`);
  const summary = await runBenchmark({
    samples,
    where,
    agent,
    store,
    jobs: flags.jobs,
    timeoutSeconds: flags.timeout,
    maxTurns: flags.maxTurns,
    judges,
    prices: agentPrices(flags, agentUsesModel(flags.agent) ? flags.model : undefined, config),
    modelPrices: config.prices,
    agentModel: client?.model,
    scenarios: flags.scenario,
    repeats: flags.repeats,
    memory: flags.memory,
    history: flags.history,
    settings: { mcrTools: flags.mcrTools, ...familySettings(flags, "run", { isolation, model: flags.model, envs: config.envs ?? null }) },
    isolation,
    models: client ? [client] : [],
    retryErrors: flags.retryErrors,
    onResult: progressPrinter(io.stderr),
  });
  finishFamilies(flags, summary.records, io);
  if (summary.unsupported > 0) {
    io.stderr.write(`${summary.unsupported} scenario(s) skipped: agent ${agent.name} does not work them\n`);
  }
  const report = buildReport(summary.records);
  report.isolation = { mode: isolation.mode, isolated: isolates(isolation) };
  io.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : `${escapeControls(formatReport(report))}\n`);
  checkOutcome(summary.records, flags);
  return { dir, summary };
}

/** The `--history` option of every verb that sets up sandboxes. */
export const HISTORY_FLAGS = "--history <n|full>";
export const HISTORY_HELP = `first-parent commits of history each sandbox gets below the scenario's start, or 'full' (default ${DEFAULT_HISTORY})`;
export const historyOption = (value: string): HistoryDepth => parseHistory(value);

/** Parses --difficulty: a comma-separated list of easy, medium, hard. */
function difficultyOption(value: string): Difficulty[] {
  const list = keywordListOption(value);
  const wrong = list.filter((d) => !(DIFFICULTIES as readonly string[]).includes(d));
  if (wrong.length > 0 || list.length === 0) {
    throw new GitGoodError("BAD_OPTION", `--difficulty takes ${DIFFICULTIES.join(", ")} (comma-separated), not '${value}'`);
  }
  return list as Difficulty[];
}

/** `--mcr-tools`, for every verb that sets up MCR scenarios: the published tools, or those plus `write_file_at`. */
export function mcrToolsOption(): Option {
  return new Option("--mcr-tools <set>", "MCR tools: paper (the published ones, replacing conflict regions only) or extended (also write_file_at, for edits outside the regions)")
    .choices(MCR_TOOL_SETS)
    .default("paper");
}

/** The options shared by `gitgood run` and `gitgood bench`. */
export function addRunOptions(cmd: Command): Command {
  cmd
    .option("--agent <name>", `agent: ${agentNames().join(", ")}`, "baseline")
    .option("--model <name>", "model for the llm agent (OPENAI_BASE_URL and OPENAI_API_KEY select the endpoint)")
    .option("--command <cmd>", "program for the command and mcp-command agents (gets the context on stdin; acts through 'gitgood tool' or the MCP server in $GITGOOD_MCP_CONFIG)")
    .option("--agent-version <version>", "the npm version of a CLI-agent preset (claude-code, opencode) to install and run instead of its pinned one")
    .addOption(new Option("--tools <mode>", "how a CLI-agent preset gets a scenario's tools: over MCP, through its own shell (gitgood tool), or both (default both)").choices(TOOLS_MODES))
    .option("--url <url>", "the a2a agent's A2A base URL (its card at /.well-known/agent-card.json)")
    .option("--judge <models>", "judge models for IR/ICC, comma-separated (pairwise, positions swapped)", listOption)
    .option("-j, --jobs <n>", "samples at once", positiveIntOption("--jobs"), 2)
    .option("--timeout <seconds>", "time limit per sample and scenario", positiveIntOption("--timeout"), 900)
    .option("--max-turns <n>", "turn budget per sample and scenario", positiveIntOption("--max-turns"), 40)
    .addOption(
      new Option("--record-model-io <mode>", "what the trajectory keeps of each model request an external agent makes through gitgood's model proxy: digest (message count and hash) or full (the messages)")
        .choices(RECORD_MODEL_IO)
        .default("digest"),
    )
    .option("--price-in <usd>", "price per million prompt tokens (to record cost)", numberOption("--price-in", 0, 1e6))
    .option("--price-out <usd>", "price per million completion tokens", numberOption("--price-out", 0, 1e6))
    .option("--repeats <k>", "run every sample × scenario K times (for the mean solve rate and pass@k)", positiveIntOption("--repeats"), 1)
    .option("--memory", "run every scenario twice, without and with the agent memory tools (memory_*), to compare", false)
    .option(HISTORY_FLAGS, HISTORY_HELP, historyOption, DEFAULT_HISTORY)
    .addOption(mcrToolsOption())
    .addOption(
      new Option("--isolation <mode>", `how agent programs are isolated, refused where it cannot run: ${isolationHelp()}`)
        .choices(ISOLATION_MODES)
        .default(DEFAULT_ISOLATION),
    )
    .option("--network", "let isolated agent programs use the network", false)
    .option("--docker-image <image>", "the image of --isolation docker", DEFAULT_DOCKER_IMAGE)
    .option("--allow-read <path>", "a path isolated agent programs may read, e.g. their own installation (repeatable)", (v: string, prev: string[] = []) => [...prev, v])
    .option("--pass-env <name>", "a host environment variable agent programs get (repeatable; by default they get only PATH, HOME, LANG, TERM and gitgood's own)", (v: string, prev: string[] = []) => [...prev, v])
    .option("--ids <list>", "only these sample ids, comma-separated", (v: string) => v.split(",").map((x) => x.trim()).filter(Boolean))
    .option("--scenario <list>", `only these scenarios, comma-separated (${scenarioChoices().join(", ")}; any case)`, (v: string) => scenarioSet(listOption(v)))
    .option("--difficulty <list>", `only these difficulties, comma-separated (${DIFFICULTIES.join(", ")})`, difficultyOption)
    .option("--language <list>", "only samples whose programming_language is one of these, comma-separated (any case)", keywordListOption)
    .option("--sample <n>", "a random sample of N samples, stratified by scenario and difficulty", positiveIntOption("--sample"))
    .option("--limit <n>", "only the first N samples (after the filters and --sample)", intOption("--limit"))
    .option("--dry-run", "print the plan (attempts, repositories, model calls to expect) and exit without running or writing anything", false)
    .option("--json", "print the report as JSON", false)
    .option("--retry-errors", "run again the attempts recorded with a system error (their records are replaced)", false)
    .option("--allow-errors", "exit 0 even when attempts ended in a system error (default: exit 1)", false)
    .option("--fail-under <rate>", "exit 3 when the solve rate, in percent of all attempts, is below RATE", numberOption("--fail-under", 0, 100));
  return addModelOptions(cmd);
}

export function runCommand(io: CliIO): Command {
  const cmd = new Command("run")
    .description("run an agent on samples, each in its own sandbox; score, record and report (re-run to resume)")
    .argument("[samples...]", "samples files: gitgood JSONL, or published Parquet/CSV/JSONL")
    .option("--dataset <file>", "a samples file (same as the positional argument; repeatable)", (v: string, prev: string[] = []) => [...prev, v])
    .option("--repo <path>", "the repository every sample comes from")
    .option("--repos <dir>", "directory of clones at DIR/owner/repo (as 'gitgood dataset repos' makes them)")
    .option("--out <dir>", "run directory (default: runs/<samples>-<agent>)");
  return withConfig(addFamilyOptions(addRunOptions(cmd), "run"), "run", io).action(async (files: string[], flags: RunFlags, command: Command) => {
    await runFromFlags(files, flags, io, resolvedConfig(command));
  });
}
