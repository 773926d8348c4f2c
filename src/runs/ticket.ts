import { z } from "zod";
import { agentProxied, agentUsesModel, createAgent, type Agent } from "../agents/index.js";
import type { RunProxy } from "../proxy/index.js";
import type { ToolHost } from "../agents/a2a.js";
import { ResponseCache } from "../model/cache.js";
import { ConnectionLimit } from "../model/connections.js";
import { lookupModel, type ModelOptions } from "../model/lookup.js";
import type { ModelClient } from "../model/types.js";
import type { RepoLocator } from "../dataset/clones.js";
import { SampleSchema } from "../dataset/sample.js";
import { GitGoodError } from "../errors.js";
import type { PackCache } from "../git/packs.js";
import type { RepoPool } from "../git/repo-pool.js";
import { scenarioNamed, scenariosFor } from "../scenarios/registry.js";
import { chooseIsolation, type Isolation } from "../sandbox/isolation.js";
import { RunConfigParts, type RunConfig } from "./config.js";
import { attemptJob, withRunPacks, type JobContext } from "./executor.js";
import type { Job } from "./plan.js";
import type { Prices } from "../model/prices.js";
import { keyOf, type Scoring, type Settled } from "./settle.js";
import { CACHE, agentPrices, agentSettings, JUDGES, MAX_CONNECTIONS, MAX_TOKENS, MAX_TURNS, SEED, TEMPERATURE, TIMEOUT, isolationRequest, parseRunSpec, scenarioSettings, specValue, type RunSpec } from "./spec.js";

/**
 * How to make a run's agent in any process, with the run's spec (`agentFromSpec`): the agent's name, its
 * model and a family's agent options (a predictions file's patches, `--attempts`), JSON in `options`; never a
 * live client or tool host.
 */
const AgentSpecSchema = z.object({
  /** The agent kind as `--agent` names it (`llm`, `oracle`, a baseline, a family's agent). */
  name: z.string(),
  /** `--model`, for an agent that talks to a model. */
  model: z.string().nullable(),
  /** A family's agent options (a predictions file's patches, `--attempts`); the agent's own settings (`--command`, `--url`, `--agent-version`, `--tools`) are the spec's. */
  options: z.record(z.string(), z.unknown()),
});
export type AgentSpec = z.infer<typeof AgentSpecSchema>;

const PricesSchema = z.object({ input: z.number(), output: z.number() });

/**
 * One job of a run as it crosses the executor seam: plain JSON, everything another process (a worker on
 * another machine) needs to run the attempt and settle it exactly as this process's pool would. The run
 * identity travels with it, so that a worker can tell the runs it serves apart; the repositories do not
 * (the worker has its own clones: `TicketEnv.where`).
 */
const JobTicketSchema = z.object({
  /** run.json's identity of the run the job belongs to. */
  run: RunConfigParts.identity,
  /** The job's result key (`keyOf`): sample id, scenario, memory variant and repeat. */
  key: z.string().min(1),
  sample: SampleSchema,
  /** The scenario's registry name. */
  scenario: z.string(),
  /** Which of `--repeats` runs this is, 0-based. */
  repeat: z.number().int().min(0),
  /** The agent gets the memory tools. */
  memory: z.boolean(),
  agent: AgentSpecSchema,
  /**
   * The configuration file's environment specs (`envs:`; null: none), which the families' settings are
   * made with where the ticket runs, as the run's own process makes them. Not a run setting: no option
   * sets them, they are the configuration file's map of SWE environments by repository (a spec's
   * `--env-spec` names one file of the kind), resolved against the file's folder, so they travel as the
   * configuration holds them, as run.json's `config.envs` does.
   */
  envs: RunConfigParts.config.unwrap().shape.envs.unwrap().nullable(),
  /** Each model's prices, by name (the configuration's `prices:`); the spec's `price_in` and `price_out` are the agent's when both given. */
  model_prices: z.record(z.string(), PricesSchema),
  /** The model the agent calls (its prices are `model_prices`' when it has them, else the spec's). */
  agent_model: z.string().nullable(),
  /**
   * The run's declared settings (run.json's `spec`: the limits, the attempt's timeout and turns, the history, …,
   * and each family's fragment under its key), checked where the ticket runs: a setting this process does
   * not declare refuses the ticket. The families make their scenario settings from it there
   * (`TicketEnv.settings`). Absent: every setting at its default.
   */
  spec: z.record(z.string(), z.unknown()).optional(),
});
export type JobTicket = z.infer<typeof JobTicketSchema>;

/** What every ticket of a run shares: the ticket without the job's own fields. */
export type TicketBase = Omit<JobTicket, "key" | "sample" | "scenario" | "repeat" | "memory">;

/** The ticket of one planned job of a run. */
export function ticketFor(base: TicketBase, job: Job): JobTicket {
  return { ...base, key: job.key, sample: job.sample, scenario: job.scenario.name, repeat: job.repeat, memory: job.memory };
}

/**
 * How every model of a run is asked, the agent's and the judges' alike, by its spec: the sampling parameters
 * (`temperature`, `max_tokens`, `seed`), one connection limit shared by all (`max_connections`) and the
 * response cache (`cache`, on unless `--no-cache`).
 */
export function modelOptionsOf(spec: RunSpec | undefined): ModelOptions {
  const connections = specValue(spec, MAX_CONNECTIONS);
  return {
    temperature: specValue(spec, TEMPERATURE) ?? undefined,
    maxTokens: specValue(spec, MAX_TOKENS) ?? undefined,
    seed: specValue(spec, SEED) ?? undefined,
    ...(specValue(spec, CACHE) ? { cache: ResponseCache.default() } : {}),
    ...(connections !== null ? { connections: new ConnectionLimit(connections) } : {}),
  };
}

/**
 * Makes a run's agent from its agent spec and the run's spec (`runSpec`: its command, A2A URL, preset version
 * and tools), as `gitgood run` makes it from its flags: an agent that talks to a model gets the client of
 * `spec.model` asked with `models`. `toolHost` serves the a2a agent its tools; `proxy` is the run's recording
 * model proxy, which external agents and the CLI-agent presets go through.
 */
export function agentFromSpec(
  spec: AgentSpec,
  runSpec: RunSpec | undefined,
  models: ModelOptions,
  live: { toolHost?: ToolHost | null; proxy?: RunProxy | null } = {},
): { agent: Agent; client: ModelClient | undefined } {
  // A CLI-agent preset reaches its model through the run's recording proxy, not through a client of gitgood's.
  const client = agentUsesModel(spec.name) && !agentProxied(spec.name) && spec.model !== null ? lookupModel(spec.model, models) : undefined;
  const agent = createAgent(spec.name, {
    ...spec.options,
    model: spec.model ?? undefined,
    ...agentSettings(runSpec),
    client,
    toolHost: live.toolHost ?? null,
    proxy: live.proxy ?? null,
  });
  return { agent, client };
}

/** The judges of a run from their model names, asked with `models`. */
export function judgesFromSpec(names: readonly string[], models: ModelOptions): ModelClient[] {
  return names.map((name) => lookupModel(name, models));
}

/** What the process that runs a ticket brings of its own. */
export interface TicketEnv {
  /** Where this process finds the samples' repositories. */
  where: RepoLocator;
  /** The isolation to use (default: the ticket's spec's, as this host gives it; refused in one line where it cannot run). */
  isolation?: Isolation;
  /**
   * The scenario settings of the families, with their live parts (models, the isolation), made from the
   * ticket's spec as the run's own process makes them from its flags (`familyScenarioSettings`; the
   * spec's own, MCR's tools, are added to them here).
   */
  settings: (ticket: JobTicket, isolation: Isolation | undefined) => Record<string, unknown>;
  /** How models are asked (default: `modelOptionsOf(ticket.spec)`; give one to share a cache and connection limit over tickets). */
  models?: ModelOptions;
  /** Serves the a2a agent its tools. */
  toolHost?: ToolHost | null;
  /** Packs shared by the tickets this process runs (default: a pack cache for this ticket alone). */
  packs?: PackCache;
  /** Repositories kept open over the tickets this process runs, each with its reader (default: opened per ticket). */
  sources?: RepoPool;
  /**
   * This process's recording model proxy, which an external agent or CLI-agent preset reaches its model
   * through (none: such an agent reaches no model). It holds the user's upstream keys from this process's
   * own environment: a ticket never carries one.
   */
  proxy?: RunProxy | null;
}

/**
 * Fields an older producer wrote beside the spec before they moved into it, by their path in the ticket: a worker
 * that dropped them would run the job otherwise than asked (unjudged, at another history depth, without the
 * families' settings: `flags`, the run verb's flags the families' settings were rebuilt from; at another
 * temperature, at other prices, under an isolation its worker's policy never saw, recording other than the run
 * asked: `record_model_io`; without the command agents' program or the a2a agent's URL: `agent.command`,
 * `agent.url`; a preset at its pinned version or with other tools: `agent.options.agentVersion`,
 * `agent.options.tools`), so such a ticket is refused.
 */
const MOVED_INTO_SPEC = [
  "judges",
  "history",
  "limits",
  "flags",
  "models",
  "prices",
  "isolation",
  "record_model_io",
  "agent.command",
  "agent.url",
  "agent.options.agentVersion",
  "agent.options.tools",
] as const;

/** Whether a JSON value has a field at a dotted path (`agent.command`), whatever its value. */
function hasPath(value: unknown, dotted: string): boolean {
  let at: unknown = value;
  for (const field of dotted.split(".")) {
    if (typeof at !== "object" || at === null || Array.isArray(at) || !(field in at)) return false;
    at = (at as Record<string, unknown>)[field];
  }
  return true;
}

/** Checks a ticket from elsewhere, in one line when it is not one. */
export function parseTicket(value: unknown): JobTicket {
  if (typeof value === "object" && value !== null) {
    const old = MOVED_INTO_SPEC.filter((f) => hasPath(value, f));
    if (old.length > 0) {
      throw new GitGoodError(
        "BAD_TICKET",
        `not a job ticket of this gitgood: ${old.join(", ")} travel in its spec now; run the producer and the workers at the same version`,
      );
    }
  }
  const parsed = JobTicketSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new GitGoodError("BAD_TICKET", `not a job ticket: ${issue ? `${issue.path.join(".") || "(top)"}: ${issue.message}` : "invalid"}`);
  }
  if (parsed.data.spec !== undefined) parseRunSpec(parsed.data.spec, "not a job ticket: spec", "BAD_TICKET");
  return parsed.data;
}

/**
 * Runs one ticket in this process and returns its settled record and trajectory, writing nothing: the
 * run's writer appends them wherever the run directory is. The attempt is the one the local pool would
 * run (same agent, scenario settings, limits, scoring, response-cache scope); its own failures are its
 * record's error. Throws (BAD_TICKET, BAD_OPTION, ISOLATION_UNAVAILABLE) only when the ticket cannot be
 * run here at all.
 */
export async function runTicket(value: JobTicket, env: TicketEnv): Promise<Settled> {
  const ticket = parseTicket(value);
  const scenario = scenarioNamed(ticket.scenario);
  if (!scenariosFor(ticket.sample).some((d) => d.name === scenario.name)) {
    throw new GitGoodError("BAD_TICKET", `sample ${ticket.sample.id} gives no ${scenario.name} scenario`);
  }
  const job: Job = { sample: ticket.sample, scenario, memory: ticket.memory, repeat: ticket.repeat, key: ticket.key };
  if (keyOf(job) !== ticket.key) throw new GitGoodError("BAD_TICKET", `the ticket's key ${ticket.key} is not its job's (${keyOf(job)})`);
  const models = env.models ?? modelOptionsOf(ticket.spec);
  const { agent } = agentFromSpec(ticket.agent, ticket.spec, models, { toolHost: env.toolHost, proxy: env.proxy ?? null });
  if (agent.name !== ticket.run.agent) {
    throw new GitGoodError("BAD_TICKET", `the ticket's agent spec makes agent ${agent.name}, its run's agent is ${ticket.run.agent}`);
  }
  const timeoutSeconds = specValue(ticket.spec, TIMEOUT);
  // A process may use as much CPU time as the attempt has time, as in the run's own process.
  const isolation = env.isolation ?? chooseIsolation(isolationRequest(ticket.spec, timeoutSeconds));
  // As the run's own process finds them: the agent's model's prices, else the spec's, else those of the model it was given.
  const given = agentPrices(ticket.spec, agentUsesModel(ticket.agent.name) ? ticket.agent.model : null, ticket.model_prices);
  const prices: Prices | undefined = (ticket.agent_model !== null ? ticket.model_prices[ticket.agent_model] : undefined) ?? given;
  const settings = scenarioSettings(ticket.spec, env.settings(ticket, isolation));
  const scoring: Scoring = {
    judges: judgesFromSpec(specValue(ticket.spec, JUDGES), models),
    agent: agent.name,
    prices,
    priceOf: (model) => ticket.model_prices[model] ?? (model === ticket.agent_model ? prices : undefined),
    settings,
    scoreTimeoutSeconds: timeoutSeconds,
  };
  const ctx: JobContext = {
    agent,
    where: env.where,
    timeoutSeconds,
    maxTurns: specValue(ticket.spec, MAX_TURNS),
    spec: ticket.spec,
    settings,
    isolation,
    scoring,
    sources: env.sources,
  };
  return env.packs ? attemptJob(job, ctx, env.packs) : withRunPacks((packs) => attemptJob(job, ctx, packs));
}

/**
 * What every ticket of a run shares, from its run.json (the spec with the families' fragments, the
 * configuration's environment specs) and what run.json does not hold: the agent spec and the models' prices.
 */
export function ticketBase(config: RunConfig, run: { agent: AgentSpec; modelPrices: Record<string, Prices>; agentModel: string | null }): TicketBase {
  return {
    run: config.identity,
    agent: run.agent,
    envs: config.config?.envs ?? null,
    model_prices: { ...run.modelPrices },
    agent_model: run.agentModel,
    ...(config.spec ? { spec: { ...config.spec } } : {}),
  };
}
