import { Command, Option } from "commander";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { GitGoodError } from "../errors.js";
import { DATASET_FORMATS, type DatasetFormat } from "../dataset/formats/rows.js";
import { expandDatasetPaths, readDataset } from "../dataset/importer.js";
import { DEFAULT_URL_PATTERN, checkUrlPattern, fetchRepositories, type ReposReport } from "../dataset/repos.js";
import { SAMPLE_TYPES, sampleToJson, sampleTypeNames, type Sample } from "../dataset/sample.js";
// The family registry registers the families' dataset readers (SWE-bench and commit0 instances) as it loads.
import "../families/registry.js";
import { PUBLISHED_SPLIT, splitSamples, type SplitResult } from "../dataset/split.js";
import { formatStats, statsReport } from "../dataset/stats.js";
import { escapeControls } from "../util/escape.js";
import { writeOutputFile } from "../util/output.js";
import { intOption, keywordListOption, positiveIntOption, type CliIO } from "./io.js";
import { fsReason } from "../util/errno.js";

function formatOption(): Option {
  return new Option("--format <format>", "read every file as this format (default: by extension)").choices([
    ...DATASET_FORMATS,
  ]);
}

function jsonl(samples: readonly Sample[]): string {
  return samples.map((s) => `${sampleToJson(s)}\n`).join("");
}

function printWarnings(io: CliIO, warnings: readonly string[]): void {
  for (const w of warnings) io.stderr.write(`warning: ${w}\n`);
}

function importCommand(io: CliIO): Command {
  return new Command("import")
    .description("convert published GitGoodBench files (Parquet, CSV, JSONL) to gitgood samples (JSONL)")
    .argument("<files...>", "dataset files; their samples are concatenated in order")
    .addOption(formatOption())
    .option("-o, --output <file>", "write samples to a file instead of stdout")
    .action(async (files: string[], flags: { format?: DatasetFormat; output?: string }) => {
      const data = await readDataset(files, { format: flags.format });
      printWarnings(io, data.warnings);
      const text = jsonl(data.samples);
      if (flags.output) writeOutputFile(flags.output, text);
      else io.stdout.write(text);
      const count = (type: string) => data.samples.filter((s) => s.sample_type === type).length;
      const others = sampleTypeNames()
        .filter((t) => !(SAMPLE_TYPES as readonly string[]).includes(t) && count(t) > 0)
        .map((t) => `, ${count(t)} ${t}`)
        .join("");
      const from = files.length === 1 ? "1 file" : `${files.length} files`;
      io.stderr.write(
        `imported ${data.samples.length} samples (${count("merge")} merge, ${count("file_commit_chain")} file_commit_chain${others}) from ${from} -> ${flags.output ?? "stdout"}\n`,
      );
    });
}

function formatSplit(result: SplitResult, dir: string): string {
  const lines = [`wrote ${result.lite.length} lite, ${result.full.length} full, ${result.train.length} train samples to ${dir}`];
  for (const g of result.groups) {
    lines.push(
      `  ${g.sample_type.padEnd(18)} ${g.language.padEnd(12)} available ${String(g.available).padStart(6)}  strata ${String(g.strata).padStart(4)}` +
        `  lite ${g.lite} (${g.lite_strata} strata)  full ${g.full} (${g.full_strata} strata)  train ${g.train}`,
    );
  }
  if (result.outside_groups > 0) lines.push(`  ${result.outside_groups} samples outside the languages split went to train`);
  return `${lines.join("\n")}\n`;
}

interface SplitFlags {
  lite: number;
  full: number;
  seed: number;
  output: string;
  languages?: string[];
  format?: DatasetFormat;
  json: boolean;
}

function splitCommand(io: CliIO): Command {
  return new Command("split")
    .description("stratified Lite / full / Train split per scenario type and language, as GitGoodBench made it")
    .argument("<files...>", "samples (gitgood JSONL or published Parquet / CSV / JSONL)")
    .option("--lite <n>", "Lite samples per language and type", intOption("--lite"), PUBLISHED_SPLIT.lite)
    .option("--full <n>", "full samples per language and type", intOption("--full"), PUBLISHED_SPLIT.full)
    .option("--seed <n>", "seed of the random draw", intOption("--seed"), 0)
    .requiredOption("-o, --output <dir>", "directory for lite.jsonl, full.jsonl and train.jsonl")
    .option("--languages <list>", "comma-separated languages to draw from (default: all in the data)", keywordListOption)
    .addOption(formatOption())
    .option("--json", "print the summary as JSON (on stderr)", false)
    .action(async (files: string[], flags: SplitFlags) => {
      const data = await readDataset(files, { format: flags.format });
      printWarnings(io, data.warnings);
      const result = splitSamples(data.samples, {
        lite: flags.lite,
        full: flags.full,
        seed: flags.seed,
        languages: flags.languages,
      });
      try {
        mkdirSync(flags.output, { recursive: true });
      } catch (err) {
        const why = fsReason(err);
        throw new GitGoodError("WRITE_FAILED", `cannot create ${flags.output}: ${why}`);
      }
      for (const name of ["lite", "full", "train"] as const) {
        writeOutputFile(path.join(flags.output, `${name}.jsonl`), jsonl(result[name]));
      }
      const summary = { seed: flags.seed, lite: flags.lite, full: flags.full, groups: result.groups, outside_groups: result.outside_groups };
      io.stderr.write(flags.json ? `${JSON.stringify(summary)}\n` : formatSplit(result, flags.output));
    });
}

function statsCommand(io: CliIO): Command {
  return new Command("stats")
    .description("the paper's statistics: samples per repository, difficulty, languages and types")
    .argument("<paths...>", "sample files, or a directory holding lite.jsonl, full.jsonl, train.jsonl")
    .addOption(formatOption())
    .option("--json", "print JSON instead of text tables", false)
    .action(async (paths: string[], flags: { format?: DatasetFormat; json: boolean }) => {
      const files = expandDatasetPaths(paths);
      const sets = [];
      for (const file of files) {
        const data = await readDataset([file.path], { format: flags.format });
        printWarnings(io, data.warnings);
        sets.push({ label: file.label, samples: data.samples });
      }
      const report = statsReport(sets);
      io.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : formatStats(report));
    });
}

function formatRepos(report: ReposReport): string {
  return report.unverified.map((u) => `${u.id}\t${u.name}\t${u.reason}\t${u.detail}\n`).join("");
}

interface ReposFlags {
  into: string;
  url: string;
  jobs: number;
  fetch: boolean;
  format?: DatasetFormat;
  json: boolean;
}

function reposCommand(io: CliIO): Command {
  return new Command("repos")
    .description("clone every repository the samples name into DIR/owner/repo and verify every sample's commits")
    .argument("<files...>", "samples (gitgood JSONL or published Parquet / CSV / JSONL)")
    .requiredOption("--into <dir>", "directory for the bare clones")
    .option("--url <pattern>", "remote URL, with {name} (owner/repo) or {owner} and {repo}", DEFAULT_URL_PATTERN)
    .option("-j, --jobs <n>", "repositories cloned at once", positiveIntOption("--jobs"), 4)
    .option("--no-fetch", "do not fetch commits a clone lacks")
    .addOption(formatOption())
    .option("--json", "print the whole report as JSON", false)
    .action(async (files: string[], flags: ReposFlags) => {
      checkUrlPattern(flags.url);
      const data = await readDataset(files, { format: flags.format });
      printWarnings(io, data.warnings);
      const report = await fetchRepositories(data.samples, {
        into: flags.into,
        urlPattern: flags.url,
        jobs: flags.jobs,
        fetchMissing: flags.fetch,
        onRepository: (r) => {
          const fetched = r.fetched.length > 0 ? `, fetched ${r.fetched.length} commits` : "";
          const why = r.error ? `: ${r.error}` : "";
          io.stderr.write(`${escapeControls(`${r.status} ${r.name}${fetched}${why}`)}\n`);
        },
      });
      io.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : formatRepos(report));
      const failed = report.repositories.filter((r) => r.status === "failed").length;
      io.stderr.write(
        `${report.repositories.length} repositories (${failed} failed), ${report.verified} of ${report.samples} samples verified\n`,
      );
      if (report.unverified.length > 0) {
        throw new GitGoodError(
          "UNVERIFIED_SAMPLES",
          `${report.unverified.length} samples name commits that are not available (listed on stdout)`,
          { unverified: report.unverified.length },
        );
      }
    });
}

export function datasetCommand(io: CliIO): Command {
  return new Command("dataset")
    .description("import published GitGoodBench files, split, describe, and fetch their repositories")
    .addCommand(importCommand(io))
    .addCommand(splitCommand(io))
    .addCommand(statsCommand(io))
    .addCommand(reposCommand(io));
}
