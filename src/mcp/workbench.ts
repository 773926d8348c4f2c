import type { RepoLocator } from "../dataset/clones.js";
import type { Sample } from "../dataset/sample.js";
import { GitGoodError, toGitGoodError, type ErrorCode } from "../errors.js";
import type { HistoryDepth } from "../git/store.js";
import type { MemoryWorkspace } from "../memory/memory-workspace.js";
import type { ResultRecord } from "../runs/record.js";
import { brokerContext, callBroker, describeBroker, type BrokerContext, type BrokerDescription } from "../runs/broker-client.js";
import { BROKER_TOOLS } from "../runs/broker.js";
import { attemptKey } from "../runs/result.js";
import { chooseScenario } from "../scenarios/index.js";
import { scenarioNamed, scenarios, scenariosFor } from "../scenarios/registry.js";
import type { AnyScenarioDefinition } from "../scenarios/definition.js";
import type { InitialContext, LiveScenario } from "../scenarios/types.js";
import { ToolRegistry } from "../tools/registry.js";
import { escapeControls } from "../util/escape.js";
import type { Tool, ToolResult } from "../tools/tool.js";
import { Attempt, type ClientInfo, type Recorder } from "./attempt.js";
import {
  type Bench,
  DESTRUCTIVE_BENCH_TOOLS,
  FINISH,
  LIST_SAMPLES,
  START,
  finishScenario,
  getTask,
  listSamples,
  startScenarioTool,
} from "./bench-tools.js";
import type { OfferedTool } from "./descriptors.js";
import { MEMORY_TOOLS } from "../memory/tools.js";

/** A scenario's tools and the optional ones its settings can add (MCR's write_file_at). */
function toolsOf(d: AnyScenarioDefinition): readonly Tool<unknown>[] {
  return [...d.tools.tools, ...(d.optionalTools?.tools ?? [])] as readonly Tool<unknown>[];
}

/** Every registered scenario's tools, each name once (MCR and IR share the conflict tools), in registry order. */
function allScenarioTools(): Tool<unknown>[] {
  const byName = new Map<string, Tool<unknown>>();
  for (const d of scenarios()) for (const t of toolsOf(d)) if (!byName.has(t.name)) byName.set(t.name, t);
  return [...byName.values()];
}

const TASK_URI = "gitgood://task";
const TASK_DATA_URI = "gitgood://task.json";
const FINISH_HINT = `When you are done, call ${FINISH} to submit your work.`;
const DONE_NOTE = `[gitgood] The task is complete. Call ${FINISH} to submit it.`;

/** What a server serves: one scenario, a dataset to work through, an attempt of `gitgood run` (through its tool socket), or memory only. */
export type WorkbenchSource =
  | {
      mode: "single";
      sample: Sample;
      /** Which of the sample's scenarios (a registry name, any case); needed when it gives several. */
      scenario?: string;
      where: RepoLocator;
      recorder: Recorder;
      /** History below the scenario's start in its sandbox (default: DEFAULT_HISTORY). */
      history?: HistoryDepth;
      /** Scenario settings (MCR: `mcrTools`). */
      settings?: Record<string, unknown>;
      /** Practice: finish_scenario tells the verdict and scores (see `practice` in session mode). */
      practice?: boolean;
    }
  | {
      mode: "session";
      samples: readonly Sample[];
      where: RepoLocator;
      recorder: Recorder;
      /** List every scenario kind's tools from the start, for clients that ignore tool-list changes. */
      allTools?: boolean;
      /** History below each scenario's start in its sandbox (default: DEFAULT_HISTORY). */
      history?: HistoryDepth;
      /** Scenario settings (MCR: `mcrTools`). */
      settings?: Record<string, unknown>;
      /**
       * Practice: finish_scenario and list_samples tell the verdict and scores, and a scenario may be
       * started again (its new record replaces the old). Without it (evaluation) the client learns only
       * that its attempt was recorded, and a scenario recorded in this run is refused.
       */
      practice?: boolean;
    }
  | { mode: "attached"; socket: string }
  | { mode: "memory" };

/** What a `Workbench` serves, and whether a memory workspace's operations come with it. */
export interface WorkbenchOptions {
  source: WorkbenchSource;
  /** A memory workspace whose operations are served as tools as well. */
  memory?: MemoryWorkspace | null;
}

/** What a tool call on the workbench gave: the tool's result, notes for the client, and whether the tool list changed. */
export interface CallOutcome {
  result: ToolResult;
  /** Extra text for the client after the result (not part of the tool's output). */
  notes: string[];
  /** The tool list (and the task resources) changed with this call. */
  changed: boolean;
}

/** An MCP resource of the open scenario (its task text, or its starting state as JSON). */
export interface TaskResource {
  uri: string;
  name: string;
  title: string;
  mimeType: string;
}

/** The refusal of a second attempt at a scenario in an evaluation run. */
function alreadyAttempted(key: string, dir: string): GitGoodError {
  return new GitGoodError(
    "ALREADY_ATTEMPTED",
    `${key} has been attempted in this run (${dir}) already; one sample is one attempt (serve with --practice to try again, or use another --out for a new run)`,
  );
}

function errorResult(tool: string, err: GitGoodError): ToolResult {
  return { tool, ok: false, output: `error: ${err.message}`, error: { code: err.code, message: err.message } };
}

function benchTools(mode: WorkbenchSource["mode"]): Tool<Workbench>[] {
  switch (mode) {
    case "single":
      return [getTask, finishScenario];
    case "session":
      return [listSamples, startScenarioTool(), getTask, finishScenario];
    case "attached":
    case "memory":
      return [];
  }
}

/**
 * The state behind one MCP connection: which scenario is open, which tools are offered, and what
 * happens to the scenario when the client finishes or goes away. Calls run one at a time, in order of
 * arrival, and never throw: every failure comes back as an error result.
 */
export class Workbench implements Bench {
  client: ClientInfo | null = null;
  private attempt: Attempt | null = null;
  /** In attached mode: the run's attempt, served by its tool broker, which answers and records every call. */
  private attached: { socket: string; described: BrokerDescription; context: BrokerContext; submitted: boolean } | null = null;
  private last: ResultRecord | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;
  private readonly bench: ToolRegistry<Workbench>;
  /** Every scenario tool name, to tell a tool of another scenario from no tool at all. */
  private readonly anyScenarioTool: ReadonlySet<string>;

  private constructor(private readonly opts: WorkbenchOptions) {
    this.bench = new ToolRegistry<Workbench>(benchTools(opts.source.mode));
    this.anyScenarioTool = new Set(allScenarioTools().map((t) => t.name));
  }

  /** Makes a workbench; in single-scenario mode the scenario is set up now, attached mode asks the tool broker what it serves. */
  static async create(opts: WorkbenchOptions): Promise<Workbench> {
    const wb = new Workbench(opts);
    const s = opts.source;
    if (s.mode === "single") {
      const key = attemptKey(s.sample.id, chooseScenario(s.sample, s.scenario).name);
      if (!s.practice && s.recorder.store.has(key)) throw alreadyAttempted(key, s.recorder.store.dir);
      // Set up now, so a sample that cannot be set up stops the server at once; started by the client's first tool call.
      wb.attempt = await Attempt.start(s.sample, s.scenario, s.where, s.recorder, () => wb.client, s.history, s.settings, false);
    } else if (s.mode === "attached") {
      wb.attached = { socket: s.socket, described: await describeBroker(s.socket), context: await brokerContext(s.socket), submitted: false };
    }
    return wb;
  }

  get mode(): WorkbenchSource["mode"] {
    return this.opts.source.mode;
  }

  /** Practice mode: the client is told how its attempts scored. */
  private get practice(): boolean {
    const s = this.opts.source;
    return (s.mode === "single" || s.mode === "session") && s.practice === true;
  }

  /** The scenario tools can be called on this one now (null when none is open, or in attached mode). */
  private live(): LiveScenario | null {
    return this.attempt?.isOpen ? this.attempt.scenario : null;
  }

  /** A scenario is open: its task can be read. */
  private hasTask(): boolean {
    return this.live() !== null || (this.attached !== null && !this.attached.submitted);
  }

  /** In attached mode: the broker's tools, and until the scenario is submitted the scenario's (and extra) tools. */
  private attachedTools(a: NonNullable<Workbench["attached"]>): OfferedTool[] {
    const definition = scenarioNamed(a.described.scenario);
    return a.described.tools.flatMap((name): OfferedTool[] => {
      const own = BROKER_TOOLS.get(name);
      if (own) return [{ tool: own, destructive: DESTRUCTIVE_BENCH_TOOLS.has(name) }];
      if (a.submitted) return [];
      const tool = toolsOf(definition).find((t) => t.name === name);
      if (tool) return [{ tool, destructive: true }];
      const memory = MEMORY_TOOLS.get(name);
      return memory ? [{ tool: memory, destructive: false }] : [];
    });
  }

  /**
   * The tools to list now: the bench's own, the open scenario's (or every scenario's, with `allTools`), and the
   * memory operations; each with the destructive hint MCP clients are shown (set for the scenario's tools and finish_scenario).
   */
  offered(): OfferedTool[] {
    if (this.attached) return this.attachedTools(this.attached);
    const out: OfferedTool[] = this.bench.tools.map((t) => ({ tool: t, destructive: DESTRUCTIVE_BENCH_TOOLS.has(t.name) }));
    const live = this.live();
    const s = this.opts.source;
    const scenarioTools =
      s.mode === "session" && s.allTools ? allScenarioTools() : live ? live.tools.tools : [];
    out.push(...scenarioTools.map((tool) => ({ tool, destructive: true })));
    if (this.opts.memory) out.push(...MEMORY_TOOLS.tools.map((t) => ({ tool: t, destructive: false })));
    return out;
  }

  /** What the client sees listed: the tools, and whether the task resources exist. */
  private signature(): string {
    const names = this.offered().map((o) => o.tool.name);
    return `${names.join(",")}|${this.hasTask() ? "task" : ""}`;
  }

  /** Runs one call after the calls before it. */
  call(name: string, args: unknown): Promise<CallOutcome> {
    const run = this.queue.then(() => this.dispatch(name, args));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async dispatch(name: string, args: unknown): Promise<CallOutcome> {
    const before = this.signature();
    const notes: string[] = [];
    let result: ToolResult;
    try {
      if (this.closed) {
        result = errorResult(name, new GitGoodError("CLOSED", "the server is closing this connection"));
      } else if (this.attached) {
        result = await this.forward(this.attached, name, args, notes);
      } else if (this.bench.get(name)) {
        const open = this.attempt?.isOpen ? this.attempt : null;
        result = await this.bench.call(this, name, args);
        if (open?.isOpen) open.note(name, args, result);
      } else if (this.opts.memory && MEMORY_TOOLS.get(name)) {
        result = await MEMORY_TOOLS.call(this.opts.memory, name, args);
        if (this.attempt?.isOpen) this.attempt.note(name, args, result);
      } else {
        const open = this.attempt?.isOpen ? this.attempt : null;
        const live = this.live();
        if (open && live?.toolNames().includes(name)) {
          const r = await open.call(name, args);
          if (r.ok && r.done) notes.push(DONE_NOTE);
          result = r;
        } else if (live && this.anyScenarioTool.has(name)) {
          const why = `the open scenario is ${live.definition.name}, which has no tool ${name}; its tools are: ${live.toolNames().join(", ")}`;
          result = errorResult(name, new GitGoodError("WRONG_SCENARIO", why));
        } else if (this.anyScenarioTool.has(name)) {
          result = errorResult(name, new GitGoodError("NO_SCENARIO", `${name} is a scenario tool, but ${this.noScenario()}`));
        } else {
          const names = this.offered().map((o) => o.tool.name);
          result = errorResult(name, new GitGoodError("UNKNOWN_TOOL", `there is no tool '${name}'; the tools are: ${names.join(", ")}`));
        }
      }
    } catch (err) {
      result = errorResult(name, toGitGoodError(err));
    }
    return { result, notes, changed: this.signature() !== before };
  }

  /** In attached mode every call goes to the run's tool broker, which answers it and records it in the attempt. */
  private async forward(a: NonNullable<Workbench["attached"]>, name: string, args: unknown, notes: string[]): Promise<ToolResult> {
    const r = await callBroker(a.socket, name, args);
    if (r.ok && name === FINISH) a.submitted = true;
    if (r.ok && r.done && toolsOf(scenarioNamed(a.described.scenario)).some((t) => t.name === name)) notes.push(DONE_NOTE);
    return r;
  }

  private noScenario(): string {
    switch (this.mode) {
      case "single":
        return this.last
          ? `the scenario ${this.last.key} is finished (${this.practice ? `recorded as ${this.last.verdict}` : "recorded"}); you may disconnect`
          : "no scenario is open";
      case "session":
        return `no scenario is open: call ${START} first (${LIST_SAMPLES} shows the samples)`;
      case "attached":
        return "the scenario was submitted; end your program to have it scored";
      default:
        return "this server serves memory operations only, no scenario";
    }
  }

  private context(): InitialContext {
    if (this.attempt?.isOpen) return this.attempt.context;
    if (this.attached && !this.attached.submitted) return this.attached.context;
    throw new GitGoodError("NO_SCENARIO", this.noScenario());
  }

  /** The open scenario's task, with the line on how to finish it. Throws `NO_SCENARIO` when none is open. */
  async taskText(): Promise<string> {
    return `${this.context().text}\n\n${FINISH_HINT}`;
  }

  /**
   * Scores and records the open scenario and closes it; returns what the client is told (in evaluation, only that
   * the attempt is recorded). Throws `NO_SCENARIO` when none is open.
   */
  async finishScenario(): Promise<string> {
    const a = this.attempt;
    if (!a?.isOpen) throw new GitGoodError("NO_SCENARIO", this.noScenario());
    const r = await a.finish(FINISH);
    this.last = r;
    // Evaluation: nothing of the outcome (verdict, scores, an error's message) reaches the client.
    const outcome = this.practice
      ? [
          `Recorded ${r.key} in ${a.runDir}: ${r.verdict} (status ${r.status}).`,
          ...(r.error ? [`error ${r.error.code}: ${r.error.message}`] : []),
          `scores: ${JSON.stringify(r.scores)}`,
        ]
      : [`Your attempt at ${r.key} is recorded; it is scored after the session.`];
    const lines = [
      ...outcome,
      this.mode === "session"
        ? `Start the next scenario with ${START}, or call ${LIST_SAMPLES} to see what is left.`
        : "The scenario is closed; you may disconnect.",
    ];
    return lines.join("\n");
  }

  /**
   * Session mode: sets up `scenario` (any case; may be omitted when the sample gives one) of the sample `sampleId` and
   * returns its task. Throws `BAD_MODE` outside session mode, `SCENARIO_OPEN` while another is open,
   * `UNKNOWN_SAMPLE`, and, in evaluation, when the scenario was attempted already.
   */
  async startScenario(sampleId: string, scenario: string | undefined): Promise<string> {
    const s = this.opts.source;
    if (s.mode !== "session") throw new GitGoodError("BAD_MODE", `${START} works in session mode only`);
    if (this.attempt?.isOpen) {
      throw new GitGoodError("SCENARIO_OPEN", `the scenario ${this.attempt.key} is still open: call ${FINISH} first`);
    }
    const sample = s.samples.find((x) => x.id === sampleId);
    if (!sample) throw new GitGoodError("UNKNOWN_SAMPLE", `there is no sample '${sampleId}'; ${LIST_SAMPLES} shows the samples`);
    const key = attemptKey(sample.id, chooseScenario(sample, scenario).name);
    if (!s.practice && s.recorder.store.has(key)) throw alreadyAttempted(key, s.recorder.store.dir);
    this.attempt = await Attempt.start(sample, scenario, s.where, s.recorder, () => this.client, s.history, s.settings);
    const names = this.attempt.scenario.toolNames();
    return [
      `Started ${this.attempt.key}. Its tools are now listed: ${names.join(", ")}.`,
      "",
      this.attempt.context.text,
      "",
      FINISH_HINT,
    ].join("\n");
  }

  /** Session mode: one line per sample with its scenarios and which are recorded. Throws `BAD_MODE` in any other mode. */
  samplesListing(): string {
    const s = this.opts.source;
    if (s.mode !== "session") throw new GitGoodError("BAD_MODE", `${LIST_SAMPLES} works in session mode only`);
    const byKey = new Map(s.recorder.store.all().map((r) => [r.key, r]));
    const lines = s.samples.map((sample) => {
      const offered = scenariosFor(sample).map((d) => {
        const name = d.name.toLowerCase();
        const r = byKey.get(attemptKey(sample.id, d.name));
        return r ? `${name} (${s.practice ? `recorded: ${r.verdict}` : "attempted"})` : name;
      });
      return `${sample.id}  ${sample.sample_type}  ${sample.difficulty}  ${sample.name}  scenarios: ${offered.join(", ")}`;
    });
    return [`${s.samples.length} sample(s):`, ...lines].join("\n");
  }

  /** The task resources (its text and its starting state as JSON) while a scenario is open; none otherwise. */
  resources(): TaskResource[] {
    if (!this.hasTask()) return [];
    return [
      { uri: TASK_URI, name: "task", title: "The scenario's task", mimeType: "text/plain" },
      { uri: TASK_DATA_URI, name: "task.json", title: "The scenario's starting state as JSON", mimeType: "application/json" },
    ];
  }

  /** One task resource's content. Throws `NO_SCENARIO` when no scenario is open and `UNKNOWN_RESOURCE` for another URI. */
  readResource(uri: string): { uri: string; mimeType: string; text: string } {
    const context = this.context();
    // Resources do not pass through the tool registry, which escapes tool results: escape here too.
    if (uri === TASK_URI) return { uri, mimeType: "text/plain", text: `${escapeControls(context.text)}\n\n${FINISH_HINT}` };
    if (uri === TASK_DATA_URI) return { uri, mimeType: "application/json", text: `${JSON.stringify(context.data, null, 1)}\n` };
    throw new GitGoodError("UNKNOWN_RESOURCE", `there is no resource ${uri}; the resources are ${TASK_URI} and ${TASK_DATA_URI}`);
  }

  /**
   * The client went away: after the call in progress, an open scenario is scored if its task is
   * complete, else recorded as a CLIENT_DISCONNECTED error (unless the client never started it, or its
   * key has a successful record already); its sandbox is removed either way.
   */
  async close(how = "the client disconnected"): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue;
    const a = this.attempt;
    if (!a?.isOpen) return;
    if (a.scenario.isDone()) {
      try {
        await a.finish("disconnect");
      } catch (err) {
        // A run that keeps its records refused this one: the earlier record stands, nothing else to do.
        if (toGitGoodError(err).code !== "RECORD_EXISTS") throw err;
      }
      return;
    }
    a.abandon(
      new GitGoodError("CLIENT_DISCONNECTED", `${how} before finishing the scenario (after ${a.session.toolCalls} tool call(s))`),
      "disconnect",
    );
  }

  /** The process is being stopped: records an open scenario as an error at once, synchronously. */
  abandonNow(code: ErrorCode, message: string): void {
    this.closed = true;
    this.attempt?.abandon(new GitGoodError(code, message), "stopped");
  }
}
