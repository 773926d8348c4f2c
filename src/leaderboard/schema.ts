import { z } from "zod";

/** Version of the leaderboard's JSON layout (`leaderboard.json`); bumped on any incompatible change. */
export const LEADERBOARD_SCHEMA_VERSION = 1;

const count = z.number().int().nonnegative();

/** Spend per solved task with its 95 % interval (src/report/cost-per-solved.ts). */
const CostPerSolvedSchema = z.object({
  usd: z.number().nonnegative(),
  low: z.number().nonnegative(),
  high: z.number().nonnegative(),
  /** Attempts counted: those whose cost is known. */
  attempts: count,
  solved: count,
});

/** Whether a row's tasks can have been in its model's training data, as far as `models.yaml` says. */
export const CONTAMINATION = ["no_model", "cutoff_known", "cutoff_unknown"] as const;

/** One agent of one run in one view: every number the leaderboard shows of it. */
const EntrySchema = z.object({
  /** Place by solve rate, best first (null: no solve rate to rank by). */
  rank: z.number().int().min(1).nullable(),
  /** The run's label and the agent's name as the run recorded it; `name` is what the tables show. */
  run: z.string(),
  agent: z.string(),
  name: z.string(),
  /** The agent's model (run.json's `identity.model.name`; null: an agent that asks no model). */
  model: z.string().nullable(),
  /** The model's training cut-off from models.yaml (null: no model, or none stated). */
  cutoff: z.string().nullable(),
  contamination: z.enum(CONTAMINATION),
  /** Distinct sample × scenario pairs counted, and the attempts at them (every repeat). */
  tasks: count,
  attempts: count,
  /** Tasks of the view left out for this row: dated on or before its model's cut-off, or undated (the after-cut-off view only). */
  excluded_tasks: count,
  /** Fewest attempts of any counted task: pass@k is given for k = 1 … this. */
  k: count,
  solved: count,
  unjudged: count,
  /** Mean over tasks of each one's share of solved attempts, in percent (null: nothing counted, or unjudged attempts). */
  solve_rate: z.number().nullable(),
  /** Standard error of that mean over the tasks, in percentage points (null below two tasks). */
  standard_error: z.number().nullable(),
  /** pass@k in percent, k = 1 … `k`, averaged over the tasks. */
  pass_at_k: z.record(z.string(), z.number()).nullable(),
  /** What the agent and its judges spent in all, US dollars (null: some attempt's cost is unknown). */
  cost_usd: z.number().nullable(),
  /** Mean spend per attempt, US dollars (null: some attempt's cost is unknown). */
  cost_per_attempt_usd: z.number().nullable(),
  /** Attempts whose cost is unknown: usage not measured, or no price for the model. */
  cost_unknown: count,
  cost_per_solved: CostPerSolvedSchema.nullable(),
  /** Attempts whose token usage was not measured: their tokens are in no figure. */
  usage_unknown: count,
  /** Tokens over the attempts whose usage is known. */
  tokens: z.object({ prompt: count, completion: count }),
  /** Mean tokens (prompt + completion) per attempt whose usage is known (null: none is). */
  tokens_per_attempt: z.number().nullable(),
  seconds_per_attempt: z.number().nullable(),
  /** Mean tool calls per attempt: the agent's Git operations (each built-in tool call, each recorded command). */
  tool_calls_per_attempt: z.number().nullable(),
  /** The history-probe audit (docs/history-probes.md): attempts audited, those that probed, probes made, probing/audited. */
  history_probes: z.object({ audited: count, probing: count, probes: count, rate: z.number().nullable() }),
  /** On the cost–solve Pareto front of its view: no other row solves as much or more for as little or less, one of them strictly. */
  pareto: z.boolean(),
});
export type LeaderboardEntry = z.infer<typeof EntrySchema>;

/** What tasks a view counts: all of them, or for each row only those dated after its model's cut-off. */
export const TASK_FILTERS = ["all", "after_cutoff"] as const;
export type TaskFilter = (typeof TASK_FILTERS)[number];

/** The rows for one choice of the filters. */
const ViewSchema = z.object({
  /** The family counted (null: every family). */
  family: z.string().nullable(),
  /** The repository counted (null: every repository). */
  repository: z.string().nullable(),
  tasks: z.enum(TASK_FILTERS),
  /** Best first. */
  entries: z.array(EntrySchema),
});
export type LeaderboardView = z.infer<typeof ViewSchema>;

/** One task (sample × scenario) of the runs, with its date and the models it is possibly contaminated for. */
const TaskSchema = z.object({
  sample_id: z.string(),
  scenario: z.string(),
  family: z.string(),
  repository: z.string(),
  /** The task's date: its sample's `scenario.committed_at` (else `scenario.created_at`), null when the sample says neither. */
  date: z.string().nullable(),
  /** Models (of the ranked runs, with a cut-off in models.yaml) whose cut-off is on or after this date. */
  possibly_contaminated_for: z.array(z.string()),
});
export type LeaderboardTask = z.infer<typeof TaskSchema>;

export const LeaderboardSchema = z.object({
  schema_version: z.literal(LEADERBOARD_SCHEMA_VERSION),
  title: z.string(),
  gitgood_version: z.string(),
  runs: z.array(
    z.object({
      label: z.string(),
      agents: z.array(z.string()),
      model: z.string().nullable(),
      /** What the run's samples are (run.json's `identity.samples_digest`; null in runs made before it). */
      samples_digest: z.string().nullable(),
      repeats: z.number().int().min(1),
    }),
  ),
  /** The runs are not over the same samples or settings and were ranked anyway (`--allow-mixed`): what differs, one line each. */
  mixed: z.array(z.string()).nullable(),
  /** models.yaml: each model's training cut-off. */
  models: z.array(z.object({ model: z.string(), cutoff: z.string() })),
  families: z.array(z.string()),
  repositories: z.array(z.string()),
  tasks: z.array(TaskSchema),
  views: z.array(ViewSchema),
});
/** The leaderboard as `leaderboard.json` holds it and the page draws it. */
export type Leaderboard = z.infer<typeof LeaderboardSchema>;

/** The leaderboard's JSON Schema (draft 2020-12), as docs/leaderboard.schema.json publishes it. */
export function leaderboardJsonSchema(): Record<string, unknown> {
  return { title: "gitgood leaderboard", ...z.toJSONSchema(LeaderboardSchema, { target: "draft-2020-12" }) };
}
