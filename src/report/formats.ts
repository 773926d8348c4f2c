import path from "node:path";
import type { FormatRun, ReportFormat } from "../families/definition.js";
import { families } from "../families/registry.js";
import { GitGoodError } from "../errors.js";
import { escapeControls } from "../util/escape.js";
import { compareReports } from "./compare.js";
import { formatRunDiff, runDiff } from "./diff.js";
import { formatSkills, labelCounts, probeRates, skillProfiles } from "./skills.js";
import { reportCsv } from "./csv.js";
import { renderStaticPage, writeStaticPage } from "./html.js";
import { junitXml } from "./junit.js";
import { buildReport, type Report } from "./summary.js";
import { formatComparison, formatReport } from "./text.js";

export type { FormatRun, ReportFormat } from "../families/definition.js";

/** The directory a page is written in: where its links start. */
const pageDirOf = (file: string | undefined): string | undefined => (file === undefined ? undefined : path.dirname(path.resolve(file)));

/** A run's report, with the isolation its agent programs ran under. */
function reportOf(run: FormatRun): Report {
  const report = buildReport({ records: run.records });
  if (run.isolation) report.isolation = run.isolation;
  return report;
}

function comparisonOf(runs: readonly FormatRun[]) {
  const labels = runs.map((r) => r.label);
  const labelled = runs.map((run) => ({ label: run.label, dir: run.dir, report: reportOf(run) }));
  return { labels, labelled, comparison: compareReports(labelled) };
}

/** Plain-text tables for a terminal (`gitgood report`'s default). */
const TEXT: ReportFormat = {
  name: "text",
  description: "plain-text tables (the default on stdout)",
  output: "stdout",
  render: (run) => `${escapeControls(formatReport(reportOf(run)))}\n${escapeControls(formatSkills(run.records))}`,
  compare: (runs) => `${escapeControls(formatComparison(comparisonOf(runs).comparison))}\n`,
};

/** The report as JSON, in its stable, versioned layout (`--json`). */
const JSON_FORMAT: ReportFormat = {
  name: "json",
  description: "the report (or the comparison) as JSON (stable, versioned layout)",
  output: "stdout",
  render: (run) => `${JSON.stringify({ ...reportOf(run), skills: skillProfiles(run.records), failure_labels: labelCounts(run.records), history_probes: probeRates(run.records) }, null, 2)}\n`,
  compare: (runs) => `${JSON.stringify(comparisonOf(runs).comparison, null, 2)}\n`,
};

/** The title of a static page of some runs. */
const pageTitle = (runs: readonly FormatRun[]): string =>
  runs.length === 1 ? `gitgood report: ${runs[0]?.label ?? ""}` : `gitgood comparison: ${runs.map((r) => r.label).join(" · ")}`;

/** The viewer's views as one static page: summary, samples with search and filters, transcripts, comparison (`--html FILE`). */
const HTML: ReportFormat = {
  name: "html",
  description: "a single static HTML page with the viewer's views: summary and plots, samples with search and filters, transcripts, comparison",
  output: "file",
  render: (run, ctx) => renderStaticPage([run], { title: pageTitle([run]), pageDir: pageDirOf(ctx.file) }),
  compare: (runs, ctx) => renderStaticPage(runs, { title: pageTitle(runs), pageDir: pageDirOf(ctx.file) }),
  write: (runs, ctx, out) => writeStaticPage(runs, { title: pageTitle(runs), pageDir: pageDirOf(ctx.file) }, out),
};

/** One JUnit test case per attempt, for CI dashboards (`--junit FILE`). */
const JUNIT: ReportFormat = {
  name: "junit",
  description: "a JUnit XML document: one test case per attempt, a failure when unsolved, an error on a system error (one run)",
  output: "file",
  render: (run) => junitXml(reportOf(run), run.label),
};

/** One CSV line per attempt (`--csv FILE`). */
const CSV: ReportFormat = {
  name: "csv",
  description: "the attempts as CSV, one line each (one run)",
  output: "file",
  render: (run) => reportCsv(reportOf(run)),
};

/** Formats added at run time (a plug-in's, a test's). */
const DIFF: ReportFormat = {
  name: "diff",
  description: "the attempts whose verdict flipped between two runs, with each side's failure labels, and the labels that grew or shrank (with --json: as JSON)",
  output: "stdout",
  json: true,
  render: () => {
    throw new GitGoodError("BAD_OPTION", "--diff compares two run directories: give two");
  },
  compare: (runs, ctx) => {
    const [a, b] = runs;
    if (runs.length !== 2 || !a || !b) throw new GitGoodError("BAD_OPTION", `--diff compares two run directories, not ${runs.length}`);
    const diff = runDiff(a, b);
    return ctx.flags.json === true ? `${JSON.stringify(diff, null, 2)}\n` : escapeControls(formatRunDiff(diff));
  },
};

const REGISTERED: ReportFormat[] = [];

/**
 * Every report format, in the order `gitgood report --help` lists them: text, JSON, HTML, JUnit and CSV, then the
 * families' (the SWE family's AgentBeats document), then those registered at run time.
 */
export function reportFormats(): ReportFormat[] {
  return [TEXT, JSON_FORMAT, HTML, JUNIT, CSV, DIFF, ...families().flatMap((f) => f.formats ?? []), ...REGISTERED];
}

/** Adds a report format; its name must be new. `gitgood report` then takes `--NAME FILE` for it. */
export function registerReportFormat(format: ReportFormat): void {
  if (reportFormats().some((f) => f.name === format.name)) throw new GitGoodError("INTERNAL", `a report format named ${format.name} is registered already`);
  REGISTERED.push(format);
}

/** Removes a format added with `registerReportFormat`. */
export function unregisterReportFormat(name: string): void {
  const i = REGISTERED.findIndex((f) => f.name === name);
  if (i >= 0) REGISTERED.splice(i, 1);
}
