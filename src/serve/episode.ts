import { randomUUID } from "node:crypto";
import type { RepoLocator } from "../dataset/clones.js";
import type { Sample } from "../dataset/sample.js";
import { GitGoodError, toGitGoodError } from "../errors.js";
import type { HistoryDepth } from "../git/store.js";
import { Attempt, type ClientInfo, type Recorder } from "../mcp/attempt.js";
import { FINISH, finishScenario } from "../mcp/bench-tools.js";
import type { OfferedTool } from "../mcp/descriptors.js";
import type { ResultRecord } from "../runs/record.js";
import { attemptKey } from "../runs/result.js";
import { chooseScenario } from "../scenarios/index.js";
import type { InitialContext } from "../scenarios/types.js";
import type { ToolResult } from "../tools/tool.js";

/** What `gitgood serve` serves: the samples of one split, where their repositories are, and where episodes are recorded. */
export interface ServeSource {
  samples: readonly Sample[];
  where: RepoLocator;
  recorder: Recorder;
  /** The split the samples are served as (ORS lists it; OpenEnv has no splits). */
  split: string;
  /** History below each scenario's start in its sandbox (default: DEFAULT_HISTORY). */
  history?: HistoryDepth;
  /** Scenario settings (MCR: `mcrTools`). */
  settings?: Record<string, unknown>;
}

/** Which task a new episode works on: a sample by id, else by seed (an index modulo the samples), else the next in turn. */
export interface EpisodeChoice {
  sampleId?: string;
  /** Which of the sample's scenarios, when it gives several. */
  scenario?: string;
  seed?: number;
}

/** What one action did: the tool's result, and at the episode's end its reward and record. */
export interface StepOutcome {
  result: ToolResult;
  done: boolean;
  /** The terminal reward (null before the end, and when no scorer decided: IR/ICC without a judge). */
  reward: number | null;
  /** The record written at the end of the episode. */
  record: ResultRecord | null;
}

/** The terminal reward of a recorded attempt: 1 solved, 0 not (an error included), null when nothing decided (unjudged). */
function rewardOf(record: ResultRecord): number | null {
  if (record.status === "error") return 0;
  return record.solved === null ? null : record.solved ? 1 : 0;
}

function errorResult(tool: string, err: GitGoodError): ToolResult {
  return { tool, ok: false, output: `error: ${err.message}`, error: { code: err.code, message: err.message } };
}

/**
 * One episode: an attempt at one scenario of one sample in a fresh sandbox, set up and recorded as
 * `gitgood mcp` sets up and records a client's attempt (the runner's settle path). Its actions are the
 * scenario's tools and finish_scenario; it ends when the scenario is complete or finish_scenario is
 * called, and is then scored: the record's verdict is the reward. Actions run one at a time.
 */
export class Episode {
  readonly id: string;
  private steps = 0;
  private outcome: StepOutcome | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private limit: NodeJS.Timeout | null = null;

  private constructor(
    private readonly attempt: Attempt,
    id: string | undefined,
  ) {
    this.id = id ?? randomUUID();
  }

  /** The episode of an attempt set up for it (cold, or taken from the warm pool). */
  static of(attempt: Attempt, id?: string): Episode {
    return new Episode(attempt, id);
  }

  get key(): string {
    return this.attempt.key;
  }

  get sample(): Sample {
    return this.attempt.sample;
  }

  get scenarioName(): string {
    return this.attempt.definition.name;
  }

  get context(): InitialContext {
    return this.attempt.context;
  }

  get stepCount(): number {
    return this.steps;
  }

  /** The episode has ended (scored, or abandoned). */
  get done(): boolean {
    return this.outcome !== null || !this.attempt.isOpen;
  }

  /** The end of the episode, once it has ended by an action. */
  get last(): StepOutcome | null {
    return this.outcome;
  }

  /** The actions: the scenario's tools (names and schemas as `gitgood mcp` lists them) and finish_scenario. */
  tools(): OfferedTool[] {
    return [
      ...this.attempt.scenario.tools.tools.map((tool) => ({ tool, destructive: true })),
      { tool: finishScenario, destructive: true },
    ];
  }

  /**
   * Ends the episode as a TIMEOUT at `deadline` (epoch ms), a wall-clock limit counted from when the client
   * asked for it, set-up included: one past already (set-up alone took longer) ends it at once. An action
   * running at the deadline finishes first (each tool has its own limit); none runs after it.
   */
  async limitTo(deadline: number, seconds: number): Promise<void> {
    const expire = (): Promise<void> => {
      const run = this.queue.then(() => this.timeOut(seconds));
      this.queue = run.catch(() => undefined);
      return run;
    };
    const left = deadline - Date.now();
    if (left <= 0) return expire();
    this.limit = setTimeout(() => void expire(), left);
    this.limit.unref();
  }

  private timeOut(seconds: number): void {
    if (this.done) return;
    const err = new GitGoodError("TIMEOUT", `the episode did not end within its ${seconds} s limit (set-up included)`, { seconds });
    const record = this.attempt.abandon(err, "timeout", true);
    this.outcome = { result: errorResult("timeout", err), done: true, reward: record ? rewardOf(record) : 0, record };
  }

  /** Runs one action after those before it; never throws: a failure comes back as an error result. */
  step(name: string, args: unknown): Promise<StepOutcome> {
    const run = this.queue.then(() => this.act(name, args));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async act(name: string, args: unknown): Promise<StepOutcome> {
    if (this.done) {
      const over = errorResult(name, new GitGoodError("NO_SCENARIO", "this episode is over: reset to start another"));
      return { result: over, done: true, reward: this.outcome?.reward ?? null, record: this.outcome?.record ?? null };
    }
    this.steps++;
    if (name === FINISH) {
      this.attempt.note(name, args, { ok: true, output: "submitted" });
      return this.end(name, { tool: name, ok: true, output: "Your work is submitted and scored." });
    }
    if (!this.attempt.scenario.toolNames().includes(name)) {
      const names = this.tools().map((o) => o.tool.name);
      const why = `there is no tool '${name}' in this episode; its tools are: ${names.join(", ")}`;
      return { result: errorResult(name, new GitGoodError("UNKNOWN_TOOL", why)), done: false, reward: null, record: null };
    }
    const r = await this.attempt.call(name, args);
    if (r.ok && r.done) return this.end("done", r);
    return { result: r, done: false, reward: null, record: null };
  }

  /** Scores and records the episode; a failure to score is recorded as the attempt's error by the settle path. */
  private async end(endedBy: string, result: ToolResult): Promise<StepOutcome> {
    let record: ResultRecord;
    try {
      record = await this.attempt.finish(endedBy);
    } catch (err) {
      const e = toGitGoodError(err);
      return { result: errorResult(result.tool, e), done: true, reward: null, record: null };
    }
    this.outcome = { result, done: true, reward: rewardOf(record), record };
    this.clearLimit();
    return this.outcome;
  }

  /**
   * Ends an episode left before its end (the client went away, reset again, or was idle too long): after
   * the action in progress, recorded as CLIENT_DISCONNECTED unless no action was taken (then only its
   * sandbox is removed).
   */
  async close(how: string): Promise<void> {
    this.clearLimit();
    await this.queue;
    if (this.done) return;
    this.attempt.abandon(new GitGoodError("CLIENT_DISCONNECTED", `${how} before the episode ended (after ${this.steps} action(s))`), "disconnect");
  }

  private clearLimit(): void {
    if (this.limit) clearTimeout(this.limit);
    this.limit = null;
  }

  /** The process is being stopped: records the episode as stopped at once, synchronously. */
  abandonNow(message: string): void {
    this.clearLimit();
    if (!this.done) this.attempt.abandon(new GitGoodError("SERVER_STOPPED", message), "stopped");
  }
}

/** Sets up the attempt of a new episode in a fresh sandbox; `repeat` numbers it among the run's attempts at the same sample × scenario. */
export function setUpAttempt(source: ServeSource, sample: Sample, scenario: string, repeat: number, client: () => ClientInfo | null): Promise<Attempt> {
  return Attempt.start(sample, scenario, source.where, source.recorder, client, source.history, source.settings, false, repeat);
}

/** The attempt keys a sample × scenario already has in the run, and those of live episodes: the next repeat is the first free one. */
export function nextRepeat(recorder: Recorder, live: ReadonlySet<string>, sample: Sample, scenario: string | undefined): number {
  const name = chooseScenario(sample, scenario).name;
  for (let r = 0; ; r++) {
    const key = attemptKey(sample.id, name, false, r);
    if (!recorder.store.has(key) && !live.has(key)) return r;
  }
}
