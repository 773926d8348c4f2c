import path from "node:path";
import { Command } from "commander";
import { GitGoodError } from "../errors.js";
import { leaderboardOf } from "../leaderboard/leaderboard.js";
import { readCutoffs } from "../leaderboard/models.js";
import { writeLeaderboardSite } from "../leaderboard/site.js";
import { formatLeaderboard } from "../leaderboard/text.js";
import { runLabels } from "../report/compare.js";
import { escapeControls } from "../util/escape.js";
import type { CliIO } from "./io.js";
import { runDirOf } from "./report.js";

interface LeaderboardFlags {
  out: string;
  models?: string;
  allowMixed: boolean;
  title: string;
}

export function leaderboardCommand(io: CliIO): Command {
  return new Command("leaderboard")
    .description("write a static leaderboard site (HTML and JSON) ranking runs over the same samples: solve rates, pass@k, cost, tokens, probes, contamination")
    .argument("<run-dir...>", "directories written by 'gitgood run' or 'gitgood bench' (--out), one per agent or model, over the same samples")
    .requiredOption("--out <dir>", "the site's directory: index.html and leaderboard.json are written there")
    .option("--models <file>", "a YAML file mapping model names to training cut-off dates (openai/gpt-4o: 2023-10-01): tasks dated on or before are marked possibly contaminated")
    .option("--allow-mixed", "rank runs that are not over the same samples and settings anyway, saying in the site what differs", false)
    .option("--title <text>", "the site's title", "gitgood leaderboard")
    .action((runDirs: string[], flags: LeaderboardFlags) => {
      const dirs = runDirs.map(runDirOf);
      const resolved = dirs.map((d) => path.resolve(d));
      const twice = runDirs.find((_, i) => resolved.indexOf(resolved[i] ?? "") !== i);
      if (twice !== undefined) throw new GitGoodError("BAD_OPTION", `the run directory ${twice} is given twice`);
      const labels = runLabels(runDirs);
      const cutoffs = flags.models === undefined ? new Map<string, string>() : readCutoffs(flags.models);
      const board = leaderboardOf(
        dirs.map((dir, i) => ({ dir, label: labels[i] ?? dir })),
        { title: flags.title, cutoffs, allowMixed: flags.allowMixed },
      );
      if (board.mixed) io.stderr.write(`${escapeControls(`ranked anyway (--allow-mixed); the runs differ:\n${board.mixed.map((d) => `  ${d}`).join("\n")}`)}\n`);
      io.stdout.write(`${escapeControls(formatLeaderboard(board))}\n`);
      for (const file of writeLeaderboardSite(flags.out, board)) io.stderr.write(`${escapeControls(`wrote ${file}`)}\n`);
    });
}
