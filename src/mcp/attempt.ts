import { AgentSession } from "../agents/agent.js";
import type { ModelClient } from "../model/types.js";
import type { Sample } from "../dataset/sample.js";
import { GitGoodError, toGitGoodError } from "../errors.js";
import { Repo } from "../git/repo.js";
import type { ResultRecord } from "../runs/record.js";
import { resultKey } from "../runs/record.js";
import { LABELS, resultRecord } from "../runs/result.js";
import { repositoryPath, type RepoLocator } from "../runs/runner.js";
import { scoreFinal, type Scored } from "../scoring/final.js";
import type { RunStore } from "../runs/store.js";
import { setupScenario } from "../scenarios/index.js";
import type { InitialContext, LiveScenario, ScenarioKind, ScenarioToolResult } from "../scenarios/types.js";

/** Where MCP-driven scenarios are scored and recorded: a run directory, as `gitgood run` writes it. */
export interface Recorder {
  store: RunStore;
  judges: readonly ModelClient[];
  /** The agent name in the records. */
  agent: string;
}

/** What the server knows about the client on the other end (from the MCP handshake). */
export interface ClientInfo {
  name: string;
  version: string;
  transport: "stdio" | "http";
}

/**
 * One scenario an MCP client works on: its sandbox, its trajectory (every tool call and result), and its
 * end: scored and recorded when the client finishes, or recorded as an error when it goes away first.
 * Either way the sandbox is removed and exactly one record is appended.
 */
export class Attempt {
  readonly session: AgentSession;
  readonly key: string;
  private readonly controller = new AbortController();
  private readonly startedAt = new Date();
  private readonly t0 = Date.now();
  private ended = false;

  private constructor(
    readonly scenario: LiveScenario,
    private readonly source: Repo,
    readonly context: InitialContext,
    private readonly recorder: Recorder,
    private readonly client: () => ClientInfo | null,
  ) {
    this.session = new AgentSession(scenario, context, Number.MAX_SAFE_INTEGER, this.controller.signal);
    this.key = resultKey(scenario.sample.id, LABELS[scenario.kind]);
  }

  /** Sets the scenario up in a new sandbox (removed again if reading its context fails). */
  static async start(
    sample: Sample,
    kind: ScenarioKind | undefined,
    where: RepoLocator,
    recorder: Recorder,
    client: () => ClientInfo | null,
  ): Promise<Attempt> {
    const source = await Repo.open(repositoryPath(where, sample));
    const scenario = await setupScenario(sample, source, { kind });
    try {
      return new Attempt(scenario, source, await scenario.initialContext(), recorder, client);
    } catch (err) {
      scenario.close();
      throw err;
    }
  }

  get sample(): Sample {
    return this.scenario.sample;
  }

  get kind(): ScenarioKind {
    return this.scenario.kind;
  }

  /** The run directory the attempt is recorded in. */
  get runDir(): string {
    return this.recorder.store.dir;
  }

  get isOpen(): boolean {
    return !this.ended;
  }

  /** Calls a scenario tool and records it. A failure of the call itself comes back as an error result. */
  async call(tool: string, args: unknown): Promise<ScenarioToolResult> {
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
    this.session.recordExternalCall(tool, args, { ...result, done: this.scenario.isDone() });
  }

  private base(endedBy: string): Record<string, unknown> {
    return {
      sample_id: this.sample.id,
      scenario: LABELS[this.kind],
      agent: this.recorder.agent,
      client: this.client(),
      ended_by: endedBy,
      context: this.context.data,
    };
  }

  private record(trajectory: Record<string, unknown>, outcome: { scored: Scored } | { error: GitGoodError }): ResultRecord {
    trajectory.events = this.session.events;
    const record = resultRecord({
      sample: this.sample,
      kind: this.kind,
      agent: this.recorder.agent,
      startedAt: this.startedAt,
      durationMs: Date.now() - this.t0,
      turns: this.session.turns,
      toolCalls: this.session.toolCalls,
      tokens: { prompt: 0, completion: 0 },
      trajectory: this.recorder.store.writeTrajectory(this.key, trajectory),
      outcome,
    });
    this.recorder.store.append(record);
    return record;
  }

  /** Scores the final state, appends the record and removes the sandbox. */
  async finish(endedBy: string): Promise<ResultRecord> {
    if (this.ended) throw new GitGoodError("NO_SCENARIO", "this scenario is already finished");
    this.ended = true;
    this.controller.abort();
    const trajectory = this.base(endedBy);
    try {
      const final = await this.scenario.finalState();
      trajectory.final = final;
      const scored = await scoreFinal(this.sample, this.scenario, final, this.source, this.recorder.judges);
      trajectory.ground_truth_diff = scored.groundTruthDiff;
      trajectory.scores = scored.scores;
      return this.record(trajectory, { scored });
    } catch (err) {
      const e = toGitGoodError(err);
      trajectory.error = e.toJSON();
      return this.record(trajectory, { error: e });
    } finally {
      this.scenario.close();
    }
  }

  /**
   * Records the attempt as failed and removes the sandbox, synchronously (so it also works from a
   * signal handler, where nothing asynchronous gets to run).
   */
  abandon(error: GitGoodError, endedBy: string): ResultRecord | null {
    if (this.ended) return null;
    this.ended = true;
    this.controller.abort();
    this.session.note("note", error.message);
    const trajectory = { ...this.base(endedBy), error: error.toJSON() };
    try {
      return this.record(trajectory, { error });
    } finally {
      this.scenario.close();
    }
  }
}
