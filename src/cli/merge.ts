import { Command } from "commander";
import { mergeRuns } from "../runs/merge.js";
import { escapeControls } from "../util/escape.js";
import type { CliIO } from "./io.js";

export function mergeCommand(io: CliIO): Command {
  return new Command("merge")
    .description("join the shards (run --shard K/N) or partial run directories of one run into a new run directory, one record per key")
    .argument("<out>", "the merged run directory: new, or an empty directory (never one of the inputs)")
    .argument("<run-dirs...>", "run directories of the same run (same samples, agent, model and settings)")
    .option("--json", "print the summary as JSON", false)
    .action((out: string, dirs: string[], flags: { json: boolean }) => {
      const summary = mergeRuns(out, dirs);
      if (flags.json) {
        io.stdout.write(`${JSON.stringify({ out, inputs: dirs.length, ...summary }, null, 2)}\n`);
        return;
      }
      const replaced = summary.errorsReplaced > 0 ? `; ${summary.errorsReplaced} error record(s) replaced by a later result` : "";
      io.stdout.write(`${escapeControls(`merged ${dirs.length} run directories into ${out}: ${summary.records} records${replaced}`)}\n`);
    });
}
