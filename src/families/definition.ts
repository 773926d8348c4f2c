import type { AgentKind } from "../agents/index.js";
import type { ResultRecord } from "../runs/record.js";
import type { FamilySetting, FamilyVerb, RunSpec } from "../runs/spec.js";
import type { Trajectory } from "../runs/trajectory.js";
import type { RecordImporter } from "../dataset/importer.js";
import type { Sample, SampleTypeDefinition } from "../dataset/sample.js";
import type { Isolation } from "../sandbox/isolation.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import type { ToolSpec } from "../model/types.js";
import type { EnvSpecFile } from "../testenv/types.js";
import type { AnyScenarioDefinition } from "../scenarios/definition.js";
import type { CommandOption, FamilyCommandLine } from "./command-line-types.js";
import type { HarborTask } from "./harbor-kit.js";

/**
 * The report's family sections by key (`swe`, `commit0`): each family adds its own key and row type
 * here from its folder (`declare module`), so `Report` stays typed without naming any family.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface ReportSections {}

/** What a section's text rendering gets from the report: the table layout every table of the report has. */
export interface TextKit {
  /** More than one agent: rows start with the agent. */
  readonly many: boolean;
  /** A plain table; columns whose header is in `left` (besides the report's word columns) are left-aligned. */
  table(header: string[], rows: string[][], left?: readonly string[]): string;
  /** A percentage with two decimals, "-" for none. */
  pct(v: number | null): string;
}

/** What a section's HTML rendering gets: escaped cells, as the report's other tables have them. */
export interface HtmlKit {
  /** A header cell, with `title` as its tooltip. */
  th(text: string, title?: string): string;
  /** A number cell (right-aligned). */
  cell(text: string | number): string;
  /** A word cell. */
  label(text: string): string;
  /** A percentage with two decimals and " %", "–" for none. */
  pct(v: number | null): string;
  /** `text` with HTML's special characters escaped. */
  escape(text: string): string;
}

/**
 * A family's own table in a report: rows from the run's records, then text, JSON (the value itself,
 * under `key`) and HTML. Reports list the sections in registry order, after the repeats table.
 */
export interface ReportSection<T = unknown> {
  /** The section's field in `gitgood report --json`. */
  readonly key: string;
  /** The section's value from a run's records (those of other families included: it picks its own). */
  build(records: readonly ResultRecord[]): T;
  /** Nothing to show: text and HTML leave the section out (JSON keeps the empty value). */
  isEmpty(value: T): boolean;
  /** The section as text lines: a title line, then its table and notes. */
  text(value: T, kit: TextKit): string[];
  /** The section as HTML: its heading, a sentence on how to read it, and its table. */
  html(value: T, kit: HtmlKit): { title: string; intro: string; table: string };
}

/** One run as a report format reads it. */
export interface FormatRun {
  /** The run directory, as given. */
  dir: string;
  records: readonly ResultRecord[];
  /** The agent run.json names (what a document about one agent falls back on). */
  agent: string;
  /** The run's name in titles and comparisons (the directory the user gave). */
  label: string;
  /** The isolation run.json records for agent programs, when it does. */
  isolation?: { mode: string; isolated: boolean };
}

/** Where a format's output goes and the `report` flags it may read. */
export interface FormatContext {
  /** The file being written (a `file` format), for links relative to it. */
  file?: string;
  /** Every flag of `gitgood report`, by its camelCase name (`participant`). */
  flags: Readonly<Record<string, unknown>>;
}

/**
 * A way to write a run's report: text and JSON on stdout (`--json`), an HTML page, the AgentBeats
 * document, and any format added later. `gitgood report` takes `--NAME` (a stdout format) or `--NAME
 * FILE` (a file format) for each; `bench` and the A2A Result use the same entries.
 */
export interface ReportFormat {
  readonly name: string;
  /** What the format writes, for `--help` ("a single static HTML page …"). */
  readonly description: string;
  /** `stdout`: printed instead of the text tables; `file`: written besides them. */
  readonly output: "stdout" | "file";
  /** A `stdout` format that also prints as JSON: `--NAME --json` is then its JSON form (it reads `flags.json`), not two formats. */
  readonly json?: boolean;
  /** Further `report` options the format reads (the AgentBeats `--participant`). */
  readonly options?: readonly CommandOption[];
  /** Checks the flags before anything is written; `asked` tells whether the format itself was asked for. */
  check?(flags: Readonly<Record<string, unknown>>, asked: boolean): void;
  /** The run in this format, as text. */
  render(run: FormatRun, ctx: FormatContext): string;
  /** Several runs side by side; a format without it takes one run. */
  compare?(runs: readonly FormatRun[], ctx: FormatContext): string;
  /**
   * A `file` format whose output is large (the HTML page): writes one run or several to `out` piece by
   * piece; `gitgood report` then streams the file instead of calling `render`/`compare`.
   */
  write?(runs: readonly FormatRun[], ctx: FormatContext, out: { write(text: string): void }): void;
}

/** The verbs whose options a family's settings may be (`harbor`: `gitgood export harbor`; `mcp`: `gitgood mcp` and `gitgood serve`). */
export type { FamilyVerb };

/** What a family's scenario settings are made from besides the spec: the live parts of the process that runs the attempts. */
export interface SettingsContext {
  /** The isolation of agent programs (absent for verbs that start none). */
  isolation: Isolation | undefined;
  /** `--model`, when given. */
  model: string | undefined;
  /** The configuration file's environment specs. */
  envs: EnvSpecFile | null;
}

/** Where a family's run hooks tell a person what they did. */
export interface RunIO {
  /** Where progress and notes go (the CLI's standard error). */
  stderr: {
    /** Writes `text` as it is (end lines with "\n"). */
    write(text: string): unknown;
  };
}

/** What a family may change before a run starts: the samples it keeps and the agent it runs instead. */
export interface RunPreparation {
  samples: Sample[];
  /** Run this agent kind instead of `--agent`. */
  agent?: string;
  /** Options for the agent the family's flags ask for (`--attempts`, a predictions file). */
  agentOptions?: Record<string, unknown>;
}

/**
 * A family's part of a run: its settings, declared as run settings nested under the family's key in the
 * spec (run.json's `spec.swe`), and what they turn into. Each hook reads the settings from the spec with
 * `specValue(spec, SETTING)`, another family's included (COMMIT0 reads SWE's environment settings).
 */
export interface FamilyCli {
  /**
   * The family's settings, each under the family's key (`namespace`: its name in lower case), with the
   * verbs whose options include it. Registering the family declares them: one declaration makes the
   * option, the configuration file's key, run.json's `spec` (and `identity.spec`, for an identity
   * setting not at its default), the queue ticket's spec and the spec's JSON Schema.
   */
  readonly settings?: readonly FamilySetting[];
  /** The scenario settings the spec asks for (`settings.<key>` of the scenarios), with their live parts (models, the isolation) made here. */
  scenarioSettings?(spec: RunSpec, verb: FamilyVerb, ctx: SettingsContext): Record<string, unknown>;
  /** `run` only: narrows the samples or picks the agent before anything runs (a bad combination throws BAD_OPTION). */
  prepare?(spec: RunSpec, samples: Sample[], agent: string, io: RunIO): RunPreparation;
  /** `run` only: after the run, writes what the settings ask for (`--predictions-out`). */
  finish?(spec: RunSpec, records: readonly ResultRecord[], io: RunIO): void;
}

/**
 * One family of tasks: its scenarios and everything the layers above scenarios need of it. A new
 * family is a folder under src/families/ (and its scenario folders), one line in the family registry
 * and one in the scenario registry; report, CLI, run.json, agents, A2A and the public API iterate.
 */
export interface FamilyDefinition {
  /** The family's name ("GitGoodBench", "SWE"): its scenarios' `family`, or the one scenario's name. */
  readonly name: string;
  /** The scenarios of the family, in report order (registered in the scenario registry). */
  readonly scenarios: readonly AnyScenarioDefinition[];
  /** Sample types the family brings beyond the built-in union (a plug-in's), registered with the dataset readers. */
  readonly samples?: readonly SampleTypeDefinition[];
  /** Readers of dataset rows in the family's own layout (SWE-bench instances), tried before the published layout. */
  readonly importers?: readonly RecordImporter[];
  /** The family's table in reports. */
  readonly report?: ReportSection;
  /** Report formats the family brings (the SWE family's AgentBeats document). */
  readonly formats?: readonly ReportFormat[];
  /** The family's settings (its fragment of the run spec) and what they turn into. */
  readonly cli?: FamilyCli;
  /**
   * What the family shows on the command line (its title, verbs, modes of `gitgood mine`). The built-in
   * families' are listed in command-line.ts, which the CLI reads without loading the families;
   * `registerFamily` adds a plug-in's.
   */
  readonly commandLine?: FamilyCommandLine;
  /** The agents the family adds (`--agent NAME`). */
  readonly agents?: readonly AgentKind[];
  /** Offered in A2A assessments (default true). */
  readonly assessed?: boolean;
  /**
   * The family's part of the A2A Result: text lines and fields of the Result's data for one agent's
   * records of the family; without it the family's scenarios join the Result's per-scenario table.
   */
  a2aResult?(records: readonly ResultRecord[], agent: string, role: string): { lines: string[]; data: Record<string, unknown> };
  /**
   * The family's settings an A2A assessment's `config` asks for (SWE: the hints, which the AgentBeats green
   * sends), as its fragment of the spec is keyed (`{ swe: { hints: true } }`): the assessment's run.json records
   * them, and its scenario settings are made from them (`cli.scenarioSettings`) as a run's are.
   */
  a2aSettings?(config: Readonly<Record<string, unknown>>): Record<string, Record<string, unknown>>;
  /** The word the green agent's progress line gives a finished attempt (SWE: its test status); default the verdict. */
  a2aStatus?(record: ResultRecord): string | undefined;
  /** A task the A2A participant takes in a message of the family's own shape (SWE-bench's REPO_DIR convention). */
  readonly participantTask?: ParticipantTask;
  /** The family's own view of one attempt's outcome (conflicts, histories, tests), for the viewer and the HTML report. */
  outcomeView?(input: OutcomeInput): OutcomeBlock[];
  /** How the family's scenarios become Harbor task directories (`gitgood export harbor`). */
  readonly harborTasks?: readonly HarborTask[];
  /** The family's tasks in a dated release (`gitgood live build`), mined from pins that say how their tests run. */
  readonly release?: FamilyRelease;
}

/** How a release's test-judged tasks run their tests: the pins' environment specs, and the canary's watch. */
export interface ReleaseTesting {
  envSpecs: EnvSpecFile;
  /** Shown every sandbox the family's code tests in, when it is done with it. */
  watchSandbox: (sandbox: Sandbox, where: string) => Promise<void>;
}

/** What a family's release mining counted: its candidates, how many were validated and kept, and the drops by reason. */
export interface ReleaseMineSummary {
  candidates: number;
  validated: number;
  instances: number;
  dropped: Record<string, number>;
}

/**
 * A family's part of `gitgood live build`: a pin with an `env_spec` gets the family's tasks, mined from
 * gitgood's scratch copy in the window and validated with a flake gate (each side run `runs` times).
 */
export interface FamilyRelease {
  /** The sample type it mines, as a pin's `types` names it. */
  readonly type: string;
  /** Runs of each side of a validation when the build does not say (`--flake-runs`). */
  readonly runs: number;
  /** What the manifest says the mining dates a task by and how it validates it. */
  readonly rule: string;
  /** Mines and validates the family's tasks of one pinned repository in the window; `summary` is what the manifest counts. */
  mine(input: ReleaseTesting & { repoPath: string; name: string; since: number | null; until: number | null; runs: number; jobs: number; onStep?: (line: string) => void }): Promise<{ samples: Sample[]; summary: ReleaseMineSummary }>;
  /** The scenario settings its tasks are run with in the QA gate. */
  settings(testing: ReleaseTesting): Record<string, unknown>;
}

/** What the participant gives a task it opens: how commands are jailed, and the limits its CLI sets. */
export interface ParticipantTaskOptions {
  isolation: Isolation;
  /** Most seconds one command runs (default: the task's own). */
  commandTimeoutSeconds?: number;
  /** The real path of the directory the task's files must lie in (`a2a agent --shared-dir`); absent: anywhere. */
  sharedDir?: string;
  /** Most bytes of files the task may name. */
  maxRepoBytes?: number;
}

/** An open participant task: the tools the model works through, and the answer when it is done. */
export interface ParticipantWork {
  readonly tools: ToolSpec[];
  /** The tool that submits the work. */
  readonly finishTool: string;
  /** Runs one of `tools` and resolves with the text the model reads; a refused call is text too, not a rejection. */
  call(name: string, args: Record<string, unknown>): Promise<string>;
  /** True once the model called `finishTool`. */
  submitted(): boolean;
  /** Where the work happens, for the task's status line. */
  readonly where: string;
  /** The user message the model gets. */
  readonly text: string;
  /** The scenario's prompt, after the participant's own system prompt. */
  readonly prompt?: string;
  /** The task's answer once the model is done (SWE: the patch in <patch> tags). */
  answer(): Promise<string>;
  /** Removes what the task made for itself (its scratch copies); the work directory it was given stays. */
  close(): void;
}

/** A task of a family's own shape that gitgood's A2A participant takes (and its agent card lists). */
export interface ParticipantTask {
  /** The task as the participant's refusal names what it takes ("a SWE task (REPO_DIR:<path>, then Problem Statement:)"). */
  readonly shape: string;
  /** The agent card's skill for it. */
  readonly skill: { id: string; name: string; description: string; tags: string[] };
  /** Whether a message is this task (a malformed one of this shape included: `open` then fails in one line). */
  matches(text: string): boolean;
  /** Starts the task a matching message describes; rejects, in one line, on a malformed message or a directory it may not use. */
  open(text: string, opts: ParticipantTaskOptions): Promise<ParticipantWork>;
}

/**
 * One block of a family's view of an attempt's outcome, drawn by the viewer and the static report the
 * same way for every family; every string is shown as text (never as HTML).
 */
export type OutcomeBlock =
  | { kind: "heading"; text: string }
  | { kind: "text"; text: string; tone?: "good" | "bad" | "muted" }
  | { kind: "table"; head: string[]; rows: string[][]; tones?: (("good" | "bad" | null)[] | null)[] }
  | { kind: "code"; title: string; text: string; open?: boolean }
  | { kind: "columns"; columns: { title: string; text: string }[] };

/** What a family's outcome view reads: an attempt's record and, when it has a sound one, its trajectory. */
export interface OutcomeInput {
  record: ResultRecord;
  trajectory: Trajectory | null;
}

/** A family definition, checked as one (for a plug-in written in JavaScript, its one typed entry point). */
export function defineFamily(family: FamilyDefinition): FamilyDefinition {
  return family;
}
