import type { ChainSample } from "../../dataset/sample.js";
import type { Repo } from "../../git/repo.js";
import type { Chain } from "../shared/chain.js";
import type { LiveScenario } from "../types.js";
import type { FileDiff, Hunk } from "./hunks.js";
import type { IccScope } from "./state.js";

/** What is left to commit, as ICC's tools offer it. */
export interface Remaining {
  files: FileDiff[];
  /** The hunks offered, numbered from 0. */
  hunks: Hunk[];
  /** Files with changes that are not offered as hunks (only with the default scope). */
  others: FileDiff[];
}

/**
 * What ICC's tools, strategies and context read of a live ICC scenario (`IccScenario` is one): a leaf, so
 * that they need not import the class that imports them.
 */
export interface IccHost extends LiveScenario {
  readonly sample: ChainSample;
  readonly scope: IccScope;
  readonly chain: Chain;
  /** What is left to commit: the diff from HEAD to the tree of the chain's tip. */
  remaining(): Promise<Remaining>;
  /** Commits exactly the chosen hunks (by current number); the rest stays in the work tree. */
  commitHunks(selected: readonly number[], message: string): Promise<string>;
  /** Commits everything still uncommitted, in every file. */
  commitRest(message: string): Promise<string>;
  /** The source repository. */
  openSource(): Promise<Repo>;
}
