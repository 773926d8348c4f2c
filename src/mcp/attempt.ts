import type { Sample } from "../dataset/sample.js";
import { repositoryPath, type RepoLocator } from "../dataset/clones.js";
import { GitGoodError, toGitGoodError } from "../errors.js";
import { Repo } from "../git/repo.js";
import type { HistoryDepth } from "../git/store.js";
import type { ResultRecord } from "../runs/record.js";
import { AgentSession } from "../runs/session.js";
import { keyOf, settle, settleFailedNow, type Attempt as AttemptState, type Recorder } from "../runs/settle.js";
import type { AnyScenarioDefinition } from "../scenarios/definition.js";
import { chooseScenario } from "../scenarios/index.js";
import type { InitialContext, LiveScenario, ScenarioToolResult } from "../scenarios/types.js";

export type { Recorder };

/** What the server knows about the client on the other end (from the MCP handshake). */
export interface ClientInfo {
  name: string;
  version: string;
  transport: "stdio" | "http";
}

/**
 * One scenario an MCP client works on: its sandbox, its trajectory (every tool call and result), and its
 * end, through the runner's settle path: scored and recorded when the client finishes, or recorded as an
 * error when it goes away first. Either way the sandbox is removed and at most one record is appended:
 * none for a scenario the client never started (set up for it, but no tool called), and none when the
 * client goes away from a scenario whose key has a successful record already (a disconnect never
 * replaces a finished attempt).
 */
export class Attempt {
  readonly session: AgentSession;
  private readonly controller = new AbortController();
  private readonly state: AttemptState;
  private ended = false;

  private constructor(
    readonly scenario: LiveScenario,
    source: Repo,
    readonly context: InitialContext,
    private readonly recorder: Recorder,
    private readonly client: () => ClientInfo | null,
    /** The client has started the scenario: asked for it (start_scenario) or called a tool in it. */
    private started: boolean,
    repeat: number,
  ) {
    this.session = new AgentSession(scenario, context, Number.MAX_SAFE_INTEGER, this.controller.signal);
    this.state = {
      sample: scenario.sample,
      scenario: scenario.definition,
      memory: false,
      repeat,
      startedAt: new Date(),
      live: scenario,
      source,
      session: this.session,
      context,
    };
  }

  /** The attempt's key in the run: sample, scenario and repeat. */
  get key(): string {
    return keyOf(this.state);
  }

  /**
   * Sets the scenario up in a new sandbox (removed again if reading its context fails). An MCP client
   * acts only through the tools, so only the files the scenario touches are written. `started`: the
   * client asked for this scenario; else (one served before the client connects) its first tool call
   * starts it. `repeat`: which attempt at this sample × scenario it is in the run (its key's `#r`; `gitgood
   * serve` records every episode).
   */
  static async start(
    sample: Sample,
    which: string | AnyScenarioDefinition | undefined,
    where: RepoLocator,
    recorder: Recorder,
    client: () => ClientInfo | null,
    history?: HistoryDepth,
    settings?: Record<string, unknown>,
    started = true,
    repeat = 0,
  ): Promise<Attempt> {
    const definition = chooseScenario(sample, which);
    const source = await Repo.open(repositoryPath(where, sample));
    // The server's settings (SWE's evaluation options) and this scenario's (MCR's tool set).
    const all = { ...recorder.settings, ...settings };
    const scenario: LiveScenario = await definition.setup(sample, source, { history, workTree: "tools", settings: all });
    try {
      return new Attempt(scenario, source, await scenario.initialContext(), recorder, client, started, repeat);
    } catch (err) {
      scenario.close();
      throw err;
    }
  }

  get sample(): Sample {
    return this.scenario.sample;
  }

  get definition(): AnyScenarioDefinition {
    return this.scenario.definition;
  }

  /** The run directory the attempt is recorded in. */
  get runDir(): string {
    return this.recorder.store.dir;
  }

  get isOpen(): boolean {
    return !this.ended;
  }

  /**
   * Hands a sandbox set up ahead (gitgood serve's warm pool) to the client that asked at `at`: the attempt
   * becomes repeat `repeat` of its sample × scenario, and its clock (its record's start and duration) starts
   * at the ask, as does the clock of one set up after it.
   */
  handOut(repeat: number, at: Date): void {
    this.state.repeat = repeat;
    this.state.startedAt = at;
  }

  /** Calls a scenario tool and records it. A failure of the call itself comes back as an error result. */
  async call(tool: string, args: unknown): Promise<ScenarioToolResult> {
    this.started = true;
    try {
      return await this.session.call(tool, args);
    } catch (err) {
      const e = toGitGoodError(err);
      const result = { tool, ok: false, output: `error: ${e.message}`, error: { code: e.code, message: e.message }, done: false };
      this.session.recordExternalCall(tool, args, result);
      return result;
    }
  }

  /** Adds a call the server answered itself (task, memory) to the trajectory. */
  note(tool: string, args: unknown, result: { ok: boolean; output: string }): void {
    this.started = true;
    this.session.recordExternalCall(tool, args, { ...result, done: this.scenario.isDone() });
  }

  private end(endedBy: string): AttemptState {
    this.ended = true;
    this.controller.abort();
    return { ...this.state, notes: { ended_by: endedBy, client: this.client() } };
  }

  /** Scores the final state, removes the sandbox and appends the record. */
  async finish(endedBy: string): Promise<ResultRecord> {
    if (this.ended) throw new GitGoodError("NO_SCENARIO", "this scenario is already finished");
    return settle(this.end(endedBy), this.recorder);
  }

  /**
   * Records the attempt as failed and removes the sandbox, synchronously (so it also works from a
   * signal handler, where nothing asynchronous gets to run). An attempt the client never started, or
   * one whose key has a successful record already (or any record, in a run that keeps its records),
   * only has its sandbox removed: it returns null. `always`: recorded even when the client never started
   * it (an episode that ran out of its time limit during set-up).
   */
  abandon(error: GitGoodError, endedBy: string, always = false): ResultRecord | null {
    if (this.ended) return null;
    const kept = this.recorder.store.get(this.key);
    if ((!this.started && !always) || kept?.status === "success" || (kept && this.recorder.store.keepsRecords)) {
      this.end(endedBy);
      this.scenario.close();
      return null;
    }
    return settleFailedNow(this.end(endedBy), this.recorder, error);
  }
}
