import type { SweSample } from "../../dataset/sample.js";
import type { Workspace } from "../../sandbox/workspace.js";
import type { LiveScenario } from "../types.js";

/**
 * What the SWE tools work on: a workspace (the directory and how commands run there), the commands'
 * time limit, and the task's end. A SweScenario is one (its sandbox the workspace); so is the A2A
 * participant's REPO_DIR (src/families/swe/a2a-task.ts).
 */
export interface SweWork {
  readonly workspace: Workspace;
  readonly commandTimeoutSeconds: number;
  isDone(): boolean;
  /** Ends the task (the `finish` tool), keeping the agent's text answer. */
  finish(answer: string | null): void;
}

/**
 * What SWE's strategies and context read of a live SWE scenario (`SweScenario` is one): a leaf, so that
 * they need not import the class that imports them.
 */
export interface SweHost extends LiveScenario, SweWork {
  readonly sample: SweSample;
  /** Whether the agent is shown the instance's hints (`--hints`). */
  readonly hintsShown: boolean;
  /** Why the instance failed its own validation (it is then not worked), or null. */
  readonly invalidReason: string | null;
}
