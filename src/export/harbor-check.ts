import { cpSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { execIn, type ExecResult } from "../sandbox/exec.js";
import type { Isolation } from "../sandbox/isolation.js";
import { withReadPaths } from "../testenv/prepare.js";
import type { Environment } from "../testenv/types.js";
import { readRegularFile } from "../util/files.js";

/*
 * The export's gate (DESIGN principle 6: an export is checked where it is consumed): a task directory is
 * run as Harbor runs it, twice, each time from a repository its own environment/start/start.sh builds:
 * the oracle (solution/solve.sh, then tests/ copied in and tests/test.sh) must score 1 and be solved, and
 * the untouched start (tests/test.sh alone) must not be solved. The scripts run in gitgood's jail (the
 * isolation given, the namespace backend by default: no network, only the check's directory writable),
 * with the environment gitgood's own evaluation builds for the task in place of the Dockerfile's set-up.
 */

/** What one run of tests/test.sh left in the verifier's log directory. */
export interface RewardFiles {
  /** reward.txt's number; null when it is missing or not one number. */
  reward: number | null;
  /** reward.json's named numbers; null when it is missing or not an object of numbers. */
  metrics: Record<string, number> | null;
  /** The end of what the scripts printed, for a reader of a failed check. */
  output: string;
}

export interface HarborCheck {
  /** Where the scripts ran, for people: "gitgood's jail (namespace) with the task's environment". */
  where: string;
  oracle: RewardFiles;
  nop: RewardFiles;
  /** Why the task fails the gate, one line each; empty when it passes. */
  problems: string[];
}

export interface HarborCheckOptions {
  isolation: Isolation;
  /** The environment the scripts get (its programs first on PATH, its paths readable); null: git alone. */
  environment: Environment | null;
  /** Seconds each script may take (default 600, the verifier's time in task.toml). */
  timeoutSeconds?: number;
  signal?: AbortSignal;
}

const NUMBER = /^[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/;
const OUTPUT = 8 * 1024;

function tail(r: ExecResult): string {
  return `${r.stdout.toString("utf8")}${r.stderr.toString("utf8")}`.slice(-OUTPUT);
}

function lastLine(text: string): string {
  return text.trim().split("\n").at(-1)?.trim() ?? "";
}

/** The reward files a run wrote, read as files only (a link or a directory in their place counts as missing). */
export function readRewards(logs: string, output: string): RewardFiles {
  const txt = readRegularFile(path.join(logs, "verifier", "reward.txt"))?.trim() ?? "";
  let metrics: Record<string, number> | null = null;
  try {
    const doc: unknown = JSON.parse(readRegularFile(path.join(logs, "verifier", "reward.json")) ?? "null");
    if (doc !== null && typeof doc === "object" && !Array.isArray(doc) && Object.values(doc).every((v) => typeof v === "number" && Number.isFinite(v))) {
      metrics = doc as Record<string, number>;
    }
  } catch {
    metrics = null;
  }
  return { reward: NUMBER.test(txt) ? Number(txt) : null, metrics, output };
}

/** The variables the task's scripts get: where the repository and the logs are, and the environment's own. */
function scriptEnv(env: Environment | null, repo: string, logs: string): Record<string, string> {
  const vars: Record<string, string> = { GITGOOD_TASK_REPO: repo, GITGOOD_TASK_LOGS: logs };
  if (!env) return vars;
  const pythonPath = env.spec.pythonPath.map((p) => path.resolve(repo, p));
  // The environment's variables hold the spec's own (`env:`), already expanded.
  return {
    ...env.vars,
    GITGOOD_ENV: env.envDir,
    PYTHONDONTWRITEBYTECODE: "1",
    ...(pythonPath.length > 0 ? { PYTHONPATH: pythonPath.join(path.delimiter) } : {}),
    ...vars,
  };
}

/** One run of a task in a directory of its own: the start built, the oracle's solve.sh when asked, then test.sh. */
async function runTask(task: string, oracle: boolean, opts: HarborCheckOptions, problems: string[]): Promise<RewardFiles> {
  const label = oracle ? "the oracle" : "the untouched start";
  const work = realpathSync(mkdtempSync(path.join(os.tmpdir(), "gitgood-harbor-check-")));
  try {
    const repo = path.join(work, "app");
    const logs = path.join(work, "logs");
    mkdirSync(logs);
    const copy = (from: string): void => cpSync(path.join(task, from), path.join(work, from), { recursive: true, verbatimSymlinks: true });
    copy(path.join("environment", "start"));
    const isolation = opts.environment ? withReadPaths(opts.isolation, opts.environment.readPaths) : opts.isolation;
    const env = scriptEnv(opts.environment, repo, logs);
    const run = (argv: string[]): Promise<ExecResult> =>
      execIn(work, argv, { timeout: opts.timeoutSeconds ?? 600, env, signal: opts.signal, maxOutput: 256 * 1024, keep: "tail" }, { work, isolation });
    const outputs: string[] = [];
    const step = async (argv: string[], what: string): Promise<boolean> => {
      const r = await run(argv);
      outputs.push(tail(r));
      if (r.code === 0 && !r.timedOut) return true;
      problems.push(`${label}: ${what} ${r.timedOut ? "ran out of time" : `failed (exit ${String(r.code)})`}: ${lastLine(tail(r))}`);
      return false;
    };
    if (!(await step(["sh", path.join(work, "environment", "start", "start.sh"), repo], "environment/start/start.sh"))) return readRewards(logs, outputs.join("\n"));
    if (oracle) {
      copy("solution");
      if (!(await step(["bash", path.join(work, "solution", "solve.sh")], "solution/solve.sh"))) return readRewards(logs, outputs.join("\n"));
    }
    // Harbor copies tests/ in after the agent (or the oracle) is done.
    copy("tests");
    await step(["bash", path.join(work, "tests", "test.sh")], "tests/test.sh");
    return readRewards(logs, outputs.join("\n").slice(-OUTPUT));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** What is wrong with one run's rewards: none written, the two files disagreeing, or the wrong score. */
function judgeRun(label: string, r: RewardFiles, want: "solved" | "unsolved"): string[] {
  if (r.reward === null) return [`${label}: tests/test.sh wrote no reward.txt with one number`];
  if (r.metrics === null) return [`${label}: tests/test.sh wrote no reward.json of named numbers`];
  if (r.metrics.reward !== r.reward) return [`${label}: reward.json's reward (${String(r.metrics.reward)}) is not reward.txt's (${r.reward})`];
  const solved = r.metrics.solved;
  if (want === "solved" && (r.reward !== 1 || solved !== 1)) return [`${label} scores ${r.reward} (solved ${String(solved)}), not 1`];
  if (want === "unsolved" && (r.reward >= 1 || solved !== 0)) return [`${label} scores ${r.reward} (solved ${String(solved)}): a task solved before anyone works on it`];
  return [];
}

/** What is wrong with the two runs' rewards: the oracle must score 1 (solved), the untouched start must not be solved. */
export function judgeRewards(oracle: RewardFiles, nop: RewardFiles): string[] {
  return [...judgeRun("the oracle (solution/solve.sh)", oracle, "solved"), ...judgeRun("the untouched start", nop, "unsolved")];
}

/**
 * Runs the gate on the task directory `task`: the oracle must score 1 (solved) and the untouched start must
 * not be solved (reward 0; below 1 for a reward that is a pass fraction, COMMIT0's). Never throws for the
 * task's own failures: they are the check's `problems`.
 */
export async function checkHarborTask(task: string, opts: HarborCheckOptions): Promise<HarborCheck> {
  const problems: string[] = [];
  const oracle = await runTask(task, true, opts, problems);
  const nop = await runTask(task, false, opts, problems);
  if (problems.length === 0) problems.push(...judgeRewards(oracle, nop));
  const where = `gitgood's jail (${opts.isolation.mode}) with ${opts.environment ? `the task's environment (${opts.environment.key})` : "git alone"}`;
  return { where, oracle, nop, problems };
}
