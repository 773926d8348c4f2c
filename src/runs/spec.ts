import path from "node:path";
import { z } from "zod";
import { DIFFICULTIES, type Difficulty } from "../dataset/sample.js";
import { GitGoodError } from "../errors.js";
import type { Prices } from "../model/prices.js";
import { DEFAULT_HISTORY, parseHistory, type HistoryDepth } from "../git/store.js";
import { DEFAULT_DOCKER_IMAGE, DEFAULT_ISOLATION, DEFAULT_LIMITS, formatSize, isolationBackend, isolationHelp, sizeOption, type IsolationRequest } from "../sandbox/isolation.js";
import { RECORD_MODEL_IO as MODEL_IO_RECORDS, type RecordModelIo } from "../proxy/index.js";
import { TOOLS_MODES, type ToolsMode } from "../agents/presets/agent.js";
import { MCR_TOOL_SETS, type McrToolSet } from "../scenarios/mcr/state.js";
import { scenarioNames, scenarioSet } from "../scenarios/registry.js";
import { intOption, keywordListOption, listOption, numberOption, positiveIntOption } from "../util/options.js";
import { parseShard, type Shard } from "./shard.js";
import { defineRunSetting, specValue, type RunSetting, type RunSpec } from "./spec-registry.js";

export * from "./spec-registry.js";

/*
 * A run's spec: the registry of run settings (spec-registry.ts) with gitgood's own settings declared in
 * it. Import the registry from here, so that the built-in settings are always declared before anything
 * reads them. One declaration reaches the CLI, the configuration file, run.json's spec, queue tickets and
 * the A2A request schema. The limits (of the jail, of spend), the attempts' choices (timeout, turn
 * budget, repeats, the memory variant, the shard, what trajectories keep of model requests), what each
 * sandbox gets (history, the MCR tools) and the selection of samples and scenarios, the judges, how models
 * are asked, the agent's prices, the isolation asked for and the agent's own settings (its command, A2A URL,
 * preset version and tools) are declared this way. The agent and its model name the run: they travel beside
 * the spec (RunFlags → RunConfigInput's `agent` and `model` → run.json's identity, the ticket's `agent`).
 */

const MiB = 1024 * 1024;

/** Processes and threads at once in one agent program's jail. */
const MAX_PROCESSES = defineRunSetting<number>({
  key: "max_processes",
  option: "max-processes",
  value: "<n>",
  help: "processes at once in one agent program's jail (a pids cgroup)",
  schema: z.number().int().min(1),
  parse: (text, option) => positiveIntOption(option)(text),
  default: DEFAULT_LIMITS.processes,
  identity: false,
  request: "at-most",
  kind: "limit",
  group: "limits",
});

/** Bytes of memory of one agent program's jail. */
const MAX_MEMORY = defineRunSetting<number>({
  key: "max_memory",
  option: "max-memory",
  value: "<size>",
  help: "memory of one agent program's jail, e.g. 4G (a memory cgroup, and RLIMIT_DATA per process)",
  schema: z.number().int().min(MiB),
  parse: (text, option) => sizeOption(option)(text),
  default: DEFAULT_LIMITS.memory,
  defaultLabel: formatSize(DEFAULT_LIMITS.memory),
  identity: false,
  request: "at-most",
  kind: "limit",
  group: "limits",
});

/** Bytes an attempt's work tree may grow by, and the size of the jail's /tmp and home. */
const MAX_DISK = defineRunSetting<number>({
  key: "max_disk",
  option: "max-disk",
  value: "<size>",
  help: "how much an attempt's work tree may grow, and the size of the jail's /tmp and home, e.g. 2G",
  schema: z.number().int().min(MiB),
  parse: (text, option) => sizeOption(option)(text),
  default: DEFAULT_LIMITS.disk,
  defaultLabel: formatSize(DEFAULT_LIMITS.disk),
  identity: false,
  request: "at-most",
  kind: "limit",
  group: "limits",
});

/** Run even where a limit is enforced only per process or not at all. */
const ACCEPT_WEAK_LIMITS = defineRunSetting<boolean>({
  key: "accept_weak_limits",
  option: "accept-weak-limits",
  help: "run even where this host enforces a limit only per process or not at all (else refused)",
  schema: z.boolean(),
  default: false,
  identity: false,
  request: "operator",
  kind: "limit",
  group: "limits",
});

/** US dollars of measured spend (agent + judges) after which a run starts no new attempt. */
export const BUDGET_USD = defineRunSetting<number | null>({
  key: "budget_usd",
  option: "budget-usd",
  value: "<usd>",
  help: "start no new attempt once the run's measured spend (agent + judges, at their prices) reaches this many US dollars",
  schema: z.number().positive().nullable(),
  parse: (text, option) => {
    const usd = Number(text);
    if (!Number.isFinite(usd) || usd <= 0) throw new GitGoodError("BAD_OPTION", `${option} takes a positive number of US dollars, not '${text}'`);
    return usd;
  },
  default: null,
  defaultLabel: "none",
  identity: false,
  request: "at-most",
  kind: "limit",
  group: "spend",
});

/** Seconds an attempt (one sample × scenario) may take; also its CPU time per process, and its scoring's limit. */
export const TIMEOUT = defineRunSetting<number>({
  key: "timeout_s",
  option: "timeout",
  value: "<seconds>",
  help: "time limit per sample and scenario",
  schema: z.number().positive(),
  parse: (text, option) => positiveIntOption(option)(text),
  default: 900,
  identity: false,
  request: "operator",
  kind: "choice",
  group: "attempts",
});

/** Turns an agent may take per sample × scenario: what it is given, so a resume with another budget is refused. */
export const MAX_TURNS = defineRunSetting<number>({
  key: "max_turns",
  option: "max-turns",
  value: "<n>",
  help: "turn budget per sample and scenario",
  schema: z.number().int().min(1),
  parse: (text, option) => positiveIntOption(option)(text),
  default: 40,
  identity: true,
  request: "operator",
  kind: "choice",
  group: "attempts",
});

/** Runs of every sample × scenario. */
export const REPEATS = defineRunSetting<number>({
  key: "repeats",
  option: "repeats",
  value: "<k>",
  help: "run every sample × scenario K times (for the mean solve rate and pass@k)",
  schema: z.number().int().min(1),
  parse: (text, option) => positiveIntOption(option)(text),
  default: 1,
  identity: true,
  request: "operator",
  kind: "choice",
  group: "attempts",
});

/** Every scenario run twice, without and with the agent memory tools. */
export const MEMORY = defineRunSetting<boolean>({
  key: "memory",
  option: "memory",
  help: "run every scenario twice, without and with the agent memory tools (memory_*), to compare",
  schema: z.boolean(),
  default: false,
  identity: true,
  request: "operator",
  kind: "choice",
  group: "attempts",
});

/**
 * The part of the planned jobs a session runs (`--shard K/N`; null: all of them). Not part of the run's
 * identity: the shards of one run are one run, and `gitgood merge` joins them (its run.json: null).
 */
export const SHARD = defineRunSetting<Shard | null>({
  key: "shard",
  option: "shard",
  value: "<K/N>",
  help: "run only part K of N of the planned jobs (balanced by scenario and repository) to spread a run over machines; join the parts with 'gitgood merge'",
  schema: z
    .object({ index: z.number().int().min(1), count: z.number().int().min(1) })
    .refine((s) => s.index <= s.count, "a shard's index is at most its count")
    .nullable(),
  parse: (text) => parseShard(text),
  default: null,
  identity: false,
  request: "operator",
  kind: "choice",
  group: "attempts",
});

/**
 * What the trajectory keeps of each model request an external agent (or a CLI-agent preset) makes through
 * gitgood's recording model proxy: `digest`, the message count and a hash, or `full`, the messages. What is
 * recorded, not what is evaluated: not part of the run's identity.
 */
export const RECORD_MODEL_IO = defineRunSetting<RecordModelIo>({
  key: "record_model_io",
  option: "record-model-io",
  value: "<mode>",
  help: "what the trajectory keeps of each model request an external agent makes through gitgood's model proxy: digest (message count and hash) or full (the messages)",
  schema: z.enum(MODEL_IO_RECORDS),
  parse: (text, option) => {
    const mode = MODEL_IO_RECORDS.find((m) => m === text);
    if (mode === undefined) throw new GitGoodError("BAD_OPTION", `${option} takes ${MODEL_IO_RECORDS.join(" or ")}, not '${text}'`);
    return mode;
  },
  choices: MODEL_IO_RECORDS,
  default: "digest",
  identity: false,
  request: "operator",
  kind: "choice",
  group: "attempts",
});

/** First-parent commits of history each sandbox gets below the scenario's start: what the agent sees. */
export const HISTORY = defineRunSetting<HistoryDepth>({
  key: "history",
  option: "history",
  value: "<n|full>",
  help: "first-parent commits of history each sandbox gets below the scenario's start, or 'full'",
  schema: z.union([z.number().int().min(1), z.literal("full")]),
  parse: (text) => parseHistory(text),
  default: DEFAULT_HISTORY,
  identity: true,
  request: "operator",
  kind: "choice",
  group: "sandbox",
});

/** The MCR tools an agent gets: the published ones, or those and `write_file_at`. */
export const MCR_TOOLS = defineRunSetting<McrToolSet>({
  key: "mcr_tools",
  option: "mcr-tools",
  value: "<set>",
  help: "MCR tools: paper (the published ones, replacing conflict regions only) or extended (also write_file_at, for edits outside the regions)",
  schema: z.enum(MCR_TOOL_SETS),
  parse: (text, option) => {
    const set = MCR_TOOL_SETS.find((s) => s === text);
    if (set === undefined) throw new GitGoodError("BAD_OPTION", `${option} takes ${MCR_TOOL_SETS.join(" or ")}, not '${text}'`);
    return set;
  },
  default: "paper",
  identity: true,
  request: "operator",
  kind: "choice",
  group: "sandbox",
});

/** Only these sample ids (null: every sample). */
export const IDS = defineRunSetting<string[] | null>({
  key: "ids",
  option: "ids",
  value: "<list>",
  help: "only these sample ids, comma-separated",
  schema: z.array(z.string()).nullable(),
  parse: (text) => nonEmpty(listOption(text)),
  default: null,
  identity: true,
  request: "operator",
  kind: "choice",
  group: "selection",
});

/** Only the samples that give one of these scenarios, by their registry names in report order (null: every scenario). */
export const SCENARIOS = defineRunSetting<string[] | null>({
  key: "scenarios",
  option: "scenario",
  value: "<list>",
  // Read when the help is shown: the families register their scenarios after this module is loaded.
  get help() {
    return `only these scenarios, comma-separated (${scenarioNames().map((n) => n.toLowerCase()).join(", ")}; any case)`;
  },
  schema: z.array(z.string()).nullable(),
  parse: (text) => nonEmpty(scenarioSet(listOption(text))),
  default: null,
  identity: true,
  request: "operator",
  kind: "choice",
  group: "selection",
});

/** Only samples of these difficulties, in the order of DIFFICULTIES (null: every difficulty). */
export const DIFFICULTY = defineRunSetting<Difficulty[] | null>({
  key: "difficulties",
  option: "difficulty",
  value: "<list>",
  help: `only these difficulties, comma-separated (${DIFFICULTIES.join(", ")})`,
  schema: z.array(z.enum(DIFFICULTIES)).nullable(),
  parse: (text, option) => {
    const list = keywordListOption(text);
    const wrong = list.filter((d) => !(DIFFICULTIES as readonly string[]).includes(d));
    if (wrong.length > 0 || list.length === 0) throw new GitGoodError("BAD_OPTION", `${option} takes ${DIFFICULTIES.join(", ")} (comma-separated), not '${text}'`);
    return DIFFICULTIES.filter((d) => list.includes(d));
  },
  default: null,
  identity: true,
  request: "operator",
  kind: "choice",
  group: "selection",
});

/** Only samples whose programming language is one of these, lower-cased and sorted (null: every language). */
export const LANGUAGES = defineRunSetting<string[] | null>({
  key: "languages",
  option: "language",
  value: "<list>",
  help: "only samples whose programming_language is one of these, comma-separated (any case)",
  schema: z.array(z.string()).nullable(),
  parse: (text) => nonEmpty([...new Set(keywordListOption(text))].sort()),
  default: null,
  identity: true,
  request: "operator",
  kind: "choice",
  group: "selection",
});

/** A stratified random draw of `size` samples, the same for the same `seed` (`--seed`, default 0; null: no draw). */
export const SAMPLE = defineRunSetting<{ size: number; seed: number } | null>({
  key: "sample",
  option: "sample",
  value: "<n>",
  help: "a random sample of N samples, stratified by scenario and difficulty (drawn with --seed)",
  schema: z.object({ size: z.number().int().min(1), seed: z.number().int() }).strict().nullable(),
  parse: (text, option) => ({ size: positiveIntOption(option)(text), seed: 0 }),
  complete: (value, options) => (value === null ? null : { size: value.size, seed: typeof options.seed === "number" ? options.seed : value.seed }),
  default: null,
  identity: true,
  request: "operator",
  kind: "choice",
  group: "selection",
});

/** Only the first N samples, after the filters and the draw (null: all of them). */
export const LIMIT = defineRunSetting<number | null>({
  key: "limit",
  option: "limit",
  value: "<n>",
  help: "only the first N samples, in file order (run, bench: after the filters and --sample)",
  schema: z.number().int().min(0).nullable(),
  parse: (text, option) => intOption(option)(text),
  default: null,
  identity: true,
  request: "operator",
  kind: "choice",
  group: "selection",
});

/**
 * The judge models of IR and ICC (`--judge m1,m2`; none: the deterministic checks only). Not part of the
 * run's identity: judging is how attempts are scored, not what is evaluated, and `gitgood score` re-scores a
 * finished run with other judges (its run.json then names those).
 */
export const JUDGES = defineRunSetting<string[]>({
  key: "judges",
  option: "judge",
  value: "<models>",
  help: "judge models for IR/ICC, comma-separated (pairwise, positions swapped)",
  schema: z.array(z.string().min(1)),
  parse: (text) => listOption(text),
  default: [],
  defaultLabel: "none",
  identity: false,
  request: "operator",
  kind: "choice",
  group: "scoring",
});

/** The sampling temperature of every model request, the agent's and the judges' (null: not sent, the client's default). */
export const TEMPERATURE = defineRunSetting<number | null>({
  key: "temperature",
  option: "temperature",
  value: "<t>",
  help: "sampling temperature of every model request, the agent's and the judges' (default 0)",
  schema: z.number().min(0).max(2).nullable(),
  parse: (text, option) => numberOption(option, 0, 2)(text),
  default: null,
  identity: true,
  request: "operator",
  kind: "choice",
  group: "models",
});

/** The most tokens of each model answer (null: the endpoint's own bound). */
export const MAX_TOKENS = defineRunSetting<number | null>({
  key: "max_tokens",
  option: "max-tokens",
  value: "<n>",
  help: "upper bound on the tokens of each model answer",
  schema: z.number().int().min(1).nullable(),
  parse: (text, option) => positiveIntOption(option)(text),
  default: null,
  identity: true,
  request: "operator",
  kind: "choice",
  group: "models",
});

/**
 * The seed sent with every model request (null: none sent). `--seed` is also the seed of `--sample`'s draw
 * (SAMPLE's `complete`), which records it in its own value.
 */
export const SEED = defineRunSetting<number | null>({
  key: "seed",
  option: "seed",
  value: "<n>",
  help: "seed of --sample's random draw (default 0), also sent with every model request (endpoints that support it)",
  schema: z.number().int().nullable(),
  parse: (text, option) => intOption(option)(text),
  default: null,
  identity: true,
  request: "operator",
  kind: "choice",
  group: "models",
});

/** Model requests in flight at once, over the agent's and the judges' (null: no limit); how they are asked, not what. */
export const MAX_CONNECTIONS = defineRunSetting<number | null>({
  key: "max_connections",
  option: "max-connections",
  value: "<n>",
  help: "model requests in flight at once, the agent's and the judges' together (default: no limit)",
  schema: z.number().int().min(1).nullable(),
  parse: (text, option) => positiveIntOption(option)(text),
  default: null,
  identity: false,
  request: "operator",
  kind: "choice",
  group: "models",
});

/** Whether temperature-0 requests are answered from the response cache (`--no-cache`: asked every time). */
export const CACHE = defineRunSetting<boolean>({
  key: "cache",
  option: "cache",
  help: "ask the endpoint every time: do not answer temperature-0 requests from the response cache",
  schema: z.boolean(),
  default: true,
  identity: false,
  request: "operator",
  kind: "choice",
  group: "models",
});

/** The settings of how every model of a command is asked: `run`, `bench`, `score`, `mcp` and `serve` take their options. */
export const MODEL_SETTINGS: readonly RunSetting[] = [TEMPERATURE, MAX_TOKENS, SEED, MAX_CONNECTIONS, CACHE];

/** US dollars per million prompt tokens of the agent's model (`--price-in`; with `price_out`, over the configuration's `prices:`). */
export const PRICE_IN = defineRunSetting<number | null>({
  key: "price_in",
  option: "price-in",
  value: "<usd>",
  help: "price per million prompt tokens (to record cost)",
  schema: z.number().min(0).max(1e6).nullable(),
  parse: (text, option) => numberOption(option, 0, 1e6)(text),
  default: null,
  identity: false,
  request: "operator",
  kind: "choice",
  group: "spend",
});

/** US dollars per million completion tokens of the agent's model (`--price-out`). */
export const PRICE_OUT = defineRunSetting<number | null>({
  key: "price_out",
  option: "price-out",
  value: "<usd>",
  help: "price per million completion tokens",
  schema: z.number().min(0).max(1e6).nullable(),
  parse: (text, option) => numberOption(option, 0, 1e6)(text),
  default: null,
  identity: false,
  request: "operator",
  kind: "choice",
  group: "spend",
});

/**
 * The prices of a run's agent: the spec's `price_in` and `price_out` when both are given, else the prices of
 * `model` (the model the agent asks; none for an agent that asks none) among `modelPrices` (the configuration's).
 */
export function agentPrices(spec: RunSpec | undefined, model: string | null | undefined, modelPrices: Readonly<Record<string, Prices>>): Prices | undefined {
  const input = specValue(spec, PRICE_IN);
  const output = specValue(spec, PRICE_OUT);
  if (input !== null && output !== null) return { input, output };
  return model ? modelPrices[model] : undefined;
}

/**
 * How agent programs are isolated: a registered backend's name (`gitgood worker --isolation` is the most a
 * queue's worker gives a ticket: queue/policy.ts). The isolation the host gave is run.json's `isolation` record.
 */
export const ISOLATION = defineRunSetting<string>({
  key: "isolation",
  option: "isolation",
  value: "<mode>",
  // Read when the help is shown: a plug-in registers its backends after this module is loaded.
  get help() {
    return `how agent programs are isolated, refused where it cannot run: ${isolationHelp()}`;
  },
  schema: z.string().min(1),
  parse: (text) => isolationBackend(text).name,
  default: DEFAULT_ISOLATION,
  identity: false,
  request: "operator",
  kind: "choice",
  group: "isolation",
});

/** Whether isolated agent programs may reach the network. */
export const NETWORK = defineRunSetting<boolean>({
  key: "network",
  option: "network",
  help: "let isolated agent programs use the network",
  schema: z.boolean(),
  default: false,
  identity: false,
  request: "operator",
  kind: "choice",
  group: "isolation",
});

/** The image agent programs run in under `--isolation docker`. */
export const DOCKER_IMAGE = defineRunSetting<string>({
  key: "docker_image",
  option: "docker-image",
  value: "<image>",
  help: "the image of --isolation docker",
  schema: z.string().min(1),
  parse: (text) => text,
  default: DEFAULT_DOCKER_IMAGE,
  identity: false,
  request: "operator",
  kind: "choice",
  group: "isolation",
});

/** Paths isolated agent programs may read besides their sandbox, made absolute where the option is read. */
export const ALLOW_READ = defineRunSetting<string[]>({
  key: "allow_read",
  option: "allow-read",
  value: "<path>",
  help: "a path isolated agent programs may read, e.g. their own installation (repeatable)",
  schema: z.array(z.string().min(1)),
  parse: (text) => [path.resolve(text)],
  repeatable: true,
  default: [],
  defaultLabel: "none",
  identity: false,
  request: "operator",
  kind: "choice",
  group: "isolation",
});

/** Host environment variables agent programs get besides the allow-list. */
export const PASS_ENV = defineRunSetting<string[]>({
  key: "pass_env",
  option: "pass-env",
  value: "<name>",
  help: "a host environment variable agent programs get (repeatable; by default they get only PATH, HOME, LANG, TERM and gitgood's own)",
  schema: z.array(z.string().min(1)),
  parse: (text) => [text],
  repeatable: true,
  default: [],
  defaultLabel: "none",
  identity: false,
  request: "operator",
  kind: "choice",
  group: "isolation",
});

/**
 * The program the command and mcp-command agents run. What is evaluated: part of the identity (whose agent
 * name, `command:…`, holds only its first 60 characters).
 */
export const COMMAND = defineRunSetting<string | null>({
  key: "command",
  option: "command",
  value: "<cmd>",
  help: "program for the command and mcp-command agents (gets the context on stdin; acts through 'gitgood tool' or the MCP server in $GITGOOD_MCP_CONFIG)",
  schema: z.string().nullable(),
  parse: (text) => text,
  default: null,
  identity: true,
  request: "operator",
  kind: "choice",
  group: "agent",
});

/**
 * The npm version of a CLI-agent preset to run instead of its pinned one (null: the pinned one). Not in the
 * identity's spec: the identity's agent name is the version the preset runs (`claude-code@2.0.14`), pinned or
 * asked for, so a resume with another version is refused by that name, and one that asks for the pinned
 * version is the same run as one that does not.
 */
export const AGENT_VERSION = defineRunSetting<string | null>({
  key: "agent_version",
  option: "agent-version",
  value: "<version>",
  help: "the npm version of a CLI-agent preset (claude-code, opencode) to install and run instead of its pinned one",
  schema: z.string().nullable(),
  parse: (text) => text,
  default: null,
  identity: false,
  request: "operator",
  kind: "choice",
  group: "agent",
});

/** How a CLI-agent preset gets the scenario's tools: over MCP, through its shell, or both. What the agent is given: part of the identity. */
export const TOOLS = defineRunSetting<ToolsMode>({
  key: "tools",
  option: "tools",
  value: "<mode>",
  help: "how a CLI-agent preset gets a scenario's tools: over MCP, through its own shell (gitgood tool), or both",
  schema: z.enum(TOOLS_MODES),
  parse: (text, option) => {
    const mode = TOOLS_MODES.find((m) => m === text);
    if (mode === undefined) throw new GitGoodError("BAD_OPTION", `${option} takes ${TOOLS_MODES.join(", ")}, not '${text}'`);
    return mode;
  },
  choices: TOOLS_MODES,
  default: "both",
  identity: true,
  request: "operator",
  kind: "choice",
  group: "agent",
});

/**
 * The a2a agent's A2A base URL. Not in the identity's spec: the identity's agent name (`a2a:URL`) holds it
 * whole, so a resume with another URL is refused by that name.
 */
export const A2A_URL = defineRunSetting<string | null>({
  key: "url",
  option: "url",
  value: "<url>",
  help: "the a2a agent's A2A base URL (its card at /.well-known/agent-card.json)",
  schema: z.string().nullable(),
  parse: (text) => text,
  default: null,
  identity: false,
  request: "operator",
  kind: "choice",
  group: "agent",
});

/** What `createAgent` takes of a spec: the agent's command, A2A URL, preset version and tools. */
export function agentSettings(spec: RunSpec | undefined): { command?: string; url?: string; agentVersion?: string; tools: ToolsMode } {
  const command = specValue(spec, COMMAND);
  const url = specValue(spec, A2A_URL);
  const version = specValue(spec, AGENT_VERSION);
  return {
    ...(command !== null ? { command } : {}),
    ...(url !== null ? { url } : {}),
    ...(version !== null ? { agentVersion: version } : {}),
    tools: specValue(spec, TOOLS),
  };
}

/** A list, or null (no filter) when it is empty. */
function nonEmpty<T>(list: T[]): T[] | null {
  return list.length > 0 ? list : null;
}

/** What the spec's limits ask of the isolation: the jail's limits (CPU time per process: `cpuSeconds`) and whether weak ones are accepted. */
export function isolationLimits(spec: RunSpec, cpuSeconds: number | null): Pick<IsolationRequest, "limits" | "acceptWeakLimits"> {
  return {
    limits: { processes: specValue(spec, MAX_PROCESSES), memory: specValue(spec, MAX_MEMORY), disk: specValue(spec, MAX_DISK), cpu: cpuSeconds },
    acceptWeakLimits: specValue(spec, ACCEPT_WEAK_LIMITS),
  };
}

/**
 * The isolation the spec asks for (`isolation`, `network`, `docker_image`, `allow_read`, `pass_env` and the
 * jail's limits; CPU time per process: `cpuSeconds`), for `chooseIsolation` to give as this host can.
 */
export function isolationRequest(spec: RunSpec | undefined, cpuSeconds: number | null): IsolationRequest {
  return {
    mode: specValue(spec, ISOLATION),
    network: specValue(spec, NETWORK),
    dockerImage: specValue(spec, DOCKER_IMAGE),
    allowRead: specValue(spec, ALLOW_READ),
    passEnv: specValue(spec, PASS_ENV),
    ...isolationLimits(spec ?? {}, cpuSeconds),
  };
}

/** The scenario settings of an attempt: the families' (`settings`) and the spec's (MCR's `mcrTools`). */
export function scenarioSettings(spec: RunSpec | undefined, settings: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return { ...settings, mcrTools: specValue(spec, MCR_TOOLS) };
}
