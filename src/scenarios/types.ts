import type { Sample } from "../dataset/sample.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import type { FunctionTool } from "../tools/schema.js";
import type { ToolResult } from "../tools/tool.js";
import type { Person } from "../git/commits.js";

export const SCENARIO_KINDS = ["mcr", "ir", "icc"] as const;
export type ScenarioKind = (typeof SCENARIO_KINDS)[number];

/** What an agent needs to start: structured data, and the same rendered as text for a prompt. */
export interface InitialContext {
  data: Record<string, unknown>;
  text: string;
}

/** A tool result plus whether the scenario's task is finished after the call. */
export interface ScenarioToolResult extends ToolResult {
  done: boolean;
}

export interface FileContent {
  path: string;
  /** The file's bytes as UTF-8 text, or base64 when they are not valid UTF-8; null when the file is gone. */
  content: string | null;
  encoding: "utf8" | "base64";
}

export interface CommitRecord {
  oid: string;
  message: string;
  author: Person;
  diff: string;
}

export interface MergeFinalState {
  kind: "mcr";
  done: boolean;
  conflicts_left: number;
  /** The merge commit the scenario made, once all conflicts are resolved. */
  head: string | null;
  /** Its tree (compare with the original merge commit's tree for exact match). */
  tree: string | null;
  files: FileContent[];
}

export interface HistoryFinalState {
  kind: "ir" | "icc";
  done: boolean;
  /** The parent of the chain's oldest commit. */
  base: string;
  head: string;
  tree: string;
  /** New commits from base (exclusive) to HEAD, oldest first. */
  commits: CommitRecord[];
  /** What was still open when the state was read (a rebase stopped on a conflict, uncommitted hunks). */
  pending: string | null;
}

export type FinalState = MergeFinalState | HistoryFinalState;

/** One scenario set up in a sandbox, with its tools and state machine. */
export interface LiveScenario {
  readonly kind: ScenarioKind;
  readonly sample: Sample;
  readonly sandbox: Sandbox;
  initialContext(): Promise<InitialContext>;
  /** True once the task is finished (MCR: merge committed; IR: rebase done; ICC: nothing left to commit). */
  isDone(): boolean;
  finalState(): Promise<FinalState>;
  callTool(name: string, args: unknown): Promise<ScenarioToolResult>;
  functionTools(): FunctionTool[];
  toolHelp(): string;
  toolNames(): string[];
  /** Removes the sandbox. */
  close(): void;
}
