import { Command } from "commander";
import { agentUsesModel } from "../agents/index.js";
import { RunProxy, upstreamsFromEnv } from "../proxy/index.js";
import { GitGoodError } from "../errors.js";
import { buildReport } from "../report/summary.js";
import { formatReport } from "../report/text.js";
import type { RepoLocator } from "../dataset/clones.js";
import type { ResolvedConfig } from "../runs/config.js";
import { addRunOptions } from "./run-options.js";
import { type RunFlags } from "../runs/flags.js";
import { addSpecOptions } from "./spec-options.js";
import { checkLocator, defaultRunDir, flagRunConfig, isolationFrom, judgesOf, loadSelected, modelOptions, printPlan, probeIsolationOf, runFromFlags, selectionOf, type FlagRun } from "../runs/from-flags.js";
import { agentFromSpec, ticketBase, ticketFor, type AgentSpec } from "../runs/ticket.js";
import type { QueueExecutor } from "../queue/executor.js";
import type { RunQueue } from "../queue/producer.js";
import { DEFAULT_QUEUE_NAME, parseQueueAddress, type QueueAddress } from "../queue/url.js";
import { sayOnStop } from "./stop-line.js";
import { escapeControls } from "../util/escape.js";
import type { ToolHostServer } from "../mcp/tool-host.js";
import { isolates } from "../sandbox/isolation.js";
import { RepoPool } from "../git/repo-pool.js";
import { addFamilyOptions } from "./family-options.js";
import { familyScenarioSettings, finishFamilies, prepareFamilies } from "../families/options.js";
import { RECORD_MODEL_IO, specFromOptions, specValue } from "../runs/spec.js";
import { repeatable } from "../util/options.js";
import { matrixCells } from "../runs/matrix.js";
import type { ResultRecord } from "../runs/record.js";
import { resolvedConfig, withConfig } from "./config.js";
import { checkOutcome } from "./outcome.js";
import { progressPrinter } from "./progress.js";
import type { CliIO } from "./io.js";

/**
 * `gitgood run`: runs the benchmark for the flags and prints the report; with several agents or models
 * (`--agent a,b`, `--model x,y`), a run per combination under --out, then their comparison.
 */
async function run(files: string[], flags: RunFlags, io: CliIO, config: ResolvedConfig): Promise<void> {
  const cells = matrixCells(flags.agent, flags.model);
  if (cells.length === 1) {
    await runOne(files, flags, io, config, true);
    return;
  }
  const out = flags.out ?? defaultRunDir([...files, ...(flags.dataset ?? [])], "matrix");
  // A matrix's comparison (the report's formats, HTML among them) is loaded by matrix runs alone.
  const { runMatrixFromFlags } = await import("./run-matrix.js");
  await runMatrixFromFlags(cells, flags, out, io, (cellFlags) => runOne(files, cellFlags, io, config, false));
}

/**
 * One run for the flags; its records. With `report`, the report is printed and the exit status checked;
 * without (a matrix's cell), the matrix does both for all its runs.
 */
async function runOne(files: string[], flags: RunFlags, io: CliIO, config: ResolvedConfig, report: boolean): Promise<readonly ResultRecord[]> {
  const queueFlags = flags as RunFlags & QueueFlags;
  if ((flags.repo ? 1 : 0) + (flags.repos ? 1 : 0) !== 1) {
    throw new GitGoodError("BAD_OPTION", "give exactly one of --repo PATH (one repository) or --repos DIR (clones at DIR/owner/repo)");
  }
  const where: RepoLocator = flags.repo ? { repo: flags.repo } : { repos: flags.repos as string };
  // Bubblewrap's probe (a jail running `true`) runs while the repository is opened and the samples read.
  const probed = flags.dryRun ? Promise.resolve() : probeIsolationOf(flags);
  // A dry run reports a missing repository in its plan instead of stopping; with --queue the workers' clones count.
  // The repository the check opens is the one the run reads through.
  const sources = flags.dryRun || queueFlags.queue ? null : new RepoPool();
  try {
    if (sources) await checkLocator(where, sources);
    return await runChecked(files, flags, io, config, report, where, probed, sources);
  } finally {
    await sources?.close();
  }
}

/** `runOne` once the repository is checked: the samples, the agent and the run itself. */
async function runChecked(
  files: string[],
  flags: RunFlags,
  io: CliIO,
  config: ResolvedConfig,
  report: boolean,
  where: RepoLocator,
  probed: Promise<void>,
  sources: RepoPool | null,
): Promise<readonly ResultRecord[]> {
  const queueFlags = flags as RunFlags & QueueFlags;
  const all = [...files, ...(flags.dataset ?? [])];
  // The run's spec with the families' fragments: what they make their settings from, here and on a queue's workers.
  const spec = specFromOptions(flags as unknown as Record<string, unknown>, { families: true });
  const prepared = prepareFamilies(spec, await loadSelected(all, selectionOf(flags)), flags.agent, io);
  const samples = prepared.samples;
  const models = modelOptions(flags);
  // The a2a agent's GitGoodBench tasks get their tools over MCP from a server on loopback, started with the run.
  let tools: ToolHostServer | null = null;
  const toolHost = { open: (socket: string) => (tools ? tools.host.open(socket) : Promise.reject(new GitGoodError("INTERNAL", "the MCP tool host is not started"))) };
  // External agents reach their model through the run's recording proxy, started with their first attempt.
  const proxy = new RunProxy({ upstreams: upstreamsFromEnv(), cache: models.cache, connections: models.connections, record: specValue(spec, RECORD_MODEL_IO) });
  const agentSpec: AgentSpec = { name: prepared.agent, model: flags.model ?? null, options: { ...prepared.agentOptions } };
  const { agent, client } = agentFromSpec(agentSpec, spec, models, { toolHost, proxy });
  const model = agentUsesModel(flags.agent) ? flags.model : undefined;
  const dir = flags.out ?? defaultRunDir(all, agent.name);
  if (flags.dryRun) {
    await printPlan(samples, flags, { agent, model, where, dir }, io.stdout);
    return [];
  }
  const judges = judgesOf(flags, models);
  await probed;
  const isolation = isolationFrom(flags, io.stderr);
  let queue: RunQueue | null = null;
  let unsay = (): void => undefined;
  try {
    // The MCP server and the queue's Redis client are loaded only by the runs that use them: they are most
    // of what a plain run's start-up would otherwise read.
    if (flags.agent === "a2a") tools = await (await import("../mcp/tool-host.js")).listenToolHost("127.0.0.1", 0);
    const flagRun: FlagRun = {
      agentName: prepared.agent,
      dir,
      samples,
      files: all,
      where,
      agent,
      model,
      client,
      judges,
      isolation,
      config,
      ...(sources ? { sources } : {}),
      settings: familyScenarioSettings(spec, "run", { isolation, model: flags.model, envs: config.envs ?? null }),
      stderr: io.stderr,
      onResult: progressPrinter(io.stderr),
    };
    if (queueFlags.queue !== undefined) {
      // A bad --queue, an unreachable Redis or a queue holding another run stops here, before anything is written.
      const address = parseQueueAddress(queueFlags.queue, queueFlags.queueName);
      const [{ RunQueue }, { queueExecutor }, { queueIdentity }, { queueSecret }] = await Promise.all([
        import("../queue/producer.js"),
        import("../queue/executor.js"),
        import("../queue/jobs.js"),
        import("../queue/secret.js"),
      ]);
      const secret = queueSecret(queueFlags.secretFile);
      queue = await RunQueue.open(address, queueIdentity(flagRunConfig(flagRun, flags).identity), { secret, spillDir: queueFlags.spillDir ?? null });
      const made = queueExecutorFor(queue, queueExecutor, flags, agentSpec, client?.model, io);
      let executor: QueueExecutor | null = null;
      flagRun.executor = (run) => (executor = made(run));
      unsay = sayOnStop(io, (signal) => producerStopped(signal, address, dir, executor?.left() ?? null));
    }
    const summary = await runFromFlags(flagRun, flags);
    finishFamilies(spec, summary.records, io);
    if (summary.unsupported > 0) {
      io.stderr.write(`${summary.unsupported} scenario(s) skipped: agent ${agent.name} does not work them\n`);
    }
    if (report) {
      const summaryReport = buildReport({ records: summary.records });
      summaryReport.isolation = { mode: isolation.mode, isolated: isolates(isolation) };
      io.stdout.write(flags.json ? `${JSON.stringify(summaryReport, null, 2)}\n` : `${escapeControls(formatReport(summaryReport))}\n`);
      checkOutcome(summary.records, flags);
    }
    if (summary.budgetLine) io.stderr.write(`${summary.budgetLine}\n`);
    return summary.records;
  } finally {
    unsay();
    await queue?.close();
    await tools?.close();
    await proxy.close();
  }
}

/** The line a producer stopped by a signal leaves: what stopped, what the queue still holds, how to go on. */
function producerStopped(signal: string, address: QueueAddress, dir: string, left: number | null): string {
  const where = `queue ${address.name} at ${address.shown}`;
  if (left === null) return `gitgood: run ${dir} stopped by ${signal} before its jobs were on ${where}; run the same command again to queue them`;
  return `gitgood: run ${dir} stopped by ${signal} while waiting for workers: ${left} job(s) not yet collected stay on ${where} (the workers go on with them); run the same command again to collect their results`;
}

/** `--queue URL` and `--queue-name NAME` of `gitgood run`. */
interface QueueFlags {
  queue?: string;
  queueName?: string;
  spillDir?: string;
  secretFile?: string;
}

/**
 * The queue as the run's executor: every job crosses to the workers as its ticket, the agent and judges
 * as their specs (never live objects), with the run's spec (the families' settings in it) and prices. `agent` is the spec
 * this process made its own agent from, so that a worker makes the same one.
 */
function queueExecutorFor(
  queue: RunQueue,
  queueExecutor: typeof import("../queue/executor.js").queueExecutor,
  flags: RunFlags,
  agent: AgentSpec,
  agentModel: string | undefined,
  io: CliIO,
): (run: Parameters<NonNullable<FlagRun["executor"]>>[0]) => QueueExecutor {
  return ({ config }) => {
    const base = ticketBase(config, {
      agent,
      modelPrices: config.config?.prices ?? {},
      agentModel: agentModel ?? null,
    });
    return queueExecutor(queue, (job) => ticketFor(base, job), (line) => void io.stderr.write(`${line}\n`));
  };
}

export function runCommand(io: CliIO): Command {
  const cmd = new Command("run")
    .description("run an agent on samples, each in its own sandbox; score, record and report (re-run to resume)")
    .argument("[samples...]", "samples files: gitgood JSONL, or published Parquet/CSV/JSONL")
    .option("--dataset <file>", "a samples file (same as the positional argument; repeatable)", repeatable)
    .option("--repo <path>", "the repository every sample comes from")
    .option("--repos <dir>", "directory of clones at DIR/owner/repo (as 'gitgood dataset repos' makes them)")
    .option("--out <dir>", "run directory (default: runs/<samples>-<agent>); with several agents or models, the directory of their runs (default: runs/<samples>-matrix)")
    .option("--queue <url>", "run the jobs on 'gitgood worker's through this Redis (redis://HOST:PORT[/DB]) instead of here; re-run to add what is missing")
    .option("--queue-name <name>", "the queue's name on that server (one run at a time per queue)", DEFAULT_QUEUE_NAME)
    .option("--spill-dir <dir>", "with --queue: where this machine sees the workers' --spill-dir; the only place a spilled trajectory is read from")
    .option("--secret-file <file>", "with --queue: the file holding the secret shared with the workers (default: $GITGOOD_QUEUE_SECRET); jobs are signed with it, results not signed with it are refused");
  return withConfig(addFamilyOptions(addSpecOptions(addRunOptions(cmd), "limit"), "run"), "run").action(async (files: string[], flags: RunFlags, command: Command) => {
    await run(files, flags, io, resolvedConfig(command));
  });
}
