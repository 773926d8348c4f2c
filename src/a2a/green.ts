import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { TaskState } from "@a2a-js/sdk";
import type { AgentExecutor, ExecutionEventBus, RequestContext } from "@a2a-js/sdk/server";
import { A2aAgent, type ToolHost } from "../agents/a2a.js";
import { agentSupports } from "../agents/agent.js";
import type { Sample } from "../dataset/sample.js";
import { samplesDigest } from "../dataset/digest.js";
import { GitGoodError, toGitGoodError } from "../errors.js";
import { Repo } from "../git/repo.js";
import { lookupModel } from "../model/lookup.js";
import type { ResultRecord } from "../runs/record.js";
import { chooseIsolation, DEFAULT_ISOLATION, type Isolation } from "../sandbox/isolation.js";
import { IDS, JUDGES, MAX_TURNS, TIMEOUT, familyFragments, isolationLimits, narrowedSpec, specFromOptions, type RunSpec } from "../runs/spec.js";
import { runConfig } from "../runs/config.js";
import { runBenchmark } from "../runs/runner.js";
import { RunStore } from "../runs/store.js";
import { scenariosFor } from "../scenarios/registry.js";
import { familyScenarioSettings } from "../families/options.js";
import { families, familyOfScenario } from "../families/registry.js";
import { escapeControls } from "../util/escape.js";
import { mapPool } from "../util/pool.js";
import { assessmentSamples, confineToData, parseAssessment, type Assessment } from "./assessment.js";
import { TaskEvents, dataPart, requestText, textPart } from "./events.js";
import { assessmentResult } from "./result.js";

/** Seconds per instance when the request says nothing. */
export const DEFAULT_INSTANCE_TIMEOUT = 1800;

/** How the green (assessor) executor runs assessments: where runs go, what requests may name, and its limits. */
export interface GreenOptions {
  /** Each assessment's run directory is made here, named after its task id. */
  outDir: string;
  /** Serves GitGoodBench scenarios' tools to participants (mounted in the green's own HTTP server). */
  toolHost: ToolHost;
  /** Where SWE tasks' REPO_DIR copies are made (a directory the participants can reach). */
  sharedDir?: string;
  /** The bearer token sent to the participant a request names, to its URL's origin only (default: $GITGOOD_A2A_PARTICIPANT_TOKEN, else none). */
  participantToken?: string;
  idleSeconds?: number;
  pollSeconds?: number;
  /** The real paths of the directories requests may name paths in (`--data`); a path elsewhere fails its task. */
  dataRoots: readonly string[];
  /** Most assessments at once (`--max-assessments`); one more fails at once, saying the server is busy. */
  maxAssessments: number;
  /** How the programs of evaluations (test runs, builds) are isolated (default: the default isolation, refused where it cannot run). */
  isolation?: Isolation;
  /** The operator's run settings (`a2a serve`'s options): the most a request may ask for (default: every default). */
  spec?: RunSpec;
  /** Receives one line per event of a task (started, each instance finished, failed, cancelled), without a newline. */
  log: (line: string) => void;
}

/** Wrong repositories are the request's fault: said at once, before any instance runs. */
async function checkWhere(a: Assessment): Promise<void> {
  if ("repo" in a.where) {
    try {
      await Repo.open(a.where.repo);
    } catch (err) {
      throw new GitGoodError("BAD_ASSESSMENT", `invalid params: config.repo: ${toGitGoodError(err).message}`);
    }
  } else if (!existsSync(a.where.repos) || !statSync(a.where.repos).isDirectory()) {
    throw new GitGoodError("BAD_ASSESSMENT", `invalid params: config.repos: ${a.where.repos} is not a directory`);
  }
}

/** One line of the log per finished instance. */
function progressLine(r: ResultRecord, done: number, total: number): string {
  const status = familyOfScenario(r.scenario)?.a2aStatus?.(r) ?? r.verdict;
  const error = r.error ? ` (${r.error.code}: ${r.error.message})` : "";
  return escapeControls(`[${done}/${total}] ${r.sample_id} ${r.scenario}: ${status}${error}`);
}

/**
 * The green (evaluator) agent: each task is one assessment. The request is checked (a malformed one
 * fails its task with "invalid params: …", and the server goes on serving), then every instance is
 * run against the participant with `max_concurrent_rows` at a time, through gitgood's runner into a
 * normal run directory. Each finished instance is one `working` status line; the end is one artifact
 * named `Result` (a text summary and a data part). `tasks/cancel` stops what remains; the Result then
 * covers the instances that had finished.
 */
export class GreenExecutor implements AgentExecutor {
  private readonly running = new Map<string, AbortController>();
  /** Assessments past their checks and not yet ended. */
  private assessing = 0;

  constructor(private readonly opts: GreenOptions) {}

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const events = new TaskEvents(ctx, bus);
    events.start();
    const cancel = new AbortController();
    this.running.set(ctx.taskId, cancel);
    let assessment: Assessment;
    let samples: Sample[];
    try {
      assessment = confineToData(parseAssessment(requestText(ctx)), this.opts.dataRoots);
      if (this.assessing >= this.opts.maxAssessments) {
        throw new GitGoodError("SERVER_BUSY", `busy: ${this.assessing} assessment(s) are running, the most this green agent takes at once (--max-assessments); try again later`);
      }
      await checkWhere(assessment);
      samples = await assessmentSamples(assessment);
    } catch (err) {
      this.running.delete(ctx.taskId);
      const e = toGitGoodError(err);
      this.opts.log(`task ${ctx.taskId}: ${e.message}`);
      events.end(TaskState.TASK_STATE_FAILED, e.message, { error: e.code === "BAD_ASSESSMENT" ? "invalid_params" : e.code, message: e.message });
      return;
    }
    this.assessing++;
    try {
      for (const line of assessment.warnings) events.status(TaskState.TASK_STATE_WORKING, line);
      await this.assess(ctx, events, assessment, samples, cancel.signal);
    } catch (err) {
      const e = toGitGoodError(err);
      this.opts.log(`task ${ctx.taskId} failed: ${e.message}`);
      events.end(TaskState.TASK_STATE_FAILED, `the assessment failed: ${e.message}`, { error: e.code, message: e.message });
    } finally {
      this.assessing--;
      this.running.delete(ctx.taskId);
    }
  }

  private async assess(ctx: RequestContext, events: TaskEvents, a: Assessment, samples: Sample[], cancelled: AbortSignal): Promise<void> {
    const agent = new A2aAgent({
      url: a.url,
      ...(this.opts.participantToken !== undefined ? { token: this.opts.participantToken } : {}),
      toolHost: this.opts.toolHost,
      sharedDir: this.opts.sharedDir,
      scenarios: a.scenarios,
      signal: cancelled,
      idleSeconds: this.opts.idleSeconds,
      pollSeconds: this.opts.pollSeconds,
    });
    const judges = a.judges.map((m) => lookupModel(m));
    const timeout = a.config.timeout ?? DEFAULT_INSTANCE_TIMEOUT;
    const operator = this.opts.spec ?? specFromOptions({});
    const narrowed = narrowedSpec(operator, a.requested);
    const isolation = this.isolationFor(narrowed, operator);
    // The participant answers each instance in one turn, within the request's time (or the default), judged by the request's judges;
    // the families' settings are those the assessment's config asks for (the SWE hints), the others at their defaults.
    const spec: RunSpec = {
      ...narrowed,
      [TIMEOUT.key]: timeout,
      [MAX_TURNS.key]: 1,
      [IDS.key]: samples.map((s) => s.id),
      [JUDGES.key]: [...a.judges],
      ...assessedFragments(a.config),
    };
    const runDir = path.join(this.opts.outDir, ctx.taskId);
    const store = RunStore.open(
      runDir,
      runConfig(
        {
          samples: [a.config.dataset],
          samplesDigest: samplesDigest(samples),
          agent: agent.name,
          where: a.where,
          jobs: a.config.max_concurrent_rows ?? 1,
          spec,
          ...(isolation ? { isolation } : {}),
        },
        (p) => path.resolve(p),
      ),
    );
    const total = samples.reduce((n, s) => n + scenariosFor(s).filter((d) => agentSupports(agent, d)).length, 0);
    events.status(TaskState.TASK_STATE_WORKING, `assessing ${a.role} (${a.url}) on ${total} instance(s) of ${samples.length} sample(s); run directory ${runDir}`);
    this.opts.log(`task ${ctx.taskId}: ${total} instance(s) for ${a.url}, run directory ${runDir}`);
    const finished: ResultRecord[] = [];
    // The families' scenario settings, made from the spec as a run's are (the isolation of their programs: the sandbox's default).
    const settings = familyScenarioSettings(spec, "run", { isolation: undefined, model: undefined, envs: null });
    const perSample = async (sample: Sample): Promise<void> => {
      if (cancelled.aborted) return;
      await runBenchmark({
        samples: [sample],
        where: a.where,
        agent,
        store,
        jobs: 1,
        spec: { timeout_s: timeout, max_turns: 1 },
        judges,
        ...(isolation ? { isolation } : {}),
        settings,
        onResult: (r) => {
          if (cancelled.aborted) return; // stopped by the cancel: not an instance that finished
          finished.push(r);
          events.status(TaskState.TASK_STATE_WORKING, progressLine(r, finished.length, total));
        },
      });
    };
    for await (const _ of mapPool(samples, a.config.max_concurrent_rows ?? 1, perSample));
    const result = assessmentResult(finished, {
      role: a.role,
      agent: agent.name,
      runDir,
      scenarios: a.scenarios,
      cancelled: cancelled.aborted,
      greenAgentModel: a.config.green_agent_model,
    });
    events.artifact("Result", [textPart(result.text), dataPart(result.data)]);
    this.opts.log(`task ${ctx.taskId}: ${result.text.split("\n")[0] ?? ""}`);
    events.end(cancelled.aborted ? TaskState.TASK_STATE_CANCELED : TaskState.TASK_STATE_COMPLETED, result.text);
  }

  /** The operator's isolation, with the limits a request narrowed (the same when it asked for none). */
  private isolationFor(spec: RunSpec, operator: RunSpec): Isolation | undefined {
    const iso = this.opts.isolation;
    if (JSON.stringify(spec) === JSON.stringify(operator)) return iso;
    return chooseIsolation({
      mode: iso?.mode ?? DEFAULT_ISOLATION,
      network: iso?.network ?? false,
      ...(iso ? { dockerImage: iso.dockerImage, allowRead: iso.allowRead, passEnv: iso.passEnv } : {}),
      ...isolationLimits(spec, iso?.limits?.cpu ?? null),
    });
  }

  /** Stops an assessment: no new instance starts, the running ones are stopped, and the Result covers what finished. */
  async cancelTask(taskId: string): Promise<void> {
    this.opts.log(`task ${taskId}: cancelled`);
    this.running.get(taskId)?.abort();
  }
}

/**
 * The families' fragments of an assessment's spec: each family's settings at their defaults, with those the
 * assessment's config asks for (`a2aSettings`: the SWE hints) over them.
 */
function assessedFragments(config: Readonly<Record<string, unknown>>): Record<string, Record<string, unknown>> {
  const fragments = familyFragments({});
  for (const family of families()) {
    for (const [key, asked] of Object.entries(family.a2aSettings?.(config) ?? {})) fragments[key] = { ...fragments[key], ...asked };
  }
  return fragments;
}
