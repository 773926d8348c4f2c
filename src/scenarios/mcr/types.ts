import type { MergeSample } from "../../dataset/sample.js";
import type { Repo } from "../../git/repo.js";
import type { ConflictHost } from "../shared/conflict-tools.js";
import type { ConflictState } from "../shared/conflicts.js";
import type { LiveScenario } from "../types.js";
import type { McrToolSet } from "./state.js";

/**
 * What MCR's tools, strategies and context read of a live MCR scenario (`McrScenario` is one): a leaf, so
 * that they need not import the class that imports them.
 */
export interface McrHost extends LiveScenario, ConflictHost {
  readonly sample: MergeSample;
  /** Every conflict of the merge and where the agent is. */
  readonly conflicts: ConflictState;
  /** Files the sample lists as conflicted that merged cleanly in the sandbox. */
  readonly notConflicted: readonly string[];
  /** The MCR tools this scenario offers (`--mcr-tools`). */
  readonly toolSet: McrToolSet;
  /** Whether replacing the conflict regions can reproduce the recorded merge. */
  readonly resolvable: boolean;
  /** Writes a whole file of the project (the extended tools' `write_file_at`); returns what to tell the agent. */
  writeFile(given: string, content: string): Promise<string>;
  /** The source repository (to read the recorded merge). */
  openSource(): Promise<Repo>;
}
