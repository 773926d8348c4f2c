import { existsSync, statSync } from "node:fs";
import { Command, Option } from "commander";
import type { RepoLocator } from "../dataset/clones.js";
import { DEFAULT_URL_PATTERN } from "../dataset/repos.js";
import { RepoPool } from "../git/repo-pool.js";
import { useGitThreads } from "../git/threads.js";
import { cloner } from "../queue/clone.js";
import { GitGoodError } from "../errors.js";
import { connectRedis } from "../queue/connection.js";
import { checkClone } from "../queue/executor.js";
import { CACHE, MAX_CONNECTIONS, RECORD_MODEL_IO, isolationLimits, specFromOptions, specValue } from "../runs/spec.js";
import { addSpecOptions } from "./spec-options.js";
import { NAMED_ONLY_AGENTS, checkPolicy, type WorkerPolicy } from "../queue/policy.js";
import { queueSecret } from "../queue/secret.js";
import { DEFAULT_SPILL_BYTES } from "../queue/jobs.js";
import { queueKeys } from "../queue/keys.js";
import { SharedConnectionLimit } from "../queue/limit.js";
import { DEFAULT_QUEUE_NAME, parseQueueAddress } from "../queue/url.js";
import { DEFAULT_LOCK_MS, startWorker } from "../queue/worker.js";
import { WorkerProxies } from "../queue/proxies.js";
import { withRunPacks } from "../runs/executor.js";
import { modelOptionsOf, parseTicket, runTicket } from "../runs/ticket.js";
// The families' agents (a predictions file's) and scenario settings are made from tickets too.
import { ticketScenarioSettings } from "../families/options.js";
import { DEFAULT_DOCKER_IMAGE, DEFAULT_ISOLATION, isolationModes, chooseIsolation, isolationHelp, isolationNote } from "../sandbox/isolation.js";
import { sandboxRoot, sweepStale } from "../sandbox/sweep.js";
import { repeatable } from "../util/options.js";
import { escapeControls } from "../util/escape.js";
import { positiveIntOption, type CliIO } from "./io.js";

interface WorkerFlags {
  queue: string;
  queueName: string;
  concurrency: number;
  repos: string;
  clone: boolean;
  urlPattern: string;
  spillDir?: string;
  spillBytes: number;
  lockDuration: number;
  secretFile?: string;
  isolation: string;
  dockerImage: string;
  network: boolean;
  allowRead?: string[];
  passEnv?: string[];
  allowAgents?: string;
}

/** The worker's own policy from its flags; a flag naming what cannot be (an isolation that cannot run here, an unknown agent kind) is one line. */
function policyOf(flags: WorkerFlags, io: CliIO): WorkerPolicy {
  const agents = (flags.allowAgents ?? "").split(",").map((a) => a.trim()).filter(Boolean);
  const unknown = agents.find((a) => !NAMED_ONLY_AGENTS.includes(a));
  if (unknown !== undefined) throw new GitGoodError("BAD_OPTION", `--allow-agents takes ${NAMED_ONLY_AGENTS.join(", ")} (other agents need no leave), not '${unknown}'`);
  // The most this worker gives must be able to run here: refused at start-up, not job by job.
  const spec = specFromOptions(flags as unknown as Record<string, unknown>);
  const most = chooseIsolation({
    mode: flags.isolation,
    network: flags.network,
    dockerImage: flags.dockerImage,
    allowRead: flags.allowRead ?? [],
    passEnv: flags.passEnv ?? [],
    ...isolationLimits(spec, null),
  });
  const note = isolationNote(most);
  if (note !== null) io.stderr.write(`${note}\n`);
  return { isolation: most.mode, dockerImage: most.dockerImage, network: most.network, allowRead: most.allowRead, passEnv: most.passEnv, agents, spec };
}

export function workerCommand(io: CliIO): Command {
  const cmd = new Command("worker")
    .description("take jobs of a 'gitgood run --queue' from Redis and run each in a local sandbox, from local clones (run on any number of machines)")
    .requiredOption("--queue <url>", "the queue's Redis: redis://HOST:PORT[/DB]")
    .option("--queue-name <name>", "the queue's name on that server", DEFAULT_QUEUE_NAME)
    .option("-c, --concurrency <n>", "jobs at once", positiveIntOption("--concurrency"), 1)
    .requiredOption("--repos <dir>", "directory of clones at DIR/owner/repo (as 'gitgood dataset repos' makes them)")
    .option("--clone", "clone a repository missing from --repos (or fetch a missing commit) from its URL before its job runs", false)
    .option("--url-pattern <pattern>", "with --clone: the remote of a sample's repository, {name} being owner/repo (https, http, ssh, git, user@host:path, or file:///DIR/{name} for local repositories under DIR)", DEFAULT_URL_PATTERN)
    .option("--spill-dir <dir>", "a directory the producer can read too (a shared mount): trajectories over --spill-bytes compressed go there by path instead of into Redis")
    .option("--spill-bytes <n>", "the compressed size from which a trajectory is spilled", positiveIntOption("--spill-bytes"), DEFAULT_SPILL_BYTES)
    .option("--secret-file <file>", "the file holding the secret shared with the producer (default: $GITGOOD_QUEUE_SECRET); jobs not signed with it are refused, results are signed with it")
    .addOption(
      new Option("--isolation <mode>", `the isolation jobs run under at most (a job may ask for no less): ${isolationHelp()}`).choices(isolationModes()).default(DEFAULT_ISOLATION),
    )
    .option("--docker-image <image>", "the one image jobs of --isolation docker may use", DEFAULT_DOCKER_IMAGE)
    .option("--network", "let jobs that ask for it give their isolated agent programs the network", false)
    .option("--allow-read <path>", "a path (and what is under it) jobs may let their agent programs read (repeatable)", repeatable)
    .option("--pass-env <name>", "a variable of this worker's environment jobs may pass to their agent programs (repeatable)", repeatable)
    .option("--allow-agents <kinds>", `agent kinds that run a program or reach an address the job names, which this worker runs: ${NAMED_ONLY_AGENTS.join(",")} (none by default)`)
    .option("--lock-duration <ms>", "how long a job stays this worker's without a sign of life; the jobs of a killed worker go back to the queue after it", positiveIntOption("--lock-duration"), DEFAULT_LOCK_MS);
  // The run settings (the jail's limits) of a worker are the most a job may ask for.
  return addSpecOptions(cmd, "limit")
    .addHelpText("after", "\nThe jail's limits above (--max-processes, --max-memory, --max-disk) are the most a job may ask for; a job asking\nfor more, or for --accept-weak-limits when this worker was not given it, is refused (POLICY_REFUSED).")
    .action(async (flags: WorkerFlags) => {
      const address = parseQueueAddress(flags.queue, flags.queueName);
      const secret = queueSecret(flags.secretFile);
      const policy = policyOf(flags, io);
      if (!flags.clone && (!existsSync(flags.repos) || !statSync(flags.repos).isDirectory())) {
        throw new GitGoodError("NOT_FOUND", `--repos ${flags.repos} is not a directory`);
      }
      const where: RepoLocator = { repos: flags.repos };
      // A --url-pattern that is not a plain remote is refused here, before the worker takes a job.
      const fetchClone = flags.clone ? cloner(flags.repos, flags.urlPattern) : null;
      // What a worker killed before left behind: its sandboxes (their process is gone) are removed first.
      const swept = sweepStale(sandboxRoot());
      if (swept.length > 0) io.stderr.write(`swept ${swept.length} sandbox(es) left by a killed gitgood process\n`);
      const redis = await connectRedis(address);
      const limits = new Map<number, SharedConnectionLimit>();
      const sharedLimit = (max: number): SharedConnectionLimit => {
        let limit = limits.get(max);
        if (!limit) limits.set(max, (limit = new SharedConnectionLimit(redis, queueKeys(address).connections, max)));
        return limit;
      };
      // External agents and CLI-agent presets reach their model through this worker's proxy, with this worker's keys.
      const proxies = new WorkerProxies();
      const log = (line: string): void => void io.stderr.write(`${escapeControls(line)}\n`);
      // Each repository is opened once for the worker's life, with its long-lived reader, as a local run
      // opens its sources once: not a probe and a git process per object read in every job.
      const sources = new RepoPool();
      const found = new Set<string>();
      // One pack cache for the worker's life, as a local run has one for its pool: the packs of a starting
      // point are built once for its scenarios and repeats, and sandboxes are removed in the background.
      // Several jobs at once start their git processes from git threads, as the local pool's do.
      const threads = flags.concurrency > 1 ? useGitThreads(Math.min(flags.concurrency, 8)) : null;
      await withRunPacks(async (packs) => {
        const worker = await startWorker({
          address,
          secret,
          concurrency: flags.concurrency,
          spillDir: flags.spillDir ?? null,
          spillBytes: flags.spillBytes,
          lockMs: flags.lockDuration,
          log,
          run: async (data) => {
            const ticket = parseTicket(data.ticket);
            // Refused before anything of the job runs: no clone fetched, no agent made.
            checkPolicy(ticket, policy);
            if (fetchClone) await fetchClone(ticket.sample);
            await checkClone(ticket.sample, where, (dir) => sources.get(dir), found);
            // --max-connections holds across every worker of the queue, not per process.
            const plain = modelOptionsOf({ ...ticket.spec, [MAX_CONNECTIONS.key]: null });
            const max = specValue(ticket.spec, MAX_CONNECTIONS);
            const models = max === null ? plain : { ...plain, connections: sharedLimit(max) };
            const proxy = proxies.for(`${max ?? "-"} ${specValue(ticket.spec, CACHE)}`, specValue(ticket.spec, RECORD_MODEL_IO), models);
            // runTicket gives the job the isolation and jail limits its spec asks for, which checkPolicy found within this worker's.
            return runTicket(ticket, { where, models, proxy, packs, sources, settings: ticketScenarioSettings });
          },
        });
        io.stderr.write(`gitgood worker ${worker.id}: taking jobs from ${address.name} at ${address.shown}, ${flags.concurrency} at a time (stop with Ctrl-C)\n`);
        await new Promise<void>((resolve) => {
          if (io.signal?.aborted) return resolve();
          io.signal?.addEventListener("abort", () => resolve(), { once: true });
          if (io.ownsProcess) for (const s of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.once(s, () => resolve());
        });
        io.stderr.write(`gitgood worker ${worker.id}: stopping after the jobs it holds\n`);
        await worker.close();
      });
      await threads?.();
      await proxies.close();
      await sources.close();
      redis.disconnect();
    });
}
