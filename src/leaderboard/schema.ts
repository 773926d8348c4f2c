import { z } from "zod";

/** Version of the leaderboard's JSON layout (`leaderboard.json`); bumped on any incompatible change. */
export const LEADERBOARD_SCHEMA_VERSION = 1;

const count = z.number().int().nonnegative();

const CostPerSolvedSchema = z
  .object({
    usd: z.number().nonnegative(),
    low: z.number().nonnegative(),
    high: z.number().nonnegative(),
    attempts: count.describe("attempts counted: those whose spend is known"),
    solved: count,
  })
  .describe("spend (agent and judges) per solved task, US dollars, with its 95 % interval (a ratio estimator over attempts)");

/** Whether a row's tasks can have been in its model's training data, as far as `models.yaml` says. */
const CONTAMINATION = ["no_model", "cutoff_known", "cutoff_unknown"] as const;

/** One agent of one run in one view: every number the leaderboard shows of it. */
const EntrySchema = z
  .object({
    rank: z.number().int().min(1).nullable().describe("place by solve rate, best first; ties share one (null: no solve rate to rank by)"),
    run: z.string().describe("the run's label (its directory's name)"),
    agent: z.string().describe("the agent's name as the run's records give it"),
    name: z.string().describe("the row's name as the tables show it: the run's label, with the agent when the run has several"),
    model: z.string().nullable().describe("the agent's model, run.json's identity.model.name (null: an agent that asks no model)"),
    cutoff: z.string().nullable().describe("the model's training cut-off from models.yaml (null: no model, or none stated)"),
    contamination: z.enum(CONTAMINATION).describe("no_model: cannot be contaminated; cutoff_known: models.yaml gives the cut-off; cutoff_unknown: it does not"),
    tasks: count.describe("distinct sample × scenario pairs counted"),
    attempts: count.describe("attempts at them, every repeat"),
    excluded_tasks: count.describe("tasks of the view left out for this row: dated on or before its model's cut-off, or undated (after_cutoff views only)"),
    k: count.describe("the fewest attempts of any counted task: pass@k is given for k = 1 … this"),
    solved: count.describe("attempts solved"),
    unjudged: count.describe("attempts finished but not judged; with any, no solve rate is given"),
    solve_rate: z.number().nullable().describe("mean over tasks of each one's share of solved attempts, percent"),
    standard_error: z.number().nullable().describe("standard error of that mean over the tasks, percentage points (null below two tasks)"),
    pass_at_k: z.record(z.string(), z.number()).nullable().describe("pass@k in percent by k, the unbiased estimator averaged over tasks"),
    cost_usd: z.number().nullable().describe("what the agent and its judges spent in all, US dollars (null: some attempt's cost is unknown)"),
    cost_per_attempt_usd: z.number().nullable().describe("mean spend per attempt, US dollars (null: some attempt's cost is unknown)"),
    cost_unknown: count.describe("attempts whose cost is unknown: usage not measured, or no price for the model"),
    cost_per_solved: CostPerSolvedSchema.nullable(),
    usage_unknown: count.describe("attempts whose token usage was not measured: their tokens are in no figure"),
    tokens: z.object({ prompt: count, completion: count }).describe("tokens over the attempts whose usage is known"),
    tokens_per_attempt: z.number().nullable().describe("mean prompt + completion tokens per attempt whose usage is known (null: none is)"),
    seconds_per_attempt: z.number().nullable().describe("mean wall time of an attempt"),
    tool_calls_per_attempt: z.number().nullable().describe("mean tool calls per attempt: the agent's Git operations (each built-in tool call, each recorded command)"),
    history_probes: z
      .object({ audited: count, probing: count, probes: count, rate: z.number().nullable() })
      .describe("the history-probe audit: attempts audited, those that probed, probes made, and probing / audited in percent"),
    pareto: z.boolean().describe("on the view's cost–solve Pareto front: no other row is as cheap per attempt and solves as much, one of them strictly"),
  })
  .describe("one agent of one run in one view");
export type LeaderboardEntry = z.infer<typeof EntrySchema>;

/** What tasks a view counts: all of them, or for each row only those dated after its model's cut-off. */
export const TASK_FILTERS = ["all", "after_cutoff"] as const;
export type TaskFilter = (typeof TASK_FILTERS)[number];

const ViewSchema = z
  .object({
    family: z.string().nullable().describe("the family counted (null: every family)"),
    repository: z.string().nullable().describe("the repository counted (null: every repository)"),
    tasks: z.enum(TASK_FILTERS).describe("all: every task; after_cutoff: for each row only the tasks dated after its model's cut-off"),
    entries: z.array(EntrySchema).describe("the rows, best first"),
  })
  .describe("the rows for one choice of the filters");
export type LeaderboardView = z.infer<typeof ViewSchema>;

const TaskSchema = z
  .object({
    sample_id: z.string(),
    scenario: z.string(),
    family: z.string(),
    repository: z.string(),
    date: z.string().nullable().describe("the sample's scenario.committed_at, else its scenario.created_at (null: it says neither)"),
    possibly_contaminated_for: z.array(z.string()).describe("models of the ranked runs whose cut-off (models.yaml) is on or after this date"),
  })
  .describe("one task (sample × scenario) of the runs");
export type LeaderboardTask = z.infer<typeof TaskSchema>;

export const LeaderboardSchema = z.object({
  schema_version: z.literal(LEADERBOARD_SCHEMA_VERSION),
  title: z.string(),
  gitgood_version: z.string().describe("the gitgood version that wrote the leaderboard"),
  runs: z.array(
    z.object({
      label: z.string(),
      agents: z.array(z.string()),
      model: z.string().nullable(),
      samples_digest: z.string().nullable().describe("what the run's samples are, run.json's identity.samples_digest (null in runs made before it)"),
      repeats: z.number().int().min(1),
    }),
  ),
  mixed: z.array(z.string()).nullable().describe("what differs between the runs, one line each, when they were ranked anyway (--allow-mixed); null when nothing does"),
  models: z.array(z.object({ model: z.string(), cutoff: z.string() })).describe("models.yaml: each model's training cut-off"),
  families: z.array(z.string()),
  repositories: z.array(z.string()),
  tasks: z.array(TaskSchema),
  views: z.array(ViewSchema).describe("one per family (and all) × repository (and all) × task filter, where that family has tasks from that repository"),
});
/** The leaderboard as `leaderboard.json` holds it and the page draws it. */
export type Leaderboard = z.infer<typeof LeaderboardSchema>;

/** The leaderboard's JSON Schema (draft 2020-12), as docs/leaderboard.schema.json publishes it. */
export function leaderboardJsonSchema(): Record<string, unknown> {
  return { title: "gitgood leaderboard", description: "leaderboard.json, written by gitgood leaderboard (docs/leaderboard.md)", ...z.toJSONSchema(LeaderboardSchema, { target: "draft-2020-12" }) };
}
