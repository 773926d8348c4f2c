import { z } from "zod";
import type { RepoLocator } from "../dataset/clones.js";
import { readDataset } from "../dataset/importer.js";
import { seededRandom, shuffled } from "../dataset/random.js";
import type { Sample } from "../dataset/sample.js";
import { GitGoodError, toGitGoodError } from "../errors.js";
import { families } from "../families/registry.js";
import { stratifiedSample } from "../runs/plan.js";
import { requestableShape } from "../runs/spec.js";
import { scenarioNamed, scenariosFor } from "../scenarios/registry.js";
import { underData } from "./data-roots.js";

/** The scenarios an assessment may ask for, as the request spells them: those of every family offered in assessments. */
export function assessmentScenarios(): string[] {
  return families()
    .filter((f) => f.assessed !== false)
    .flatMap((f) => f.scenarios.map((s) => s.name.toLowerCase()));
}

/** An assessment's `config`, for the scenarios registered now (what it accepts is an `AssessmentConfig`: parseAssessment assigns one to the other). */
function configSchema(names: readonly string[]) {
  return z
    .object({
      /** A samples file on the green's machine (gitgood JSONL, published Parquet/CSV/JSONL, SWE-bench instances). */
      dataset: z.string().min(1),
      /** The directory of clones at DIR/owner/repo. */
      repos: z.string().min(1).optional(),
      /** The one repository every sample comes from (instead of repos). */
      repo: z.string().min(1).optional(),
      scenarios: z.array(z.enum(names as [string, ...string[]])).min(1).optional(),
      ids: z.array(z.string().min(1)).min(1).optional(),
      /** At most this many samples (after the other filters). */
      max_rows: z.number().int().min(1).optional(),
      /** A random sample of this many samples, drawn with `seed`. */
      sample: z.number().int().min(1).optional(),
      seed: z.number().int().optional(),
      max_concurrent_rows: z.number().int().min(1).max(64).optional(),
      /** Seconds per instance (default 1800). */
      timeout: z.number().positive().optional(),
      /** SWE: give the participant the instance's hints (the AgentBeats green does; default true). */
      hints: z.boolean().optional(),
      /** Judge models for IR and ICC (a name or a list). */
      judge: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
      /** The model of the published AgentBeats green agent's requests: not used here, echoed in the Result. */
      green_agent_model: z.string().optional(),
      // The run settings a request may ask for (the jail's limits, at most the operator's): runs/spec.ts.
      ...requestableShape(),
    })
    // Keys of other green agents' configs are dropped here, and named in a warning (parseAssessment).
    .strip();
}

function requestSchema(names: readonly string[]) {
  return z
    .object({
      participants: z.record(z.string().min(1), z.url()),
      config: configSchema(names),
    })
    .strict();
}

/**
 * An assessment request's `config`, checked: the dataset and repositories to use, which samples and scenarios, the
 * time limit per instance (seconds), the judges, and the run settings a request may ask for.
 */
export interface AssessmentConfig {
  /** A samples file on the green's machine (gitgood JSONL, published Parquet/CSV/JSONL, SWE-bench instances). */
  dataset: string;
  /** The directory of clones at DIR/owner/repo. */
  repos?: string;
  /** The one repository every sample comes from (instead of repos). */
  repo?: string;
  /** The scenarios to run, as `assessmentScenarios()` spells them (default: every one). */
  scenarios?: string[];
  /** Only the samples with these ids. */
  ids?: string[];
  /** At most this many samples (after the other filters). */
  max_rows?: number;
  /** A random sample of this many samples, drawn with `seed`. */
  sample?: number;
  /** The seed of `sample`'s draw. */
  seed?: number;
  /** How many instances run at once (1-64). */
  max_concurrent_rows?: number;
  /** Seconds per instance (default 1800). */
  timeout?: number;
  /** SWE: give the participant the instance's hints (the AgentBeats green does; default true). */
  hints?: boolean;
  /** Judge models for IR and ICC (a name or a list). */
  judge?: string | string[];
  /** The model of the published AgentBeats green agent's requests: not used here, echoed in the Result. */
  green_agent_model?: string;
  /** The run settings a request may ask for, by key (runs/spec.ts; `requestableShape`). */
  [setting: string]: unknown;
}

/** An assessment request, checked: one participant, what to run, and how. */
export interface Assessment {
  role: string;
  url: string;
  config: AssessmentConfig;
  where: RepoLocator;
  /** Registry names of the scenarios asked for. */
  scenarios: ReadonlySet<string>;
  judges: string[];
  /** Lines about the request said in the task's status (keys gitgood does not know, and ignores). */
  warnings: string[];
  /** The run settings the request asked for (`narrowedSpec` keeps them within the operator's). */
  requested: Record<string, unknown>;
}

function invalid(message: string): GitGoodError {
  return new GitGoodError("BAD_ASSESSMENT", `invalid params: ${message}`);
}

/** The first problem zod found, as one line (`config.max_rows: …`). */
function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "the request does not match {participants, config}";
  const where = issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
  return `${where}${issue.message}`;
}

/**
 * Reads an assessment request: the message's text, a JSON object `{"participants": {role: url},
 * "config": {...}}`. Anything else is a BAD_ASSESSMENT error whose message starts "invalid params:".
 */
export function parseAssessment(text: string): Assessment {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw invalid('the message is not JSON; send {"participants": {"<role>": "<A2A URL>"}, "config": {"dataset": …, "repos": …}}');
  }
  const names = assessmentScenarios();
  const parsed = requestSchema(names).safeParse(raw);
  if (!parsed.success) throw invalid(firstIssue(parsed.error));
  const { participants, config } = parsed.data;
  const rawConfig = (raw as { config: Record<string, unknown> }).config;
  const known = configSchema(names).shape;
  const unknown = Object.keys(rawConfig).filter((k) => !(k in known)).sort();
  const warnings = unknown.length > 0 ? [`warning: config key(s) ${unknown.join(", ")} are not gitgood's and are ignored`] : [];
  const roles = Object.entries(participants);
  const first = roles[0];
  if (!first || roles.length !== 1) throw invalid(`give exactly one participant (got ${roles.length})`);
  if ((config.repos ? 1 : 0) + (config.repo ? 1 : 0) !== 1) throw invalid("give exactly one of config.repos (clones at DIR/owner/repo) or config.repo");
  if (config.sample !== undefined && config.ids !== undefined) throw invalid("config.sample and config.ids do not go together");
  const where: RepoLocator = config.repos ? { repos: config.repos } : { repo: config.repo as string };
  const judges = config.judge === undefined ? [] : Array.isArray(config.judge) ? config.judge : [config.judge];
  return {
    role: first[0],
    url: first[1],
    config,
    where,
    scenarios: new Set((config.scenarios ?? names).map((s) => scenarioNamed(s).name)),
    judges,
    warnings,
    requested: Object.fromEntries(Object.keys(requestableShape()).flatMap((k) => (k in config ? [[k, (config as Record<string, unknown>)[k]]] : []))),
  };
}

/**
 * The assessment with every path it names (`dataset`, `repo`, `repos`) resolved to its real path,
 * which must lie under one of the data directories `roots`: refused as "invalid params" before
 * anything there is read.
 */
export function confineToData(a: Assessment, roots: readonly string[]): Assessment {
  const dataset = underData("dataset", a.config.dataset, roots);
  const where: RepoLocator = "repo" in a.where ? { repo: underData("repo", a.where.repo, roots) } : { repos: underData("repos", a.where.repos, roots) };
  return { ...a, config: { ...a.config, dataset, ...("repo" in where ? { repo: where.repo } : { repos: where.repos }) }, where };
}

/**
 * The samples of an assessment: the dataset's samples that give one of the scenarios asked for,
 * narrowed by `ids`, then `sample` (a seeded random draw, kept in dataset order), then `max_rows` (drawn
 * across scenarios and difficulties as `run --sample` draws, with `seed`; never the first rows in file order).
 */
export async function assessmentSamples(a: Assessment): Promise<Sample[]> {
  let samples: Sample[];
  try {
    samples = (await readDataset([a.config.dataset])).samples;
  } catch (err) {
    throw invalid(`config.dataset: ${toGitGoodError(err).message}`);
  }
  samples = samples.filter((s) => scenariosFor(s).some((d) => a.scenarios.has(d.name)));
  if (a.config.ids) {
    const want = new Set(a.config.ids);
    const unknown = a.config.ids.filter((id) => !samples.some((s) => s.id === id));
    if (unknown.length > 0) throw invalid(`config.ids: no sample ${unknown.join(", ")} of the scenarios asked for`);
    samples = samples.filter((s) => want.has(s.id));
  }
  if (a.config.sample !== undefined && a.config.sample < samples.length) {
    const chosen = new Set(shuffled(samples, seededRandom(a.config.seed ?? 0, "a2a-sample")).slice(0, a.config.sample));
    samples = samples.filter((s) => chosen.has(s));
  }
  if (a.config.max_rows !== undefined) samples = stratifiedSample(samples, a.config.max_rows, a.config.seed ?? 0, [...a.scenarios]);
  if (samples.length === 0) throw invalid("no sample of the dataset fits the config");
  return samples;
}
