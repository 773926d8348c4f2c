import os from "node:os";
import path from "node:path";
import { Command, Option } from "commander";
import { PUBLISHED_SPLIT } from "../dataset/split.js";
import { GitGoodError } from "../errors.js";
import { buildRelease } from "../live/build.js";
import { readPins } from "../live/pins.js";
import { escapeControls } from "../util/escape.js";
import { dateOption } from "../util/options.js";
import { intOption, positiveIntOption, type CliIO } from "./io.js";

interface BuildFlags {
  since?: number;
  until?: number;
  out: string;
  clone: boolean;
  repos?: string;
  jobs: number;
  lite: number;
  full: number;
  seed: number;
  flakeRuns?: number;
  json: boolean;
}

function buildCommand(io: CliIO): Command {
  return new Command("build")
    .description("mine a dated release from pinned repositories: every family in the window, each task through the QA gate, a canary planted and checked, samples, splits and a manifest written to --out")
    .argument("<pins>", "YAML file listing repositories (name, commit, and a local path or --clone) — see docs/live.md")
    .requiredOption("--since <date>", "only tasks committed on or after this date (ISO 8601), e.g. a model's training cut-off", dateOption("--since"))
    .option("--until <date>", "only tasks committed on or before this date (default: each pin's newest commit)", dateOption("--until"))
    .requiredOption("-o, --out <dir>", "release directory: new, empty, or a previous release of the same pins")
    .option("--clone", "clone the repositories the pins give no path for (from the pins file's url_pattern) into --repos, as `gitgood worker --clone` does", false)
    .option("--repos <dir>", "with --clone: the folder of clones, owner/repo each (default: ~/.cache/gitgood/clones)")
    .addOption(new Option("-j, --jobs <n>", "repositories mined at once, and attempts of the QA gate at once").argParser(positiveIntOption("--jobs")).default(Math.max(1, os.availableParallelism()), "the number of cores"))
    .option("--lite <n>", "Lite samples per language and type in splits/ (scaled down to the smallest group)", intOption("--lite"), PUBLISHED_SPLIT.lite)
    .option("--full <n>", "full samples per language and type in splits/ (scaled down to the smallest group)", intOption("--full"), PUBLISHED_SPLIT.full)
    .option("--seed <n>", "seed of the split's draw", intOption("--seed"), 0)
    .option("--flake-runs <k>", "test-judged tasks (pins with an env_spec): runs of the start and of the gold in each validation; a candidate whose fail-to-pass tests vary between runs is dropped as flaky (default: mine's --runs default, 3)", positiveIntOption("--flake-runs"))
    .option("--json", "print the summary as JSON", false)
    .action(async (pinsFile: string, flags: BuildFlags) => {
      if (flags.until !== undefined && flags.since !== undefined && flags.until < flags.since) {
        throw new GitGoodError("BAD_OPTION", "--until is before --since: the window is empty");
      }
      const pins = readPins(pinsFile);
      const summary = await buildRelease({
        pins,
        window: { since: flags.since ?? null, until: flags.until ?? null },
        out: path.resolve(flags.out),
        clone: flags.clone,
        cacheDir: path.resolve(flags.repos ?? path.join(os.homedir(), ".cache", "gitgood", "clones")),
        jobs: flags.jobs,
        split: { lite: flags.lite, full: flags.full, seed: flags.seed },
        flakeRuns: flags.flakeRuns,
        onStep: (line) => io.stderr.write(`${escapeControls(line)}\n`),
      });
      if (flags.json) {
        io.stdout.write(`${JSON.stringify(summary)}\n`);
        return;
      }
      io.stdout.write(
        `${escapeControls(
          `release of ${count(summary.repositories, "repository", "repositories")} -> ${summary.out}: ${count(summary.samples, "sample")} kept, ` +
            `${summary.dropped} of ${summary.tasks} tasks dropped by the QA gate; canary not reached in ${summary.canary.sandboxes} sandboxes, ${summary.canary.test_sandboxes} test sandboxes and ${summary.canary.files} files`,
        )}\n`,
      );
    });
}

/** `gitgood live`: fresh, dated, leak-checked releases from pinned repositories. */
export function liveCommand(io: CliIO): Command {
  return new Command("live").description("build dated, contamination-checked releases of Git-work tasks from pinned repositories").addCommand(buildCommand(io));
}

/** `n` and the noun, singular for one. */
function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
