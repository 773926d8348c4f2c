import { statSync } from "node:fs";
import { agentSupports, type Agent } from "../agents/agent.js";
import { clonePath, repositoryPath, type RepoLocator } from "../dataset/clones.js";
import { seededRandom, shuffled } from "../dataset/random.js";
import { DIFFICULTIES, type Difficulty, type Sample } from "../dataset/sample.js";
import { apportion } from "../dataset/split.js";
import { GitGoodError, toGitGoodError } from "../errors.js";
import { Repo } from "../git/repo.js";
import type { AnyScenarioDefinition } from "../scenarios/definition.js";
import { reportRank, scenarioSet, scenariosFor } from "../scenarios/registry.js";
import { keyOf } from "./settle.js";
import { shardJobs, type Shard } from "./shard.js";
import type { Job } from "./types.js";

export type { Job } from "./types.js";

/**
 * Which samples and scenarios a run works. Filters narrow the dataset (each one given must match);
 * then `sample` draws a stratified random sample; then `limit` keeps the first ones, in file order.
 */
export interface Selection {
  /** Only these sample ids (an id the dataset lacks is an error). */
  ids?: readonly string[];
  /** Only these scenarios (registry names, any case): a sample is kept when it gives one of them. */
  scenarios?: readonly string[];
  difficulties?: readonly Difficulty[];
  /** Only samples whose `programming_language` is one of these (any case). */
  languages?: readonly string[];
  /** A stratified random sample of `size` samples, the same for the same `seed`. */
  sample?: { size: number; seed: number };
  limit?: number;
}


/** The scenarios a sample gives, narrowed to `only` (canonical names) when it is given. */
function scenariosOf(sample: Sample, only: ReadonlySet<string> | null): AnyScenarioDefinition[] {
  return scenariosFor(sample).filter((d) => only === null || only.has(d.name));
}

/**
 * The jobs of a run: every sample × scenario (narrowed to `scenarios`) the agent works, once, or twice
 * with `memory`. `unsupported` counts the sample × scenario pairs the agent does not work.
 */
export function planJobs(
  samples: readonly Sample[],
  agent: Agent,
  opts: { scenarios?: readonly string[]; memory?: boolean; repeats?: number } = {},
): { jobs: Job[]; unsupported: number } {
  const only = opts.scenarios ? new Set(scenarioSet(opts.scenarios)) : null;
  const jobs: Job[] = [];
  let unsupported = 0;
  // Whole passes one after the other: a run cut short has every sample's first attempts first.
  for (let repeat = 0; repeat < (opts.repeats ?? 1); repeat++) {
    for (const sample of samples) {
      for (const scenario of scenariosOf(sample, only)) {
        if (!agentSupports(agent, scenario)) {
          if (repeat === 0) unsupported++;
          continue;
        }
        for (const memory of opts.memory ? [false, true] : [false]) {
          jobs.push({ sample, scenario, memory, repeat, key: keyOf({ sample, scenario, memory, repeat }) });
        }
      }
    }
  }
  return { jobs, unsupported };
}

/** What a selection's filters say, for messages ("--scenario IR --difficulty hard"). */
function describeFilters(sel: Selection): string {
  const parts: string[] = [];
  if (sel.ids?.length) parts.push(`--ids ${sel.ids.join(",")}`);
  if (sel.scenarios?.length) parts.push(`--scenario ${sel.scenarios.join(",")}`);
  if (sel.difficulties?.length) parts.push(`--difficulty ${sel.difficulties.join(",")}`);
  if (sel.languages?.length) parts.push(`--language ${sel.languages.join(",")}`);
  return parts.join(" ");
}

/**
 * The samples that pass every filter of `sel` (ids, scenarios, difficulties, languages), in their
 * order. Refuses an unknown id, and filters that leave nothing, in one line.
 */
export function filterSamples(samples: readonly Sample[], sel: Selection): Sample[] {
  let out = [...samples];
  if (sel.ids && sel.ids.length > 0) {
    const have = new Set(samples.map((s) => s.id));
    const unknown = sel.ids.filter((id) => !have.has(id));
    if (unknown.length > 0) throw new GitGoodError("BAD_OPTION", `no sample with id ${unknown.join(", ")}`);
    const want = new Set(sel.ids);
    out = out.filter((s) => want.has(s.id));
  }
  if (sel.scenarios && sel.scenarios.length > 0) {
    const only = new Set(scenarioSet(sel.scenarios));
    out = out.filter((s) => scenariosOf(s, only).length > 0);
  }
  if (sel.difficulties && sel.difficulties.length > 0) {
    const want = new Set<string>(sel.difficulties);
    out = out.filter((s) => want.has(s.difficulty));
  }
  if (sel.languages && sel.languages.length > 0) {
    const want = new Set(sel.languages.map((l) => l.toLowerCase()));
    out = out.filter((s) => s.programming_language !== null && want.has(s.programming_language.toLowerCase()));
  }
  if (out.length === 0 && samples.length > 0 && describeFilters(sel) !== "") {
    throw new GitGoodError("BAD_OPTION", `no sample matches ${describeFilters(sel)} (of ${samples.length} samples)`);
  }
  return out;
}

/**
 * The stratum of a sample for `--sample`: the scenarios it gives (narrowed to `only`; a chain gives IR
 * and ICC together, both run on it) and its difficulty.
 */
export function sampleStratum(sample: Sample, only: ReadonlySet<string> | null = null): string {
  return `${scenariosOf(sample, only).map((d) => d.name).join("+")}/${sample.difficulty}`;
}

/**
 * A stratified random sample of `size` samples, strata being scenario × difficulty (`sampleStratum`).
 * When `size` reaches the number of non-empty strata, each stratum gets one sample and the remaining
 * places are shared in proportion to what each stratum has left; otherwise the places are shared in
 * proportion to the strata's sizes. Both shares go by largest remainders, ties broken by a draw. Which
 * samples of a stratum are taken is a seeded shuffle: the same samples and seed give the same result,
 * whatever the samples' order. The result keeps the input's order.
 */
export function stratifiedSample(samples: readonly Sample[], size: number, seed: number, scenarios?: readonly string[]): Sample[] {
  if (size >= samples.length) return [...samples];
  const only = scenarios && scenarios.length > 0 ? new Set(scenarioSet(scenarios)) : null;
  const strata = new Map<string, Sample[]>();
  for (const s of [...samples].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    const key = sampleStratum(s, only);
    const list = strata.get(key);
    if (list) list.push(s);
    else strata.set(key, [s]);
  }
  const keys = [...strata.keys()].sort();
  const sizes = keys.map((k) => (strata.get(k) as Sample[]).length);
  const order = shuffled(
    keys.map((_, i) => i),
    seededRandom(seed, "sample\u0000ties"),
  );
  const tieRank: number[] = [];
  order.forEach((stratum, position) => (tieRank[stratum] = position));
  const take =
    size >= keys.length
      ? apportion(
          size - keys.length,
          sizes.map((n) => n - 1),
          tieRank,
        ).map((extra) => extra + 1)
      : apportion(size, sizes, tieRank);
  const chosen = new Set<Sample>();
  keys.forEach((key, i) => {
    const members = shuffled(strata.get(key) as Sample[], seededRandom(seed, `sample\u0000${key}`));
    for (const s of members.slice(0, take[i])) chosen.add(s);
  });
  return samples.filter((s) => chosen.has(s));
}

/** Filters, then the stratified sample, then the limit: the samples a run works. */
export function selectSamples(samples: readonly Sample[], sel: Selection): Sample[] {
  let out = filterSamples(samples, sel);
  if (sel.sample) out = stratifiedSample(out, sel.sample.size, sel.sample.seed, sel.scenarios);
  return sel.limit !== undefined ? out.slice(0, sel.limit) : out;
}

/** Whether a repository a run needs is there. */
export type RepositoryStatus = "present" | "missing" | "not a repository";

interface PlannedRepository {
  /** `owner/repo` as the samples name it. */
  name: string;
  /** Where the run looks for it (null when the sample's name cannot be a clone path). */
  path: string | null;
  status: RepositoryStatus;
  /** Samples of the run from this repository. */
  samples: number;
}

/** What a run would do, without doing it (`--dry-run`). */
interface RunPlan {
  samples: number;
  /** Sample × scenario pairs the agent works, before memory variants. */
  pairs: number;
  /** 2 with `--memory` (every pair without and with the memory tools), else 1. */
  variants: number;
  /** `--repeats`: runs of every pair and variant. */
  repeats: number;
  /** Attempts to run: pairs × variants × repeats. */
  attempts: number;
  /** Sample × scenario pairs the agent does not work (baselines are scenario-specific). */
  unsupported: number;
  /** Attempts per scenario (report order) and difficulty. */
  byScenario: { scenario: string; counts: Record<Difficulty, number>; total: number }[];
  repositories: PlannedRepository[];
  modelCalls: {
    /** At most: attempts × turn budget, when the agent calls a model (null when it does not, or not through gitgood). */
    agent: number | null;
    /** At most: judged attempts × judges × calls per judge. */
    judge: number;
    judgedAttempts: number;
    callsPerJudge: number;
  };
}

async function repositoryStatus(dir: string): Promise<RepositoryStatus> {
  try {
    if (!statSync(dir).isDirectory()) return "not a repository";
  } catch {
    return "missing";
  }
  try {
    await Repo.open(dir);
    return "present";
  } catch {
    return "not a repository";
  }
}

/** Where each repository of `samples` is looked for, and whether it is there. */
async function plannedRepositories(samples: readonly Sample[], where: RepoLocator): Promise<PlannedRepository[]> {
  const byName = new Map<string, { sample: Sample; count: number }>();
  for (const s of samples) {
    const seen = byName.get(s.name);
    if (seen) seen.count++;
    else byName.set(s.name, { sample: s, count: 1 });
  }
  const out: PlannedRepository[] = [];
  for (const [name, { sample, count }] of [...byName].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    let dir: string | null;
    try {
      dir = repositoryPath(where, sample);
    } catch (err) {
      const code = toGitGoodError(err).code;
      if (code !== "REPO_NOT_FOUND" && code !== "BAD_SAMPLE") throw err;
      dir = code === "REPO_NOT_FOUND" && "repos" in where ? clonePath(where.repos, name) : null;
    }
    out.push({ name, path: dir, status: dir === null ? "missing" : await repositoryStatus(dir), samples: count });
  }
  return out;
}

interface PlanOptions {
  agent: Agent;
  /** The model the agent calls through gitgood (the llm agent), if any. */
  agentModel: string | null;
  scenarios?: readonly string[];
  memory?: boolean;
  repeats?: number;
  maxTurns: number;
  /** Judge model names. */
  judges: readonly string[];
  where: RepoLocator;
  /** `--shard K/N`: the plan of that part of the run. */
  shard?: Shard;
}

/** The plan of a run over `samples` (already selected): attempts, repositories, model calls to expect. */
export async function planRun(samples: readonly Sample[], opts: PlanOptions): Promise<RunPlan> {
  const repeats = opts.repeats ?? 1;
  const planned = planJobs(samples, opts.agent, { scenarios: opts.scenarios, memory: opts.memory, repeats });
  const { unsupported } = planned;
  const jobs = opts.shard ? shardJobs(planned.jobs, opts.shard) : planned.jobs;
  const rows = new Map<string, Record<Difficulty, number>>();
  let judgedAttempts = 0;
  let callsPerJudge = 0;
  for (const job of jobs) {
    const counts = rows.get(job.scenario.name) ?? { easy: 0, medium: 0, hard: 0 };
    counts[job.sample.difficulty]++;
    rows.set(job.scenario.name, counts);
    const calls = job.scenario.scorers.reduce((n, s) => n + (s.maxCallsPerJudge ?? 0), 0);
    if (calls > 0 && opts.judges.length > 0) {
      judgedAttempts++;
      callsPerJudge = Math.max(callsPerJudge, calls);
    }
  }
  const byScenario = [...rows]
    .sort(([a], [b]) => reportRank(a) - reportRank(b))
    .map(([scenario, counts]) => ({ scenario, counts, total: DIFFICULTIES.reduce((n, d) => n + counts[d], 0) }));
  const variants = opts.memory ? 2 : 1;
  return {
    samples: samples.length,
    pairs: Math.ceil(jobs.length / (variants * repeats)),
    variants,
    repeats,
    attempts: jobs.length,
    unsupported,
    byScenario,
    repositories: await plannedRepositories(samples, opts.where),
    modelCalls: {
      agent: opts.agentModel ? jobs.length * opts.maxTurns : null,
      judge: judgedAttempts * opts.judges.length * callsPerJudge,
      judgedAttempts,
      callsPerJudge,
    },
  };
}

function table(rows: string[][]): string[] {
  const widths = (rows[0] ?? []).map((_, c) => Math.max(...rows.map((r) => (r[c] ?? "").length)));
  return rows.map((r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c] ?? 0) : cell.padStart(widths[c] ?? 0))).join("  ").trimEnd());
}

/** The plan for people: what `--dry-run` prints. */
export function formatPlan(plan: RunPlan, opts: { agent: string; maxTurns: number; judges: readonly string[]; runDir: string }): string {
  const lines: string[] = [];
  const memory = plan.variants > 1 ? ` × ${plan.variants} (without and with memory)` : "";
  const repeats = plan.repeats > 1 ? ` × ${plan.repeats} repeats` : "";
  lines.push(`plan: ${plan.samples} samples × their scenarios = ${plan.pairs} sample × scenario pairs${memory}${repeats} = ${plan.attempts} attempts (agent ${opts.agent})`);
  if (plan.unsupported > 0) lines.push(`skipped: ${plan.unsupported} pair(s) agent ${opts.agent} does not work`);
  lines.push("");
  const rows = [["scenario", ...DIFFICULTIES, "total"]];
  for (const r of plan.byScenario) rows.push([r.scenario, ...DIFFICULTIES.map((d) => String(r.counts[d])), String(r.total)]);
  rows.push(["total", ...DIFFICULTIES.map((d) => String(plan.byScenario.reduce((n, r) => n + r.counts[d], 0))), String(plan.attempts)]);
  lines.push(...table(rows));
  lines.push("");
  lines.push(`repositories: ${plan.repositories.length}`);
  const nameWidth = Math.max(0, ...plan.repositories.map((r) => r.name.length));
  for (const r of plan.repositories) {
    lines.push(`  ${r.name.padEnd(nameWidth)}  ${r.status.padEnd(16)}  ${String(r.samples).padStart(4)} samples  ${r.path ?? "(not an owner/repo name)"}`);
  }
  lines.push("");
  const m = plan.modelCalls;
  lines.push(
    m.agent === null
      ? `model calls by the agent: none through gitgood (agent ${opts.agent})`
      : `model calls by the agent: at most ${m.agent} (${plan.attempts} attempts × --max-turns ${opts.maxTurns})`,
  );
  lines.push(
    opts.judges.length === 0
      ? "judge calls: none (no --judge)"
      : m.judgedAttempts === 0
        ? "judge calls: none (no attempt of a judged scenario)"
        : `judge calls: at most ${m.judge} (${m.judgedAttempts} judged attempts × ${opts.judges.length} judge(s) × ${m.callsPerJudge} calls)`,
  );
  lines.push(`dry run: nothing was run, ${opts.runDir} was not created`);
  return lines.join("\n");
}
