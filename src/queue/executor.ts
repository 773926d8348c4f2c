import type { RepoLocator } from "../dataset/clones.js";
import { repositoryPath } from "../dataset/clones.js";
import { sampleCommits } from "../dataset/sample.js";
import type { Sample } from "../dataset/sample.js";
import { GitGoodError } from "../errors.js";
import { objectKinds } from "../git/clone.js";
import { Repo } from "../git/repo.js";
import { scenarioNamed } from "../scenarios/registry.js";
import type { Executor } from "../runs/executor.js";
import type { Job } from "../runs/plan.js";
import { settleAttempt, type Settled } from "../runs/settle.js";
import { parseTicket, type JobTicket } from "../runs/ticket.js";
import type { JobData } from "./jobs.js";
import type { RunQueue, Sink } from "./producer.js";

/**
 * The settled error of a job that every worker failed (WORKER_FAILED): the record the local pool would
 * write for an attempt that never got set up, from the job's ticket.
 */
export async function failedSettled(data: JobData, error: GitGoodError): Promise<Settled> {
  const ticket = parseTicket(data.ticket);
  const attempt = {
    sample: ticket.sample,
    scenario: scenarioNamed(ticket.scenario),
    memory: ticket.memory,
    repeat: ticket.repeat,
    startedAt: new Date(),
    live: null,
    source: null,
    session: null,
    context: null,
  };
  return settleAttempt(attempt, { judges: [], agent: ticket.run.agent }, error);
}

/** The queue as an executor, which can say how many of the run's jobs it has not collected. */
export interface QueueExecutor extends Executor {
  /** Jobs put on the queue (or found there) for this run whose results are not written yet; null before any is queued. */
  left(): number | null;
}

/**
 * The queue as an executor of `runBenchmark`: each job goes onto the queue as its ticket, and each
 * finished job comes back, settled, to the run's writer. Re-running enqueues only the jobs the queue does
 * not hold; jobs a restarted Redis lost are enqueued again while it waits.
 */
export function queueExecutor(queue: RunQueue, ticketOf: (job: Job) => JobTicket, log: (line: string) => void = () => undefined): QueueExecutor {
  let outstanding: Set<string> | null = null;
  return {
    left: () => outstanding?.size ?? null,
    execute: async (jobs, settled) => {
      const byKey = new Map(jobs.map((j) => [j.key, j]));
      const queued = jobs.map((j) => ({ key: j.key, ticket: ticketOf(j) }));
      const { added, present } = await queue.enqueue(queued);
      const waiting = new Set(byKey.keys());
      outstanding = waiting;
      log(`queue ${queue.address.name} at ${queue.address.shown}: ${added} job(s) added, ${present} there already; waiting for workers`);
      const sink: Sink = {
        write: (s) => {
          const job = byKey.get(s.record.key);
          waiting.delete(s.record.key);
          if (job) settled(s, job);
        },
        failed: async (data, error) => {
          const job = byKey.get(data.key);
          waiting.delete(data.key);
          if (job) settled(await failedSettled(data, error), job);
        },
      };
      await queue.drain(queued, sink);
      await queue.release();
    },
  };
}

/**
 * A worker's check of its own clone before it runs a job: the repository is there and holds every commit
 * the sample names. Either failing is this worker's problem, not the job's (another worker's clone may
 * have it): the error is thrown, and the job is retried elsewhere. `open` gives the repository (a
 * worker's pool of open repositories, whose reader answers without a process per question). A commit
 * found once is not looked up again (`known`, shared by the checks of one worker): a clone loses none.
 */
export async function checkClone(
  sample: Sample,
  where: RepoLocator,
  open: (dir: string) => Promise<Repo> = (dir) => Repo.open(dir),
  known: Set<string> = new Set(),
): Promise<void> {
  const dir = repositoryPath(where, sample);
  const commits = sampleCommits(sample)
    .map((c) => c.commit)
    .filter((c) => typeof c === "string" && c !== "" && !known.has(`${dir}\0${c}`));
  if (commits.length === 0) return;
  const repo = await open(dir).catch(() => null);
  if (!repo) throw new GitGoodError("REPO_NOT_FOUND", `this worker has no clone of ${sample.name} at ${dir}`, { repository: dir });
  const kinds = await objectKinds(repo, commits);
  const missing = commits.find((c) => kinds.get(c) !== "commit");
  if (missing !== undefined) {
    throw new GitGoodError("MISSING_COMMIT", `this worker's clone of ${sample.name} (${dir}) lacks commit ${missing} of sample ${sample.id}`, { repository: dir, commit: missing });
  }
  for (const c of commits) known.add(`${dir}\0${c}`);
}
