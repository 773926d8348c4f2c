import { randomBytes } from "node:crypto";
import { appendFileSync, existsSync, lstatSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { GitGoodError } from "../errors.js";
import { execIn } from "../sandbox/exec.js";
import { checkRelativePath } from "../sandbox/paths.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import { readRegularFile } from "../util/files.js";
import { outcomesFromJUnit, worse } from "./junit.js";
import { parseTestLog } from "./logs.js";
import { mergeOutcomes } from "./outcomes.js";
import { expandVars, withReadPaths } from "./prepare.js";
import { runnerDisagreements } from "./runner-agreement.js";
import { plainCommandWords } from "./shell-words.js";
import { CHANNEL_KEY_BYTES, PLUGIN_MODULE, pluginDir, readPluginReport } from "./pytest-results.js";
import type { Environment, EnvSpec, RunTestsOptions, TestArgStyle, TestOutcome, TestRun } from "./types.js";

/** Bytes of a test run's output kept: its end, where the summaries are. */
const TEST_OUTPUT = 4 * 1024 * 1024;
/** Where a run's result files go, below the work tree (removed after the run). */
const RESULTS_PREFIX = ".gitgood-results-";

function className(file: string): string {
  return path.basename(file).replace(/\.(java|kt|groovy|scala)$/, "");
}

/** The test command's arguments for repository-relative test files, in the spec's style. */
export function testArguments(style: TestArgStyle, files: readonly string[]): string[] {
  switch (style) {
    case "paths":
      return [...files];
    case "django":
      return files.map((f) => f.replace(/^tests\//, "").replace(/\.py$/, "").replace(/\//g, "."));
    case "maven":
      return files.length > 0 ? [`-Dtest=${files.map(className).join(",")}`] : [];
    case "gradle":
      return files.flatMap((f) => ["--tests", className(f)]);
    case "none":
      return [];
  }
}

/** A regular file or directory at `rel` in the work tree, reached without a symbolic link; else null. */
function plainEntry(work: string, rel: string): "file" | "directory" | null {
  try {
    checkRelativePath(work, rel);
    const st = lstatSync(path.join(work, rel));
    return st.isFile() ? "file" : st.isDirectory() ? "directory" : null;
  } catch {
    return null;
  }
}

/** The XML files at `abs` (a file, or the `.xml` files directly in a directory), read without following links. */
function xmlDocuments(abs: string): string[] {
  let st;
  try {
    st = lstatSync(abs);
  } catch {
    return [];
  }
  const files = st.isDirectory() ? readdirSync(abs).filter((n) => n.endsWith(".xml")).map((n) => path.join(abs, n)) : st.isFile() ? [abs] : [];
  return files.map((f) => readRegularFile(f)).filter((t): t is string => t !== null);
}

/** Removes the reports an earlier run left where the spec's JUnit files land, so that they never count for this one. */
function clearReports(work: string, spec: EnvSpec): void {
  for (const rel of spec.junit) if (plainEntry(work, rel) !== null) rmSync(path.join(work, rel), { recursive: true, force: true });
}

/** Marks a work tree's `node_modules` as the directory of links gitgood made (and removes again). */
const LINKED_MARK = ".gitgood-env-links";

/**
 * Shows the environment's node_modules at the work tree's `node_modules` when the work tree has none:
 * a directory of its own holding one link per package into the cache (which test runs see read-only),
 * so that tools which write beside the packages (Vite's bundled config in `.vite-temp`, caches in
 * `.cache`) can, while the packages stay shared and unchanged. It is kept out of git's view. Returns how
 * to remove it again.
 */
function linkNodeModules(sandbox: Sandbox, env: Environment): () => void {
  const modules = path.join(env.envDir, "node_modules");
  const at = path.join(sandbox.workDir, "node_modules");
  if (!existsSync(modules)) return () => undefined;
  let existing;
  try {
    existing = lstatSync(at);
  } catch {
    existing = null;
  }
  if (existing && !(existing.isDirectory() && existsSync(path.join(at, LINKED_MARK)))) return () => undefined;
  if (!existing) {
    mkdirSync(at);
    writeFileSync(path.join(at, LINKED_MARK), "");
    for (const name of readdirSync(modules)) symlinkSync(path.join(modules, name), path.join(at, name));
  }
  const gitDir = path.join(sandbox.workDir, ".git");
  let gitIsDir = false;
  try {
    gitIsDir = lstatSync(gitDir).isDirectory();
  } catch {
    /* no .git directory: nothing to keep the links out of */
  }
  if (gitIsDir) {
    const exclude = path.join(gitDir, "info", "exclude");
    const listed = readRegularFile(exclude) ?? "";
    if (!listed.split("\n").includes("/node_modules")) {
      mkdirSync(path.dirname(exclude), { recursive: true });
      appendFileSync(exclude, `${listed === "" || listed.endsWith("\n") ? "" : "\n"}/node_modules\n`);
    }
  }
  return () => {
    try {
      // Links and what the tools wrote beside them go; the packages they point to stay.
      if (lstatSync(at).isDirectory() && existsSync(path.join(at, LINKED_MARK))) rmSync(at, { recursive: true, force: true });
    } catch {
      /* already gone */
    }
  };
}

/** Whether a run's results come through gitgood's pytest plugin: a pytest command outside docker (which passes no extra descriptor). */
export function usesResultsPlugin(spec: EnvSpec, mode: Sandbox["isolation"]["mode"]): boolean {
  return spec.kind === "python" && /\bpytest\b/.test(spec.test) && mode !== "docker";
}

/**
 * The outcomes of a run from the plugin's report, checked against the log's: where both name a test the
 * worse outcome stands (a forged pass on either channel alone does not count); a test only the log
 * names is not taken (anyone can print). A run whose guard never started, or whose run never reached its
 * end (the process left early, or the code under test silenced the channel), gives no outcome. The end's
 * exit status must agree with the report (a failed test and status 0 do not go together) and, when pytest
 * is the command itself (`exitCode` given), with the process's: a disagreement is tampering.
 */
function pluginOutcomes(channel: Buffer, key: Buffer, fromLog: Map<string, TestOutcome>, exitCode: number | null | undefined): { outcomes: Map<string, TestOutcome>; tampering: string[] } {
  const report = readPluginReport(channel, key);
  const tampering = [...report.tampering];
  if (!report.started || !report.ended) return { outcomes: new Map(), tampering };
  const outcomes = new Map<string, TestOutcome>();
  for (const [id, o] of report.outcomes) {
    const logged = fromLog.get(id);
    outcomes.set(id, logged === undefined ? o : worse(o, logged));
  }
  const failing = [...report.outcomes.values()].some((o) => o === "failed" || o === "error");
  if (report.status === null || (failing && report.status === 0)) {
    tampering.push(`pytest's end line says exit status ${String(report.status)}, which does not agree with its own outcomes`);
  } else if (exitCode !== undefined && exitCode !== report.status) {
    tampering.push(`pytest ended its session with exit status ${String(report.status)}, but the process exited with ${String(exitCode)}`);
  }
  return { outcomes, tampering };
}

/**
 * Runs the tests of `testFiles` (repository-relative) with `env` in the sandbox's work tree, isolated
 * (the environment and the interpreter readable, only the work tree writable), time- and
 * output-limited. A pytest command's outcomes come from gitgood's own plug-in over an inherited pipe,
 * checked against the log (src/testenv/pytest-results.ts); tampering it reports voids them. Other runners'
 * come from the JUnit XML the run wrote, completed by the spec's log parser (which alone serves when no
 * JUnit file was written, a collection error say), and count only where the runner's exit status and
 * summary agree with them (src/testenv/runner-agreement.ts). A run that runs out of
 * time is killed with its whole process group: `timedOut`, and no outcome (every test is missing).
 */
export async function runTests(sandbox: Sandbox, env: Environment, testFiles: readonly string[], opts: RunTestsOptions): Promise<TestRun> {
  if (sandbox.isRemoved) throw new GitGoodError("NO_SANDBOX", "the sandbox is removed");
  const work = sandbox.workDir;
  const files = testFiles.map((f) => checkRelativePath(work, f).shown);
  const { spec } = env;
  clearReports(work, spec);
  // A fresh directory per run, named by 128 random bits so that a file can not be put there ahead of it.
  const results = path.join(work, `${RESULTS_PREFIX}${randomBytes(16).toString("hex")}`);
  mkdirSync(results, { mode: 0o700 });
  const junit = path.join(results, "junit.xml");
  const unlink = spec.kind === "node" ? linkNodeModules(sandbox, env) : () => undefined;
  const plugin = usesResultsPlugin(spec, sandbox.isolation.mode) ? pluginDir(path.dirname(path.dirname(env.dir))) : null;
  try {
    const vars = { GITGOOD_ENV: env.envDir, GITGOOD_RESULTS: results, GITGOOD_JUNIT: junit };
    const extra: Record<string, string> = { ...vars, PYTHONDONTWRITEBYTECODE: "1", PYTHONNOUSERSITE: "1" };
    for (const [k, v] of Object.entries(spec.env)) extra[k] = expandVars(v, vars);
    const pathDirs = spec.kind === "node" ? [path.join(work, "node_modules", ".bin")] : [];
    const base = env.vars.PATH ?? process.env.PATH ?? "";
    const execEnv: Record<string, string> = { ...env.vars, ...extra, PATH: [...pathDirs, base].join(path.delimiter) };
    const pythonPath = [...(plugin ? [plugin] : []), ...spec.pythonPath.map((p) => path.resolve(work, p))];
    if (pythonPath.length > 0) execEnv.PYTHONPATH = pythonPath.join(path.delimiter);
    if (plugin) {
      execEnv.PYTEST_PLUGINS = [execEnv.PYTEST_PLUGINS, PLUGIN_MODULE].filter((p) => p !== undefined && p !== "").join(",");
      execEnv.GITGOOD_RESULTS_FD = "3";
      // The host's plugins stay out unless the spec says how pytest should load them (src/testenv/pytest-plugins.ts).
      if (!("PYTEST_DISABLE_PLUGIN_AUTOLOAD" in spec.env)) {
        execEnv.PYTEST_DISABLE_PLUGIN_AUTOLOAD = "1";
        execEnv.GITGOOD_PYTEST_PLUGINS = env.pytestPlugins.join(",");
      }
    }
    const place = { work, isolation: withReadPaths(sandbox.isolation, [...env.readPaths, ...(plugin ? [plugin] : [])]) };
    const seconds = spec.testTimeout ?? opts.timeoutSeconds;
    const deadline = Date.now() + seconds * 1000;
    const logs: string[] = [];
    for (const command of spec.beforeTests) {
      const r = await execIn(work, ["sh", "-c", command], { timeout: Math.max(1, (deadline - Date.now()) / 1000), env: execEnv, signal: opts.signal, maxOutput: 64 * 1024, keep: "tail" }, place);
      logs.push(`$ ${command}\n${r.stdout.toString("utf8")}${r.stderr.toString("utf8")}`);
      if (r.timedOut || r.aborted) {
        return { outcomes: new Map(), log: logs.join("\n"), timedOut: r.timedOut, argv: ["sh", "-c", command], exitCode: r.code, channel: plugin ? "plugin" : "files", tampering: [] };
      }
    }
    const args = [...(opts.flags ?? []), ...testArguments(spec.testArgs, files)];
    // A plain command runs as it is; anything a shell must interpret runs through `sh -c`.
    const words = plainCommandWords(spec.test, vars);
    const argv = words ? [...words, ...args] : ["sh", "-c", `${spec.test} "$@"`, "sh", ...args];
    // The run's key goes to gitgood's guard on the channel itself, before any code of the project runs.
    const key = randomBytes(CHANNEL_KEY_BYTES);
    const r = await execIn(
      work,
      argv,
      { timeout: Math.max(1, (deadline - Date.now()) / 1000), env: execEnv, signal: opts.signal, maxOutput: TEST_OUTPUT, keep: "tail", channel: plugin !== null, channelInput: key },
      place,
    );
    if (r.aborted) throw new GitGoodError("ABORTED", "the test run was cancelled");
    const log = [...logs, `${r.stdout.toString("utf8")}${r.stderr.toString("utf8")}`].join("\n");
    let outcomes = new Map<string, TestOutcome>();
    let tampering: string[] = [];
    if (!r.timedOut && plugin) {
      // Only a plain command is pytest's own process, whose exit status pytest's session decides.
      ({ outcomes, tampering } = pluginOutcomes(r.channel, key, parseTestLog(spec.log, log), words ? r.code : undefined));
      if (tampering.length > 0) outcomes = new Map();
    } else if (!r.timedOut) {
      const docs = [...xmlDocuments(results), ...spec.junit.filter((rel) => plainEntry(work, rel) !== null).flatMap((rel) => xmlDocuments(path.join(work, rel)))];
      const fromJUnit = outcomesFromJUnit(docs, spec.ids, (rel) => plainEntry(work, rel) === "file");
      outcomes = mergeOutcomes(fromJUnit, parseTestLog(spec.log, log));
      // The files are writable by the code under test: they count only where the runner itself agrees.
      tampering = runnerDisagreements(outcomes, `${r.stdout.toString("utf8")}\n${r.stderr.toString("utf8")}`, argv, words ? r.code : undefined);
      if (tampering.length > 0) outcomes = new Map();
    }
    return { outcomes, log, timedOut: r.timedOut, argv, exitCode: r.code, channel: plugin ? "plugin" : "files", tampering };
  } finally {
    unlink();
    rmSync(results, { recursive: true, force: true });
  }
}
