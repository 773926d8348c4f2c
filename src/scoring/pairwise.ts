import type { ChainSample } from "../dataset/sample.js";
import { gitQuotedPath, parsePath } from "../git/paths.js";
import type { Repo } from "../git/repo.js";
import type { HistoryOutcome } from "./history.js";
import { judgeHistories, type JudgedCommit, type JudgeOptions } from "./judge.js";
import type { Scorer } from "./scorer.js";

/** How the pairwise judge scorer shows the histories to the judges. */
export interface PairwiseOptions extends JudgeOptions {
  /** Show the judge only the chain file's part of each commit, as the paper's ICC judge sees it. */
  chainFileOnly?: boolean;
}

/** The sections of a patch that change `file` (a path notation), by their `diff --git` header. */
function patchOfFile(diff: string, file: string): string {
  const bytes = parsePath(file);
  const header = `diff --git ${gitQuotedPath(Buffer.concat([Buffer.from("a/"), bytes]))} ${gitQuotedPath(Buffer.concat([Buffer.from("b/"), bytes]))}`;
  return diff
    .split(/^(?=diff --git )/m)
    .filter((section) => section.slice(0, section.indexOf("\n")) === header)
    .join("");
}

/**
 * The pairwise judge as a scorer: the agent's history against the original chain (read from the source
 * repository by `original`). It applies only when judge models are given; the task counts as solved
 * when the history is finished and the judges prefer it.
 */
export function pairwiseJudge(
  original: (source: Repo, sample: ChainSample) => Promise<JudgedCommit[]>,
  opts: PairwiseOptions = {},
): Scorer<ChainSample, HistoryOutcome> {
  return {
    name: "judge",
    // Two orders, each asked again once when the answer is not valid JSON.
    maxCallsPerJudge: 4,
    async score(sample, final, ctx) {
      if (ctx.judges.length === 0) return null;
      const shown = (commits: readonly JudgedCommit[]): JudgedCommit[] =>
        commits.map((c) => ({ oid: c.oid, author: c.author, message: c.message, diff: opts.chainFileOnly ? patchOfFile(c.diff, sample.scenario.file) : c.diff }));
      const verdict = await judgeHistories(ctx.judges, shown(await original(ctx.source, sample)), shown(final.commits), {
        contextTokens: opts.contextTokens,
        signal: ctx.signal,
      });
      const finished = final.done && final.pending === null;
      return { solved: finished && verdict.solved, value: { ...verdict } };
    },
  };
}
