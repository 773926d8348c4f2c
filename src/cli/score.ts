import { Command } from "commander";
import { lookupModel } from "../model/lookup.js";
import type { RepoLocator } from "../dataset/clones.js";
import { GitGoodError } from "../errors.js";
import type { ResolvedConfig } from "../runs/config.js";
import { rescoreRun } from "../runs/rescore.js";
import type { Prices } from "../model/prices.js";
import { resolvedConfig, withConfig } from "./config.js";
import { listOption, numberOption, type CliIO } from "./io.js";
import { writeReport } from "./report.js";
import { addModelOptions } from "./spec-options.js";
import { modelOptions } from "../runs/from-flags.js";

interface ScoreFlags {
  judge?: string[];
  repo?: string;
  repos?: string;
  json: boolean;
  priceIn?: number;
  priceOut?: number;
}

/**
 * The judges' prices per model name: the configuration's `prices:`, and `--price-in`/`--price-out` (both
 * or neither) for every judge, over the configuration's.
 */
function judgePrices(flags: ScoreFlags, judges: readonly string[], config: ResolvedConfig): Record<string, Prices> {
  if (flags.priceIn === undefined && flags.priceOut === undefined) return config.prices;
  if (flags.priceIn === undefined || flags.priceOut === undefined) {
    throw new GitGoodError("BAD_OPTION", "give both --price-in and --price-out (US dollars per million prompt and completion tokens of the judges)");
  }
  const given: Prices = { input: flags.priceIn, output: flags.priceOut };
  return { ...config.prices, ...Object.fromEntries(judges.map((j) => [j, given])) };
}

export function scoreCommand(io: CliIO): Command {
  const cmd = addModelOptions(new Command("score"))
    .description("score a finished run again from its saved final states (other judges, newer scorers), running no agent")
    .argument("<run-dir>", "directory written by 'gitgood run', 'bench' or 'mcp'")
    .option("--judge <models>", "judge models for IR/ICC, comma-separated (none: the deterministic checks only)", listOption)
    .option("--repo <path>", "the repository the samples come from (default: the one the run used)")
    .option("--repos <dir>", "directory of clones at DIR/owner/repo (default: the one the run used)")
    .option("--price-in <usd>", "price per million prompt tokens of every judge (to record judge cost; default: the configuration's prices)", numberOption("--price-in", 0, 1e6))
    .option("--price-out <usd>", "price per million completion tokens of every judge", numberOption("--price-out", 0, 1e6))
    .option("--json", "print the report as JSON", false);
  return withConfig(cmd, "score").action(async (runDir: string, flags: ScoreFlags, command: Command) => {
    if (flags.repo && flags.repos) throw new GitGoodError("BAD_OPTION", "give at most one of --repo and --repos");
    const where: RepoLocator | undefined = flags.repo ? { repo: flags.repo } : flags.repos ? { repos: flags.repos } : undefined;
    const models = modelOptions(flags);
    const judges = (flags.judge ?? []).map((m) => lookupModel(m, models));
    const modelPrices = judgePrices(flags, judges.map((j) => j.model), resolvedConfig(command));
    const summary = await rescoreRun(runDir, { judges, where, modelPrices });
    io.stderr.write(`re-scored ${summary.rescored} attempt(s) in ${runDir}; ${summary.skipped} had nothing to score again\n`);
    writeReport(runDir, { json: flags.json }, io);
  });
}
