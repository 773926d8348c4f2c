import { Command, Option } from "commander";
import { sampleToJson, type SampleType } from "../dataset/sample.js";
import { DROP_REASONS } from "../mining/drops.js";
import { readMetadataFile } from "../mining/metadata.js";
import { DEFAULT_MINE_OPTIONS, mine, type MineProgress, type MineSummary } from "../mining/mine.js";
import type { FamilyMineType, MineMode } from "../families/command-line-types.js";
import { mineSummary, mineTypeHelp } from "./mine-text.js";
import { addOptions } from "./declared-options.js";
import { escapeControls } from "../util/escape.js";
import { writeOutputFile } from "../util/output.js";
import { dateOption } from "../util/options.js";
import { intOption, keywordListOption, numberOption, type CliIO, type Sink } from "./io.js";

interface MineFlags {
  type: SampleType | "all";
  name?: string;
  metadata?: string;
  languages: string[];
  maxConflicts: number;
  minChain: number;
  maxChain: number;
  minPurity: number;
  mediumPurity: number;
  filter: boolean;
  jobs: number;
  resolvableOnly: boolean;
  /** `--since`/`--until`, seconds since the epoch. */
  since?: number;
  until?: number;
  output?: string;
  json: boolean;
}

function formatSummary(s: MineSummary, samplesTo: string): string {
  const lines: string[] = [];
  const total = s.samples.merge.total + s.samples.file_commit_chain.total;
  lines.push(
    `mined ${total} samples from ${s.repository} (${s.commits} commits on ${s.branches} branches) -> ${samplesTo}`,
  );
  for (const type of ["merge", "file_commit_chain"] as const) {
    const c = s.samples[type];
    lines.push(`  ${type.padEnd(18)} ${String(c.total).padStart(6)}   easy ${c.easy}, medium ${c.medium}, hard ${c.hard}`);
  }
  for (const type of ["merge", "file_commit_chain"] as const) {
    const entries = Object.entries(s.dropped[type]).filter(([, n]) => (n ?? 0) > 0);
    if (entries.length === 0) continue;
    lines.push(`  dropped ${type} candidates:`);
    for (const [reason, n] of entries) {
      const why = (DROP_REASONS[type] as Record<string, string>)[reason] ?? "";
      lines.push(`    ${reason.padEnd(26)} ${String(n).padStart(6)}   ${why}`);
    }
  }
  if (s.filters) {
    for (const f of s.filters) {
      const value = f.value === null ? "unknown" : String(f.value);
      lines.push(`  filter ${f.filter.padEnd(16)} ${f.passed ? "pass" : "FAIL"}  ${value} (needs ${f.required})`);
    }
    if (s.excluded) lines.push("  repository excluded by --filter: no samples written");
  }
  if (s.unresolvable_left_out !== undefined) {
    lines.push(`  --resolvable-only left out ${s.unresolvable_left_out} merge samples that replacing conflict regions cannot reproduce`);
  }
  if (s.unreadable_commits > 0) lines.push(`  ${s.unreadable_commits} commits could not be read (missing objects): skipped`);
  for (const w of s.warnings) lines.push(`warning: ${w}`);
  return lines.join("\n");
}

/**
 * A progress line redrawn in place on a terminal (`\r`, cleared at the end); nothing at all when
 * stderr is not a terminal.
 */
function progressLine(stderr: Sink): { update?: (p: MineProgress) => void; clear: () => void } {
  if (stderr.isTTY !== true) return { clear: () => undefined };
  let drawn = false;
  return {
    update: (p) => {
      const parts: string[] = [];
      if (p.merges.total > 0) parts.push(`merges ${p.merges.done}/${p.merges.total}`);
      if (p.commits.total > 0) parts.push(`commits ${p.commits.done}/${p.commits.total}`);
      stderr.write(`\r\x1b[2Kmining: ${parts.join(", ")}`);
      drawn = true;
    },
    clear: () => {
      if (drawn) stderr.write("\r\x1b[2K");
    },
  };
}

/** A family's mode of `gitgood mine --type`, loaded with the verb. */
export type LoadedMineType = Pick<FamilyMineType, "type" | "what"> & { mode: MineMode };

export function mineCommand(io: CliIO, types: readonly LoadedMineType[]): Command {
  const cmd = new Command("mine")
    .description(mineSummary(types))
    .argument("<repo>", "path to a git repository (work tree or bare)")
    .addOption(
      new Option("--type <type>", mineTypeHelp(types))
        .choices(["merge", "file_commit_chain", ...types.map((t) => t.type), "all"])
        .default("all"),
    )
    .option("--name <owner/repo>", "repository name for ids and the name field (default: from the origin URL)")
    .option("--metadata <file>", "JSON with stars, license, topics, created_at, archived, fork, contributors …")
    .option("--languages <list>", "comma-separated languages to mine", keywordListOption, [...DEFAULT_MINE_OPTIONS.languages])
    .option("--max-conflicts <n>", "most conflict regions in a merge sample", intOption("--max-conflicts"), 8)
    .option("--min-chain <n>", "fewest commits in a chain", intOption("--min-chain"), 3)
    .option("--max-chain <n>", "most commits in a chain (longer runs are dropped)", intOption("--max-chain"), 6)
    .option("--min-purity <p>", "lowest chain purity kept", numberOption("--min-purity", 0, 1), 0.5)
    .option(
      "--medium-purity <p>",
      "purity from which a chain is medium rather than hard",
      numberOption("--medium-purity", 0, 1),
      DEFAULT_MINE_OPTIONS.thresholds.medium,
    )
    .option("--filter", "apply GitGoodBench's repository filters first; a failing repository yields nothing", false)
    .addOption(new Option("-j, --jobs <n>", "git processes to run at once").argParser(intOption("--jobs")).default(DEFAULT_MINE_OPTIONS.jobs, "the number of cores"))
    .option("--resolvable-only", "keep only merge samples whose recorded merge replacing conflict regions can reproduce", false)
    .option("--since <date>", "only samples committed on or after this date (ISO 8601), e.g. after a model's training cut-off: a merge by its merge commit, a chain by its newest commit, a change mined for another type by its commit", dateOption("--since"))
    .option("--until <date>", "only samples committed on or before this date (ISO 8601)", dateOption("--until"))
    .option("-o, --output <file>", "write samples to a file instead of stdout")
    .option("--json", "print the summary as JSON (on stderr)", false);
  const withModes = types.reduce((c, t) => addOptions(c, t.mode.options), cmd);
  return withModes.action(async (repoPath: string, flags: MineFlags, command: Command) => {
      const family = types.find((t) => t.type === flags.type);
      if (family) {
        const languages = command.getOptionValueSource("languages") === "default" ? undefined : flags.languages;
        await family.mode.run(repoPath, { ...flags, languages }, io);
        return;
      }
      const progress = progressLine(io.stderr);
      const result = await mine({
        repoPath,
        type: flags.type,
        name: flags.name,
        metadata: flags.metadata ? readMetadataFile(flags.metadata) : DEFAULT_MINE_OPTIONS.metadata,
        languages: flags.languages,
        maxConflicts: flags.maxConflicts,
        minChain: flags.minChain,
        maxChain: flags.maxChain,
        minPurity: flags.minPurity,
        thresholds: { medium: flags.mediumPurity },
        filter: flags.filter,
        jobs: flags.jobs,
        resolvableOnly: flags.resolvableOnly,
        window: { since: flags.since ?? null, until: flags.until ?? null },
        onProgress: progress.update,
      }).finally(progress.clear);
      const text = result.samples.map((s) => `${sampleToJson(s)}\n`).join("");
      if (flags.output) writeOutputFile(flags.output, text);
      else io.stdout.write(text);
      io.stderr.write(
        flags.json ? `${JSON.stringify(result.summary)}\n` : `${escapeControls(formatSummary(result.summary, flags.output ?? "stdout"))}\n`,
      );
    });
}
