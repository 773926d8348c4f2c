import { createRequire } from "node:module";
import { z } from "zod";
import type { RepoLocator } from "../dataset/clones.js";
import type { EnvSpecFile } from "../testenv/types.js";
import { imageOf, modeIsolates, type Isolation, type IsolationLimits } from "../sandbox/isolation.js";
import { RESULTS_SCHEMA_VERSION } from "./record.js";
import { JUDGES, agentRunSpec, familyKeys, ignoredAgentSettings, specIdentity, specValue, type RunSpec } from "./spec.js";

const pkg = createRequire(import.meta.url)("../../package.json") as { version: string };

/** The gitgood version that wrote a run (recorded in run.json). */
export const GITGOOD_VERSION: string = pkg.version;

/** The agent's model: its name and where it is asked (how it is asked is the spec's: temperature, max_tokens, seed). */
const ModelSchema = z.object({
  name: z.string(),
  /** The endpoint's base URL (null: the client's default). */
  endpoint: z.string().nullable(),
});
export type ModelInfo = z.infer<typeof ModelSchema>;

/**
 * The identity fields of runs made before their settings moved into the spec, each named as its setting's
 * key: `memory` (always written), `repeats` (above 1), `max_turns` (always; null for a run without an
 * agent's turns), `history` (always; null when not given), `ids` and `limit` (always; null when not
 * given), `scenarios`, `difficulties`, `languages`, `sample` and `mcr_tools` (when given).
 */
const MOVED_IDENTITY_FIELDS = ["memory", "repeats", "max_turns", "history", "ids", "limit", "scenarios", "difficulties", "languages", "sample", "mcr_tools"] as const;

/** The fields of the identity's `model` of runs made before how models are asked moved into the spec: `temperature` (always; null when not given), `max_tokens` and `seed` (when given). */
const MOVED_MODEL_FIELDS = ["temperature", "max_tokens", "seed"] as const;

/**
 * An identity as runs made before a setting moved into the spec wrote it, in today's form: each field of
 * `MOVED_IDENTITY_FIELDS`, and of its `model` each of `MOVED_MODEL_FIELDS`, is its setting's value (null:
 * the default), recorded in `spec` when not at the default, as a run made now records it.
 */
function upgradedIdentity(raw: unknown): unknown {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return raw;
  const fields = raw as Record<string, unknown>;
  const model = objectOr(fields.model);
  if (!MOVED_IDENTITY_FIELDS.some((k) => fields[k] !== undefined) && !MOVED_MODEL_FIELDS.some((k) => k in model)) return raw;
  const moved = Object.fromEntries([...MOVED_IDENTITY_FIELDS.map((k) => [k, fields[k] ?? undefined]), ...MOVED_MODEL_FIELDS.map((k) => [k, model[k] ?? undefined])]);
  const spec = specIdentity({ ...definedFields(moved), ...objectOr(fields.spec) });
  const others = Object.fromEntries(Object.entries(fields).filter(([k]) => k !== "spec" && !(MOVED_IDENTITY_FIELDS as readonly string[]).includes(k)));
  // The model's moved fields stay where they were: its schema reads only its name and endpoint.
  return { ...others, ...(Object.keys(spec).length > 0 ? { spec } : {}) };
}

/**
 * An identity as runs made before the families' settings moved into the spec wrote it, in today's form:
 * a family's fields under its key (SWE's `swe: {hints, predictions}`, a plug-in's own) are its settings of
 * the same keys, recorded in `spec.<family>` when not at their defaults, as a run made now records them.
 */
function upgradedFamilyFields(raw: unknown): unknown {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return raw;
  const fields = raw as Record<string, unknown>;
  const moved = familyKeys().filter((k) => fields[k] !== undefined);
  if (moved.length === 0) return raw;
  const spec = specIdentity({ ...objectOr(fields.spec), ...Object.fromEntries(moved.map((k) => [k, objectOr(fields[k])])) });
  const others = Object.fromEntries(Object.entries(fields).filter(([k]) => k !== "spec" && !moved.includes(k)));
  return { ...others, ...(Object.keys(spec).length > 0 ? { spec } : {}) };
}

/**
 * A run.json as runs made before the attempt's time and turn limits, the shard, the judges and how models
 * are asked moved into the spec wrote it, in today's form: its `limits.timeout_s` and `limits.max_turns`
 * (null when the run had none), its `shard` (absent: all the jobs), its top-level `judges` and the fields
 * of its `models` (`temperature`, `max_tokens`, `seed`, `max_connections`, `cache`) are the spec's settings
 * of those names, and what its isolation record says was asked (`askedIsolation`; the record stays: it is
 * what the host gave) the spec's isolation settings. The identity settings among the models' are the identity's too when not at their
 * defaults: a run whose agent asked no model had them in no identity, so any value resumed it, and the
 * latest session's does.
 */
function upgradedConfig(raw: unknown): unknown {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return raw;
  const { shard, judges, models, ...config } = raw as Record<string, unknown>;
  const { timeout_s, max_turns, ...limits } = objectOr(config.limits);
  const isolation = "isolation" in objectOr(config.spec) ? {} : askedIsolation(objectOr(config.isolation));
  const moving = [timeout_s, max_turns, shard, judges, models, isolation.isolation];
  if (moving.every((v) => v === undefined)) return raw;
  const asked = objectOr(models);
  const moved = definedFields({ timeout_s: timeout_s ?? undefined, max_turns: max_turns ?? undefined, shard, judges, ...asked, ...isolation });
  const spec = Object.keys(moved).length > 0 || config.spec !== undefined ? { spec: { ...moved, ...objectOr(config.spec) } } : {};
  const identity = objectOr(config.identity);
  const modelIdentity = specIdentity(Object.fromEntries(MOVED_MODEL_FIELDS.map((k) => [k, asked[k] ?? undefined])));
  const upgraded = Object.keys(modelIdentity).length > 0 ? { identity: { ...identity, spec: { ...modelIdentity, ...objectOr(identity.spec) } } } : {};
  return { ...config, ...upgraded, ...(config.limits !== undefined ? { limits } : {}), ...spec };
}

/** The agent's own settings by key, each with the option of the verb that set it before it moved into the spec. */
const MOVED_AGENT_OPTIONS = { command: "command", url: "url", agent_version: "agent-version", tools: "tools" } as const;

/**
 * A run.json as runs made before the agent's own settings moved into the spec wrote it (a spec without `tools`),
 * in today's form: the options its latest session was given of those (its configuration's `command`, `url`,
 * `agent-version`, `tools`) are the spec's settings, and `command` and `tools` the identity's too when not at
 * their defaults. Its identity held of them only the agent's name (`command:` and the command's first 60
 * characters, `a2a:URL`, `claude-code@VERSION`), so it resumes with the same flags and is refused with others.
 */
function upgradedAgentSettings(raw: unknown): unknown {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return raw;
  const config = raw as Record<string, unknown>;
  if ("tools" in objectOr(config.spec)) return raw;
  const options = objectOr(objectOr(config.config).options);
  const moved = definedFields(Object.fromEntries(Object.entries(MOVED_AGENT_OPTIONS).map(([key, option]) => [key, options[option]])));
  if (Object.keys(moved).length === 0) return raw;
  const identity = objectOr(config.identity);
  const fields = specIdentity({ ...moved, ...objectOr(identity.spec) });
  const upgraded = Object.keys(fields).length > 0 ? { identity: { ...identity, spec: fields } } : {};
  return { ...config, ...upgraded, spec: { ...moved, ...objectOr(config.spec) } };
}

/**
 * A run.json as runs made before an agent's definition said which agent settings it takes wrote it, in today's
 * form: the agent settings its agent (its latest session's `--agent`, `config.options.agent`) does not take are at
 * their defaults in its spec and not in its identity, so that a resume with another value of one goes on. A
 * session of several agents (`--agent a,b`) or of an agent no longer known names none, and is left as it is.
 */
function withoutIgnoredAgentSettings(raw: unknown): unknown {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return raw;
  const config = raw as Record<string, unknown>;
  const name = objectOr(objectOr(config.config).options).agent;
  if (typeof name !== "string") return raw;
  const ignored = new Set(ignoredAgentSettings(name).map((s) => s.key));
  const identity = objectOr(config.identity);
  const { spec: identitySpec, ...others } = identity;
  const kept = Object.fromEntries(Object.entries(objectOr(identitySpec)).filter(([k]) => !ignored.has(k)));
  return {
    ...config,
    ...(identity === config.identity ? { identity: { ...others, ...(Object.keys(kept).length > 0 ? { spec: kept } : {}) } } : {}),
    ...(objectOr(config.spec) === config.spec ? { spec: agentRunSpec(objectOr(config.spec), name) } : {}),
  };
}

/**
 * What the isolation record of a run made before the isolation asked for moved into the spec says was asked:
 * the backend, the network (asked only of an isolating one: `none` records it on), the docker image (of
 * docker), the extra reads and variables. None for a record that names no backend.
 */
function askedIsolation(record: Record<string, unknown>): Record<string, unknown> {
  if (typeof record.mode !== "string") return {};
  return definedFields({
    isolation: record.mode,
    network: modeIsolates(record.mode) ? record.network : undefined,
    docker_image: record.docker_image ?? undefined,
    allow_read: record.allow_read,
    pass_env: record.pass_env,
  });
}

/** A JSON object's fields, or none when it is not one. */
function objectOr(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** The fields whose value is not undefined. */
function definedFields(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
}

/**
 * What makes two runs the same run: re-running with the same identity resumes; anything else in
 * run.json (the spec's other settings, the judges among them, limits, the gitgood version) may change between sessions of one run.
 */
const IdentitySchema = z.preprocess((raw) => upgradedIdentity(upgradedFamilyFields(raw)), z.object({
  /** The samples files the run read, made absolute: where its samples came from, not what they are (not compared). */
  samples: z.string(),
  /**
   * What the run's samples are (`samplesDigest` of the selected samples): compared on resume, so a run continues
   * only over the same samples wherever they are read from. Absent in runs made before it (their path is compared).
   */
  samples_digest: z.string().optional(),
  agent: z.string(),
  model: ModelSchema.nullable(),
  where: z.union([z.object({ repo: z.string() }), z.object({ repos: z.string() })]).nullable(),
  /**
   * The declared run settings that change what is evaluated, where not their defaults (`specIdentity`):
   * `max_turns` other than 40, `repeats` above 1, `memory` when on, `history` other than 50, the selection
   * (`ids`, `scenarios`, `difficulties`, `languages`, `sample`, `limit`) when given, `mcr_tools` other than
   * the published ones, the models' `temperature`, `max_tokens` and `seed` when given, the command agents'
   * `command` when given, the presets' `tools` other than both; each family's identity
   * settings not at their defaults under its key (SWE's `swe`: `hints` when on, the `predictions` file
   * evaluated). Absent when every one is at its default.
   */
  spec: z.record(z.string(), z.unknown()).optional(),
})
  /** Fields of runs made elsewhere: a plug-in family's fields of a run made before its settings were in the spec, where it is not loaded. */
  .catchall(z.unknown()));

/** What makes two runs one run (compared on resume, by shards, merges and queues). */
export type RunIdentity = z.infer<typeof IdentitySchema>;

/** How the programs of the run's attempts were isolated (in its latest session: not part of the run's identity). */
const IsolationSchema = z.object({
  /** The isolation backend (`none` only when the user asked for it: a backend that cannot run is refused). */
  mode: z.string(),
  network: z.boolean(),
  docker_image: z.string().nullable(),
  allow_read: z.array(z.string()),
  /** Host variables the agent programs got besides the allow-list (`--pass-env`); absent in runs made before it. */
  pass_env: z.array(z.string()).optional(),
  /** What each agent program's jail could use and how this host enforced it; absent in runs made before limits. */
  limits: z
    .object({
      processes: z.number().int(),
      memory_bytes: z.number().int(),
      disk_bytes: z.number().int(),
      cpu_s: z.number().nullable(),
      /** Whether the run was let go on with a limit enforced weakly or not at all (`--accept-weak-limits`). */
      accept_weak: z.boolean(),
      enforcement: z.object({ processes: z.string(), memory: z.string(), disk: z.string(), cpu: z.string() }),
    })
    .optional(),
});

const PricesSchema = z.object({ input: z.number(), output: z.number() });

/** SWE environment specs as parsed (`parseEnvSpecs`): repository → version → spec fields. */
const EnvSpecsSchema = z.custom<EnvSpecFile>(
  (v) => typeof v === "object" && v !== null && typeof (v as { source?: unknown }).source === "string" && typeof (v as { repos?: unknown }).repos === "object",
);

/**
 * The configuration a session of the run was started with, after flags: every option of the verb by
 * its long name, the configuration file it read (if any), the prices per model and the environment
 * specs of its `envs:` (absent when it has none).
 */
const ResolvedConfigSchema = z.object({
  file: z.string().nullable(),
  options: z.record(z.string(), z.unknown()),
  prices: z.record(z.string(), PricesSchema),
  envs: EnvSpecsSchema.optional(),
});
export type ResolvedConfig = z.infer<typeof ResolvedConfigSchema>;

/** run.json's fields, as written now. */
const RunConfigFields = z.object({
  schema_version: z.literal(RESULTS_SCHEMA_VERSION),
  gitgood_version: z.string(),
  created_at: z.string(),
  identity: IdentitySchema,
  /** The samples run at once (`--jobs`). The attempt's time and turn limits are the spec's (`timeout_s`, `max_turns`). */
  limits: z.object({ jobs: z.number().int().nullable() }),
  isolation: IsolationSchema.optional(),
  config: ResolvedConfigSchema.optional(),
  /**
   * Every declared run setting with its value in the latest session (spec.ts; `parseRunSpec` reads it).
   * Absent in runs made before the spec.
   */
  spec: z.record(z.string(), z.unknown()).optional(),
});
/** The schema of a run directory's `config.json`: how the run was asked for and what it resolved to (a run.json of an earlier format read as today's). */
export const RunConfigSchema = z.preprocess((raw) => withoutIgnoredAgentSettings(upgradedAgentSettings(upgradedConfig(raw))), RunConfigFields);
/** The schemas of run.json's parts, for the records that carry them elsewhere (a queue ticket). */
export const RunConfigParts = RunConfigFields.shape;
/** A run directory's `config.json`. */
export type RunConfig = z.infer<typeof RunConfigSchema>;

/** What `run`, `bench` and `mcp` know about a run when they open its directory. */
export interface RunConfigInput {
  /** The samples files, as given (made absolute here). */
  samples: readonly string[];
  /**
   * The selected samples' digest (`samplesDigest`): what the run is over. Every verb gives it; a caller that
   * does not gets a run compared by its samples' path, as runs made before digests were.
   */
  samplesDigest?: string;
  agent: string;
  model?: ModelInfo | null;
  where?: RepoLocator | null;
  jobs?: number | null;
  /** The isolation in effect (`gitgood mcp` starts no agent program and records none). */
  isolation?: Isolation;
  /** The resolved configuration (`run`, `bench`: flags over the configuration file). */
  config?: ResolvedConfig;
  /**
   * The declared run settings (spec.ts: limits, timeout, turns, repeats, the memory variant, the shard, the
   * history, the MCR tools, the selection, the judges, how models are asked): all recorded, the identity ones in the identity too. A verb that
   * takes only some (`gitgood mcp`: the history, the MCR tools, ids and limit) gives only those.
   */
  spec?: RunSpec;
}


/** Builds run.json's content (without `created_at`, which the store sets when it first writes it). */
export function runConfig(input: RunConfigInput, resolve: (p: string) => string): Omit<RunConfig, "created_at"> {
  const where = input.where ? ("repo" in input.where ? { repo: resolve(input.where.repo) } : { repos: resolve(input.where.repos) }) : null;
  return {
    schema_version: RESULTS_SCHEMA_VERSION,
    gitgood_version: GITGOOD_VERSION,
    identity: {
      samples: input.samples.map(resolve).join(","),
      ...(input.samplesDigest !== undefined ? { samples_digest: input.samplesDigest } : {}),
      agent: input.agent,
      model: input.model ?? null,
      where,
      ...specIdentityField(input.spec),
    },
    limits: { jobs: input.jobs ?? null },
    ...(input.isolation
      ? {
          isolation: {
            mode: input.isolation.mode,
            network: input.isolation.network,
            docker_image: imageOf(input.isolation),
            allow_read: [...input.isolation.allowRead],
            pass_env: [...input.isolation.passEnv],
            ...(input.isolation.limits ? { limits: limitsRecord(input.isolation.limits, input.isolation.acceptWeakLimits === true) } : {}),
          },
        }
      : {}),
    ...(input.config ? { config: input.config } : {}),
    ...(input.spec ? { spec: { ...input.spec } } : {}),
  };
}

/** The identity's `spec`: present only when an identity setting is not at its default, so that older runs resume. */
function specIdentityField(spec: RunSpec | undefined): { spec?: Record<string, unknown> } {
  const fields = spec ? specIdentity(spec) : {};
  return Object.keys(fields).length > 0 ? { spec: fields } : {};
}

/** The limits as run.json records them. */
function limitsRecord(l: IsolationLimits, acceptWeak: boolean): NonNullable<NonNullable<RunConfig["isolation"]>["limits"]> {
  return { processes: l.processes, memory_bytes: l.memory, disk_bytes: l.disk, cpu_s: l.cpu, accept_weak: acceptWeak, enforcement: { ...l.enforcement } };
}

/** The judge models a run was last scored with (its spec's `judges`; `gitgood score` with others changes them). */
export function runJudges(config: Pick<RunConfig, "spec">): string[] {
  return [...specValue(config.spec, JUDGES)];
}
