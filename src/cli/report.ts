import { existsSync } from "node:fs";
import path from "node:path";
import { Command, Option } from "commander";
import { GitGoodError } from "../errors.js";
import { runLabels } from "../report/compare.js";
import { reportFormats, type FormatRun, type ReportFormat } from "../report/formats.js";
import type { RunConfig } from "../runs/config.js";
import type { ResultRecord } from "../runs/record.js";
import { RUN_FILE, RunStore } from "../runs/store.js";
import { modeIsolates } from "../sandbox/isolation.js";
import { writeOutputFile, writeOutputStream } from "../util/output.js";
import { withConfig } from "./config.js";
import { addOptions } from "./declared-options.js";
import type { CliIO } from "./io.js";

/** `gitgood report`'s flags: a stdout format's `--NAME`, a file format's `--NAME FILE`, and the formats' own options. */
type ReportOptions = Readonly<Record<string, unknown>>;

/** commander's name of a format's flag (`agentbeats`, `json`). */
const flagName = (format: ReportFormat): string => format.name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** What the flags ask for: the stdout format (text unless another is asked), and the files to write by format. */
function asked(opts: ReportOptions): { stdout: ReportFormat; files: { format: ReportFormat; file: string }[] } {
  const formats = reportFormats();
  for (const format of formats) format.check?.(opts, opts[flagName(format)] !== undefined && opts[flagName(format)] !== false);
  let stdout = formats.filter((f) => f.output === "stdout" && f.name !== "text" && opts[flagName(f)] === true);
  // --json with a format that has a JSON form asks for that form.
  if (stdout.length === 2 && stdout.some((f) => f.name === "json")) {
    const other = stdout.find((f) => f.name !== "json");
    if (other?.json === true) stdout = [other];
  }
  if (stdout.length > 1) throw new GitGoodError("BAD_OPTION", `give one of ${stdout.map((f) => `--${f.name}`).join(", ")}`);
  const text = formats.find((f) => f.name === "text");
  if (!text) throw new GitGoodError("INTERNAL", "the text report format is not registered");
  const files = formats.flatMap((format) => {
    const file = opts[flagName(format)];
    return format.output === "file" && typeof file === "string" ? [{ format, file }] : [];
  });
  return { stdout: stdout[0] ?? text, files };
}

/** The run directory of `dir`: itself, or for the `--out` of `gitgood bench` (no run.json, a run in `run/`) that run. */
export function runDirOf(dir: string): string {
  const inner = path.join(dir, "run");
  return !existsSync(path.join(dir, RUN_FILE)) && existsSync(path.join(inner, RUN_FILE)) ? inner : dir;
}

/** A run directory as the formats take it. */
function formatRun(dir: string, label: string, config: RunConfig, records: readonly ResultRecord[]): FormatRun {
  const iso = config.isolation;
  return { dir, records, agent: config.identity.agent, label, ...(iso ? { isolation: { mode: iso.mode, isolated: modeIsolates(iso.mode) } } : {}) };
}

/** Writes a format's file: the text rendered already, or the format's stream. */
function writeFormatFile(format: ReportFormat, runs: readonly FormatRun[], file: string, flags: ReportOptions, text: string | null): void {
  const stream = format.write;
  if (text === null && stream) writeOutputStream(file, (write) => stream(runs, { file, flags }, { write }));
  else writeOutputFile(file, text ?? "");
}

/** Writes the report of a run directory: text on stdout (or another stdout format), and the files the flags ask for. */
export function writeReport(runDir: string, opts: ReportOptions, io: CliIO, label = path.basename(path.resolve(runDir))): void {
  const { stdout, files } = asked(opts);
  const { config, records } = RunStore.read(runDir);
  const run = formatRun(runDir, label, config, records);
  // Every file is rendered before anything is written, so a refusal (--agentbeats of two agents) writes nothing;
  // a streamed format (the HTML page) is written piece by piece after them.
  const rendered = files.map(({ format, file }) => ({ format, file, text: format.write ? null : format.render(run, { file, flags: opts }) }));
  io.stdout.write(stdout.render(run, { flags: opts }));
  for (const { format, file, text } of rendered) {
    writeFormatFile(format, [run], file, opts, text);
    io.stderr.write(`wrote ${file}\n`);
  }
}

/** Writes the comparison of several run directories: side by side on stdout, and the files the flags ask for. */
export function writeComparison(runDirs: readonly string[], opts: ReportOptions, io: CliIO, labels: readonly string[] = runLabels(runDirs)): void {
  const { stdout, files } = asked(opts);
  const single = [stdout, ...files.map((f) => f.format)].find((f) => f.compare === undefined);
  if (single) throw new GitGoodError("BAD_OPTION", `--${single.name} takes one run directory; give it a single run`);
  const resolved = runDirs.map((d) => path.resolve(d));
  const twice = runDirs.find((_, i) => resolved.indexOf(resolved[i] ?? "") !== i);
  if (twice !== undefined) throw new GitGoodError("BAD_OPTION", `the run directory ${twice} is given twice`);
  const runs: FormatRun[] = runDirs.map((dir, i) => {
    const { config, records } = RunStore.read(dir);
    return formatRun(dir, labels[i] ?? dir, config, records);
  });
  io.stdout.write(stdout.compare?.(runs, { flags: opts }) ?? "");
  for (const { format, file } of files) {
    writeFormatFile(format, runs, file, opts, format.write ? null : (format.compare?.(runs, { file, flags: opts }) ?? ""));
    io.stderr.write(`wrote ${file}\n`);
  }
}

/** A format's flag: `--NAME` prints a stdout format, `--NAME FILE` also writes a file format. */
function formatOption(format: ReportFormat): Option | null {
  if (format.name === "text") return null;
  return format.output === "stdout" ? new Option(`--${format.name}`, `print ${format.description}`).default(false) : new Option(`--${format.name} <file>`, `also write ${format.description}`);
}

export function reportCommand(io: CliIO): Command {
  const cmd = new Command("report")
    .description("print a run's success and solve rates per scenario, difficulty and language, and per sample; several runs side by side")
    .argument("<run-dir...>", "directories written by 'gitgood run' (--out); with two or more, the runs are compared");
  for (const format of reportFormats()) {
    const option = formatOption(format);
    if (option) cmd.addOption(option);
    addOptions(cmd, format.options ?? []);
  }
  return withConfig(cmd, "report").action((runDirs: string[], flags: ReportOptions) => {
    // A bench's --out holds its run in run/: the directory bench printed is taken, and labels the run.
    const dirs = runDirs.map(runDirOf);
    const labels = runLabels(runDirs);
    if (dirs.length === 1 && dirs[0] !== undefined) writeReport(dirs[0], flags, io, labels[0]);
    else writeComparison(dirs, flags, io, labels);
  });
}
