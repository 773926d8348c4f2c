import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { execIn, type ExecResult } from "../sandbox/exec.js";
import { judgeRewards, readRewards, type HarborCheck, type RewardFiles } from "./harbor-check.js";

/*
 * The gate with a container runtime (`export harbor --runtime podman|docker`): the task's
 * environment/Dockerfile is built for real (its context environment/, as Harbor builds it), then the oracle
 * (solution/ and tests/ mounted read-only, solve.sh then test.sh) and the untouched start (test.sh alone)
 * each run in a fresh container without the network, /logs mounted from a directory of the check's.
 */

/** The container runtimes the check can build and run with. */
export const CONTAINER_RUNTIMES = ["podman", "docker"] as const;
export type ContainerRuntime = (typeof CONTAINER_RUNTIMES)[number];

export interface ContainerCheckOptions {
  runtime: ContainerRuntime;
  /** The image the Dockerfile starts from (its `BASE_IMAGE` build argument); absent: the Dockerfile's own. */
  baseImage?: string;
  /** Seconds the build may take, and each script (defaults: task.toml's 600 each). */
  buildTimeoutSeconds?: number;
  timeoutSeconds?: number;
  signal?: AbortSignal;
}

/**
 * Limits every container gets: the runtime's defaults for open files and processes can be above what the
 * host lets a process set (then runc refuses to start any container); the check's scripts need little.
 */
const LIMITS = ["--ulimit", "nofile=1024:1024", "--ulimit", "nproc=4096:4096"];
const OUTPUT = 8 * 1024;

function output(r: ExecResult): string {
  return `${r.stdout.toString("utf8")}${r.stderr.toString("utf8")}`.slice(-OUTPUT);
}

function lastLine(text: string): string {
  return text.trim().split("\n").at(-1)?.trim() ?? "";
}

let images = 0;

/** Null when `runtime` answers `RUNTIME info` here, else why not (one line). */
export async function containerRuntimeProblem(runtime: ContainerRuntime): Promise<string | null> {
  try {
    const r = await execIn(os.tmpdir(), [runtime, "info"], { timeout: 60, maxOutput: 64 * 1024, keep: "tail" });
    return r.code === 0 ? null : `'${runtime} info' fails: ${lastLine(output(r)) || `exit ${String(r.code)}`}`;
  } catch (err) {
    return `${runtime} cannot be started (${err instanceof Error ? err.message : String(err)})`;
  }
}

/** Runs the gate on the task directory `task` in containers of `opts.runtime`; never throws for the task's own failures. */
export async function checkHarborTaskInContainer(task: string, opts: ContainerCheckOptions): Promise<HarborCheck> {
  const where = `${opts.runtime} (environment/Dockerfile built${opts.baseImage ? ` from ${opts.baseImage}` : ""})`;
  const tag = `localhost/gitgood-harbor-check:${process.pid}-${++images}-${Date.now().toString(36)}`;
  const scratch = realpathSync(mkdtempSync(path.join(os.tmpdir(), "gitgood-harbor-container-")));
  const none: RewardFiles = { reward: null, metrics: null, output: "" };
  const runtime = (args: string[], timeout: number): Promise<ExecResult> =>
    execIn(scratch, [opts.runtime, ...args], { timeout, signal: opts.signal, maxOutput: 256 * 1024, keep: "tail" });
  try {
    const build = await runtime(
      ["build", ...LIMITS, ...(opts.baseImage ? ["--build-arg", `BASE_IMAGE=${opts.baseImage}`] : []), "-t", tag, "-f", path.join(task, "environment", "Dockerfile"), path.join(task, "environment")],
      opts.buildTimeoutSeconds ?? 600,
    );
    if (build.code !== 0 || build.timedOut) {
      return { where, oracle: none, nop: none, problems: [`environment/Dockerfile does not build with ${opts.runtime}: ${lastLine(output(build))}`] };
    }
    const problems: string[] = [];
    const run = async (oracle: boolean): Promise<RewardFiles> => {
      const logs = mkdtempSync(path.join(scratch, "logs-"));
      const mounts = ["-v", `${path.join(task, "tests")}:/tests:ro`, "-v", `${logs}:/logs`, ...(oracle ? ["-v", `${path.join(task, "solution")}:/solution:ro`] : [])];
      const script = oracle ? "bash /solution/solve.sh && bash /tests/test.sh" : "bash /tests/test.sh";
      const r = await runtime(["run", "--rm", "--network", "none", ...LIMITS, ...mounts, tag, "bash", "-c", script], opts.timeoutSeconds ?? 600);
      if (r.code !== 0 || r.timedOut) problems.push(`${oracle ? "the oracle" : "the untouched start"}: ${r.timedOut ? "ran out of time" : `exit ${String(r.code)}`}: ${lastLine(output(r))}`);
      return readRewards(logs, output(r));
    };
    const oracle = await run(true);
    const nop = await run(false);
    if (problems.length === 0) problems.push(...judgeRewards(oracle, nop));
    return { where, oracle, nop, problems };
  } finally {
    await runtime(["rmi", "-f", tag], 120);
    rmSync(scratch, { recursive: true, force: true });
  }
}
