import { toGitGoodError } from "../errors.js";
import { Repo } from "../git/repo.js";
import { verdictOf } from "../runs/result.js";
import type { ResultRecord } from "../runs/record.js";
import type { LiveScenario } from "../scenarios/index.js";
import { readSaved } from "../scenarios/shared/base.js";
import { runScorers, type Scored } from "../scoring/scorer.js";

/** The verdict of a finished live scenario, as a run would record it (without judges), and what decided it. */
export interface EnvVerdict {
  verdict: ResultRecord["verdict"];
  solved: boolean | null;
  scores: Scored["scores"];
  /** Why there is no yes or no: a scorer that failed, or none that decides without a judge. */
  note: string | null;
}

/** The first scorer error among `scores`, as one line. */
function scorerError(scores: Scored["scores"]): string | null {
  for (const [name, value] of Object.entries(scores)) {
    const error = (value as { error?: { code?: unknown; message?: unknown } } | null)?.error;
    if (error) return `scorer ${name} failed: ${String(error.code)}: ${String(error.message).split("\n")[0]}`;
  }
  return null;
}

/**
 * Scores the final state of a live scenario with its family's scorers, against the repository it was
 * set up from, as `gitgood run` scores an attempt; judges are not asked (IR and ICC histories stay unjudged).
 */
export async function envVerdict(scenario: LiveScenario, finalState: unknown, settings: Readonly<Record<string, unknown>>): Promise<EnvVerdict> {
  const def = scenario.definition;
  const parsed = def.finalSchema.safeParse(finalState);
  if (!parsed.success) return { verdict: "error", solved: null, scores: {}, note: `the ${def.name} final state does not match its schema` };
  let source: Repo;
  try {
    source = await Repo.open(readSaved(scenario.sandbox).source);
  } catch (err) {
    return { verdict: "error", solved: null, scores: {}, note: `the source repository cannot be read: ${toGitGoodError(err).message}` };
  }
  try {
    const scored = await runScorers(def.scorers, scenario.sample, parsed.data, { source, judges: [], settings });
    const failed = scorerError(scored.scores);
    if (failed) return { verdict: "error", solved: null, scores: scored.scores, note: failed };
    const note = scored.solved === null ? "no scorer decides without a judge; 'gitgood run --judge MODEL' asks one" : null;
    return { verdict: verdictOf(scored.solved), solved: scored.solved, scores: scored.scores, note };
  } finally {
    await source.close();
  }
}

/** The verdict as the line `env --finish` prints. */
export function verdictLine(v: EnvVerdict): string {
  return `verdict: ${v.verdict}${v.note === null ? "" : ` (${v.note})`}`;
}
