import { existsSync } from "node:fs";
import path from "node:path";
import { Command } from "commander";
import { GitGoodError } from "../errors.js";
import { reportCsv } from "../export/csv.js";
import { junitXml } from "../export/junit.js";
import { compareReports, runLabels } from "../report/compare.js";
import { renderComparisonHtml, renderHtml, type HtmlRun, type SampleDetail } from "../report/html.js";
import { buildReport } from "../report/summary.js";
import { SWE_SCENARIO, agentBeatsResults } from "../report/swe.js";
import { formatComparison, formatReport } from "../report/text.js";
import type { ResultRecord } from "../runs/record.js";
import { RUN_FILE, RunStore } from "../runs/store.js";
import { modeIsolates } from "../sandbox/isolation.js";
import { escapeControls } from "../util/escape.js";
import { writeOutputFile } from "../util/output.js";
import { withConfig } from "./config.js";
import type { CliIO } from "./io.js";

/** A link from a page in `pageDir` to a file, relative, each path segment URL-encoded. */
function relativeLink(pageDir: string, file: string): string {
  return path.relative(pageDir, file).split(path.sep).map(encodeURIComponent).join("/");
}

/**
 * Reads each record's trajectory file for the HTML page, keyed by record key (missing, damaged or
 * out-of-place files are skipped); with `pageDir`, each detail links its file relative to the page.
 */
export function loadDetails(runDir: string, records: readonly ResultRecord[], pageDir?: string): Map<string, SampleDetail> {
  const store = RunStore.openExisting(runDir);
  const details = new Map<string, SampleDetail>();
  for (const r of records) {
    if (!r.trajectory) continue;
    try {
      const t = store.readTrajectory(r.trajectory) as { ground_truth_diff?: unknown } | null;
      const diff = typeof t?.ground_truth_diff === "string" ? t.ground_truth_diff : undefined;
      const href = pageDir === undefined ? undefined : relativeLink(pageDir, path.resolve(runDir, r.trajectory));
      details.set(r.key, { trajectory: t, diff, href });
    } catch {
      /* a missing or damaged trajectory only loses its detail view */
    }
  }
  return details;
}

export interface ReportOptions {
  json?: boolean;
  html?: string;
  /** Write the AgentBeats results document of the run's SWE attempts here. */
  agentbeats?: string;
  /** The role naming the agent in that document (default "agent"). */
  participant?: string;
  /** Write a JUnit XML document (one test case per attempt) here. */
  junit?: string;
  /** Write the attempts as CSV here. */
  csv?: string;
}

/** The agent an AgentBeats document is about: the one agent of the SWE attempts (or of the run). */
function agentOf(runDir: string, records: readonly ResultRecord[], fallback: string): string {
  const swe = records.filter((r) => r.scenario === SWE_SCENARIO);
  const agents = [...new Set((swe.length > 0 ? swe : records).map((r) => r.agent))].sort();
  if (agents.length > 1) throw new GitGoodError("BAD_OPTION", `--agentbeats describes one agent, and ${runDir} has ${agents.join(", ")}`);
  return agents[0] ?? fallback;
}

/** The run directory of `dir`: itself, or for the `--out` of `gitgood bench` (no run.json, a run in `run/`) that run. */
export function runDirOf(dir: string): string {
  const inner = path.join(dir, "run");
  return !existsSync(path.join(dir, RUN_FILE)) && existsSync(path.join(inner, RUN_FILE)) ? inner : dir;
}

/** Writes the report of a run directory: text on stdout (or JSON), and optionally an HTML page and an AgentBeats document. */
export function writeReport(runDir: string, opts: ReportOptions, io: CliIO, label = path.basename(path.resolve(runDir))): void {
  const { config, records } = RunStore.read(runDir);
  const report = buildReport(records);
  if (config.isolation) report.isolation = { mode: config.isolation.mode, isolated: modeIsolates(config.isolation.mode) };
  if (opts.agentbeats) {
    const doc = agentBeatsResults(records, agentOf(runDir, records, config.identity.agent), opts.participant ?? "agent");
    writeOutputFile(opts.agentbeats, `${JSON.stringify(doc, null, 2)}\n`);
  }
  io.stdout.write(opts.json ? `${JSON.stringify(report, null, 2)}\n` : `${escapeControls(formatReport(report))}\n`);
  if (opts.agentbeats) io.stderr.write(`wrote ${opts.agentbeats}\n`);
  if (opts.junit) {
    writeOutputFile(opts.junit, junitXml(report, label));
    io.stderr.write(`wrote ${opts.junit}\n`);
  }
  if (opts.csv) {
    writeOutputFile(opts.csv, reportCsv(report));
    io.stderr.write(`wrote ${opts.csv}\n`);
  }
  if (opts.html) {
    const pageDir = path.dirname(path.resolve(opts.html));
    writeOutputFile(opts.html, renderHtml(report, loadDetails(runDir, records, pageDir), `gitgood report: ${label}`));
    io.stderr.write(`wrote ${opts.html}\n`);
  }
}

/** Writes the comparison of several run directories: side-by-side text (or JSON), and optionally an HTML page. */
export function writeComparison(runDirs: readonly string[], opts: ReportOptions, io: CliIO, labels: readonly string[] = runLabels(runDirs)): void {
  if (opts.agentbeats) throw new GitGoodError("BAD_OPTION", "--agentbeats takes one run directory; give it a single run");
  if (opts.junit || opts.csv) throw new GitGoodError("BAD_OPTION", `${opts.junit ? "--junit" : "--csv"} takes one run directory; give it a single run`);
  const resolved = runDirs.map((d) => path.resolve(d));
  const twice = runDirs.find((_, i) => resolved.indexOf(resolved[i] ?? "") !== i);
  if (twice !== undefined) throw new GitGoodError("BAD_OPTION", `the run directory ${twice} is given twice`);
  const read = runDirs.map((dir) => ({ dir, records: RunStore.read(dir).records }));
  const runs = read.map(({ dir, records }, i) => ({ label: labels[i] ?? dir, dir, report: buildReport(records) }));
  const comparison = compareReports(runs);
  io.stdout.write(opts.json ? `${JSON.stringify(comparison, null, 2)}\n` : `${escapeControls(formatComparison(comparison))}\n`);
  if (opts.html) {
    const pageDir = path.dirname(path.resolve(opts.html));
    const pages: HtmlRun[] = runs.map((run, i) => ({
      label: run.label,
      report: run.report,
      details: loadDetails(run.dir, read[i]?.records ?? [], pageDir),
    }));
    writeOutputFile(opts.html, renderComparisonHtml(comparison, pages, `gitgood comparison: ${labels.join(" · ")}`));
    io.stderr.write(`wrote ${opts.html}\n`);
  }
}

export function reportCommand(io: CliIO): Command {
  const cmd = new Command("report")
    .description("print a run's success and solve rates per scenario, difficulty and language, and per sample; several runs side by side")
    .argument("<run-dir...>", "directories written by 'gitgood run' (--out); with two or more, the runs are compared")
    .option("--json", "print the report (or the comparison) as JSON (stable, versioned layout)", false)
    .option("--html <file>", "also write a single static HTML page with tables, charts, filters and trajectories")
    .option("--agentbeats <file>", "also write the AgentBeats results document of the run's SWE attempts (one run)")
    .option("--junit <file>", "also write a JUnit XML document: one test case per attempt, a failure when unsolved, an error on a system error (one run)")
    .option("--csv <file>", "also write the attempts as CSV, one line each (one run)")
    .option("--participant <role>", "the role that names the agent in the AgentBeats document (default: agent)");
  return withConfig(cmd, "report", io).action((runDirs: string[], flags: ReportOptions) => {
    if (flags.participant !== undefined && !flags.agentbeats) throw new GitGoodError("BAD_OPTION", "--participant goes with --agentbeats");
    if (flags.participant !== undefined && flags.participant.trim() === "") throw new GitGoodError("BAD_OPTION", "--participant takes a role name, not an empty one");
    // A bench's --out holds its run in run/: the directory bench printed is taken, and labels the run.
    const dirs = runDirs.map(runDirOf);
    const labels = runLabels(runDirs);
    if (dirs.length === 1 && dirs[0] !== undefined) writeReport(dirs[0], flags, io, labels[0]);
    else writeComparison(dirs, flags, io, labels);
  });
}
