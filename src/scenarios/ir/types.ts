import type { ChainSample } from "../../dataset/sample.js";
import type { Chain } from "../shared/chain.js";
import type { ConflictHost } from "../shared/conflict-tools.js";
import type { LiveScenario } from "../types.js";
import type { IrPhase } from "./state.js";
import type { TodoItem } from "./todo.js";

/**
 * What IR's tools, strategies and context read of a live IR scenario (`IrScenario` is one): a leaf, so
 * that they need not import the class that imports them.
 */
export interface IrHost extends LiveScenario, ConflictHost {
  readonly sample: ChainSample;
  readonly chain: Chain;
  /** The rebase's plan as it stands. */
  readonly todo: readonly TodoItem[];
  readonly phase: IrPhase;
  /** The todo item the rebase stopped at, when it stopped on a conflict. */
  readonly stoppedAt: number | null;
  /** Fails unless the rebase is paused before its first step (the only time the plan may change). */
  requirePlanning(action: string): void;
  setTodo(items: TodoItem[]): void;
  /** Runs the planned todo; says how it went (finished, or stopped on a conflict). */
  execute(): Promise<string>;
  abort(): Promise<string>;
}
