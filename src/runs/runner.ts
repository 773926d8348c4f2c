import { existsSync } from "node:fs";
import path from "node:path";
import { AgentSession, toolProvider, type Agent, type ToolProvider } from "../agents/agent.js";
import type { ModelClient } from "../agents/model.js";
import type { ChainSample, MergeSample, Sample } from "../dataset/sample.js";
import { GitGoodError, toGitGoodError } from "../errors.js";
import { Repo } from "../git/repo.js";
import { kindsOf, openScenario, setupScenario } from "../scenarios/index.js";
import { commitDiff, firstParentLine, readCommit } from "../scenarios/shared/commits.js";
import type { FinalState, LiveScenario, ScenarioKind } from "../scenarios/types.js";
import { checkHistory } from "../scoring/history.js";
import { judgeHistories, type JudgedCommit } from "../scoring/judge.js";
import { scoreMerge } from "../scoring/merge.js";
import { MEMORY_TOOLS, scratchMemory } from "../memory/tools.js";
import { mapPool } from "../util/pool.js";
import { RESULTS_SCHEMA_VERSION, resultKey, type ResultRecord, type ScenarioLabel } from "./record.js";
import type { RunStore } from "./store.js";

export const LABELS: Record<ScenarioKind, ScenarioLabel> = { mcr: "MCR", ir: "IR", icc: "ICC" };

/** Where each sample's repository is: one repository for all, or `DIR/owner/repo` clones. */
export type RepoLocator = { repo: string } | { repos: string };

export function repositoryPath(where: RepoLocator, sample: Sample): string {
  if ("repo" in where) return where.repo;
  const [owner, name] = sample.name.split("/");
  if (!owner || !name || owner === ".." || name === "..") {
    throw new GitGoodError("BAD_SAMPLE", `sample ${sample.id} names no owner/repo: '${sample.name}'`);
  }
  for (const candidate of [path.join(where.repos, owner, name), path.join(where.repos, owner, `${name}.git`)]) {
    if (existsSync(candidate)) return candidate;
  }
  throw new GitGoodError("REPO_NOT_FOUND", `no clone of ${sample.name} under ${where.repos} (expected ${owner}/${name})`, {
    name: sample.name,
  });
}

export interface Prices {
  /** US dollars per million prompt tokens. */
  input: number;
  /** US dollars per million completion tokens. */
  output: number;
}

export interface RunOptions {
  samples: readonly Sample[];
  where: RepoLocator;
  agent: Agent;
  store: RunStore;
  jobs: number;
  /** Per sample × scenario, seconds. */
  timeoutSeconds: number;
  maxTurns: number;
  judges: readonly ModelClient[];
  prices?: Prices;
  /** Run every scenario twice: without and with the memory tools (agent name suffixed `+memory`). */
  memory?: boolean;
  /** Called when a sample × scenario finishes (or is skipped as already done). */
  onResult?: (record: ResultRecord, progress: { done: number; total: number; resumed: boolean }) => void;
}

export interface RunSummary {
  /** Sample × scenario pairs of the dataset the agent can work. */
  total: number;
  /** Run now. */
  ran: number;
  /** Found finished in the run directory. */
  resumed: number;
  /** Scenario kinds the agent does not work (baselines are scenario-specific). */
  unsupported: number;
  records: ResultRecord[];
}

interface Job {
  sample: Sample;
  kind: ScenarioKind;
  key: string;
  /** This run of the scenario offers the agent the memory tools. */
  memory: boolean;
}

/** The suffix that tells a with-memory run of a scenario from the plain one, in keys and agent names. */
export const MEMORY_VARIANT = "+memory";

function stats(session: AgentSession | null): Pick<RecordInput, "turns" | "toolCalls" | "tokens"> {
  return {
    turns: session?.turns ?? 0,
    toolCalls: session?.toolCalls ?? 0,
    tokens: { prompt: session?.usage.prompt_tokens ?? 0, completion: session?.usage.completion_tokens ?? 0 },
  };
}

function cost(tokens: { prompt: number; completion: number }, prices?: Prices): number | null {
  if (!prices) return null;
  return Math.round(((tokens.prompt * prices.input + tokens.completion * prices.output) / 1e6) * 1e6) / 1e6;
}

/** The chain's original commits (message and diff), oldest first, read in the sandbox. */
async function originalHistory(scenario: LiveScenario, sample: ChainSample): Promise<JudgedCommit[]> {
  const line = await firstParentLine(scenario.sandbox, sample.scenario.newest_commit, sample.scenario.times_seen_consecutively);
  const out: JudgedCommit[] = [];
  for (const oid of line) {
    const info = await readCommit(scenario.sandbox, oid);
    out.push({ message: info.message, diff: await commitDiff(scenario.sandbox, oid) });
  }
  return out;
}

export interface Scored {
  scores: Record<string, unknown>;
  /** null when an IR/ICC history was not judged. */
  solved: boolean | null;
  /** The agent's result against the ground truth, as a diff (for reports). */
  groundTruthDiff: string;
}

/**
 * Scores a scenario's final state: MCR by exact match with the merge commit; IR/ICC by deterministic
 * checks, and by the pairwise judge when judges are given. Shared by `gitgood run` and the MCP server.
 */
export async function scoreFinal(
  sample: Sample,
  scenario: LiveScenario,
  final: FinalState,
  source: Repo,
  judges: readonly ModelClient[],
): Promise<Scored> {
  const diff = (from: string, to: string[]): Promise<string> =>
    scenario.sandbox.text(["diff", "--no-color", "--no-ext-diff", from, ...to]);
  if (final.kind === "mcr") {
    const merge = sample as MergeSample;
    const s = await scoreMerge(merge, final, source);
    const files = final.files.map((f) => f.path);
    return { scores: { ...s }, solved: s.solved, groundTruthDiff: await diff(merge.scenario.merge_commit_hash, ["--", ...files]) };
  }
  const chain = sample as ChainSample;
  const checks = await checkHistory(chain, final, source);
  const scores: Record<string, unknown> = { checks };
  let solved: boolean | null = null;
  if (judges.length > 0) {
    const verdict = await judgeHistories(
      judges,
      await originalHistory(scenario, chain),
      final.commits.map((c) => ({ message: c.message, diff: c.diff })),
    );
    scores.judge = verdict;
    solved = checks.finished && verdict.solved;
  }
  return { scores, solved, groundTruthDiff: await diff(chain.scenario.newest_commit, [final.head]) };
}

export interface RecordInput {
  sample: Sample;
  kind: ScenarioKind;
  agent: string;
  startedAt: Date;
  durationMs: number;
  turns: number;
  toolCalls: number;
  tokens: { prompt: number; completion: number };
  prices?: Prices;
  /** Path of the trajectory file, relative to the run directory. */
  trajectory: string | null;
  /** The agent had the memory tools (a `--memory` run's second pass). */
  memory?: boolean;
  outcome: { scored: Scored } | { error: GitGoodError };
}

/** The results record of one sample × scenario (shared by `gitgood run` and the MCP server). */
export function resultRecord(r: RecordInput): ResultRecord {
  const label = LABELS[r.kind];
  const variant = r.memory ? MEMORY_VARIANT : "";
  const common = {
    schema_version: RESULTS_SCHEMA_VERSION as typeof RESULTS_SCHEMA_VERSION,
    key: `${resultKey(r.sample.id, label)}${variant}`,
    sample_id: r.sample.id,
    scenario: label,
    repository: r.sample.name,
    difficulty: r.sample.difficulty,
    agent: `${r.agent}${variant}`,
    turns: r.turns,
    tool_calls: r.toolCalls,
    tokens: r.tokens,
    cost_usd: cost(r.tokens, r.prices),
    started_at: r.startedAt.toISOString(),
    duration_ms: r.durationMs,
    trajectory: r.trajectory,
  };
  if ("error" in r.outcome) {
    const e = r.outcome.error;
    return { ...common, status: "error", solved: false, verdict: "error", scores: {}, error: { code: e.code, message: e.message } };
  }
  const { scores, solved } = r.outcome.scored;
  return {
    ...common,
    status: "success",
    solved,
    verdict: solved === null ? "unjudged" : solved ? "solved" : "unsolved",
    scores,
    error: null,
  };
}

/** Runs the agent on one scenario in its own sandbox and scores the outcome. Never throws. */
async function runJob(job: Job, opts: RunOptions): Promise<ResultRecord> {
  const startedAt = new Date();
  const t0 = Date.now();
  const label = LABELS[job.kind];
  let session: AgentSession | null = null;
  const trajectory: Record<string, unknown> = {
    sample_id: job.sample.id,
    scenario: label,
    agent: `${opts.agent.name}${job.memory ? MEMORY_VARIANT : ""}`,
  };
  const finish = (outcome: RecordInput["outcome"]): ResultRecord =>
    resultRecord({
      ...stats(session),
      sample: job.sample,
      kind: job.kind,
      agent: opts.agent.name,
      startedAt,
      durationMs: Date.now() - t0,
      prices: opts.prices,
      trajectory: opts.store.writeTrajectory(job.key, trajectory),
      memory: job.memory,
      outcome,
    });
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), opts.timeoutSeconds * 1000);
  try {
    const source = await Repo.open(repositoryPath(opts.where, job.sample));
    const scenario = await setupScenario(job.sample, source, { kind: job.kind });
    try {
      const context = await scenario.initialContext();
      trajectory.context = context.data;
      let extra: ToolProvider | null = null;
      if (job.memory) {
        const goal = `${context.text.split("\n")[0] ?? "Solve the scenario"} Finish the task with the scenario's tools.`;
        extra = toolProvider(MEMORY_TOOLS, await scratchMemory(scenario.sandbox.privatePath("memory"), goal));
      }
      session = new AgentSession(scenario, context, opts.maxTurns, controller.signal, extra);
      const timedOut = new Promise<never>((_, reject) =>
        controller.signal.addEventListener("abort", () =>
          reject(new GitGoodError("TIMEOUT", `the agent did not finish within ${opts.timeoutSeconds} s`)),
        ),
      );
      const work = opts.agent.run(session);
      work.catch(() => undefined); // after a time-out its late failure is of no interest
      await Promise.race([work, timedOut]);
      // An agent that acted through `gitgood tool` changed the scenario's saved state, not this object's.
      const live = session.stateChangedOutside ? await openScenario(scenario.sandbox.dir) : scenario;
      const final = await live.finalState();
      trajectory.final = final;
      const scored = await scoreFinal(job.sample, live, final, source, opts.judges);
      trajectory.ground_truth_diff = scored.groundTruthDiff;
      trajectory.events = session.events;
      trajectory.scores = scored.scores;
      return finish({ scored });
    } finally {
      controller.abort();
      scenario.close();
    }
  } catch (err) {
    const e = toGitGoodError(err);
    trajectory.events = session?.events ?? [];
    trajectory.error = e.toJSON();
    return finish({ error: e });
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs an agent over a dataset: every sample × scenario the agent works, `jobs` at a time, each in its
 * own sandbox with a time limit. Records are appended as each finishes; pairs already in the run
 * directory are skipped, so re-running the same command resumes an interrupted run.
 */
export async function runBenchmark(opts: RunOptions): Promise<RunSummary> {
  const jobs: Job[] = [];
  let unsupported = 0;
  for (const sample of opts.samples) {
    for (const kind of kindsOf(sample)) {
      if (!opts.agent.supports(kind)) {
        unsupported++;
        continue;
      }
      for (const memory of opts.memory ? [false, true] : [false]) {
        jobs.push({ sample, kind, memory, key: `${resultKey(sample.id, LABELS[kind])}${memory ? MEMORY_VARIANT : ""}` });
      }
    }
  }
  const todo = jobs.filter((j) => !opts.store.has(j.key));
  const resumed = jobs.length - todo.length;
  let done = 0;
  for (const j of jobs) {
    if (!opts.store.has(j.key)) continue;
    done++;
    const r = opts.store.all().find((x) => x.key === j.key);
    if (r) opts.onResult?.(r, { done, total: jobs.length, resumed: true });
  }
  for await (const record of mapPool(todo, opts.jobs, (j) => runJob(j, opts))) {
    opts.store.append(record);
    done++;
    opts.onResult?.(record, { done, total: jobs.length, resumed: false });
  }
  const keys = new Set(jobs.map((j) => j.key));
  return {
    total: jobs.length,
    ran: todo.length,
    resumed,
    unsupported,
    records: opts.store.all().filter((r) => keys.has(r.key)),
  };
}
