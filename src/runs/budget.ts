import { GitGoodError } from "../errors.js";
import type { ModelClient } from "../model/types.js";
import type { ResultRecord } from "./record.js";
import type { Prices } from "../model/prices.js";
import { BUDGET_USD, specValue, type RunSpec } from "./spec.js";

/*
 * A run's spend control (`--budget-usd`). The run's spend is what its records say the attempts cost:
 * the agent's model calls (the llm agent's own client, or the recording proxy) and the judges' calls,
 * each at its model's prices. Once that (with the attempts still running counted at the mean cost of an
 * attempt so far) reaches the budget no new attempt starts; attempts already started finish. A record whose cost is
 * unknown (usage that did not pass through gitgood) closes the budget too: what cannot be measured is
 * not assumed to be free.
 */

/** What one attempt cost, agent and judges, US dollars; null when it is not known. */
export function attemptSpend(record: ResultRecord): number | null {
  const judges = record.judge_cost_usd === undefined ? 0 : record.judge_cost_usd;
  // An agent that asks no model spends nothing, prices or not.
  const spentNothing = record.usage_known !== false && record.tokens.prompt + record.tokens.completion === 0;
  const agent = record.cost_usd ?? (spentNothing ? 0 : null);
  return agent === null || judges === null ? null : agent + judges;
}

/** The budget of a run and what it has spent so far; `admit` says whether another attempt may start. */
export class Budget {
  private spent = 0;
  private unknown = 0;
  /** Attempts the budget kept from starting. */
  notStarted = 0;

  constructor(readonly capUsd: number) {}

  /** Attempts started and not yet finished. */
  private running = 0;
  /** Attempts measured (with a known cost), and what they cost together: the estimate of an attempt's cost. */
  private measured = 0;

  /** Counts an attempt's record: one found at a resume, or (`started`) one this budget admitted. */
  add(record: ResultRecord, started = false): void {
    if (started) this.running--;
    const usd = attemptSpend(record);
    if (usd === null) this.unknown++;
    else {
      this.spent += usd;
      this.measured++;
    }
  }

  /** The measured spend so far, US dollars. */
  spentUsd(): number {
    return Math.round(this.spent * 1e6) / 1e6;
  }

  /**
   * Whether the next attempt may start (counting the ones it keeps back): the spend, with the attempts
   * still running at the mean cost of those measured, is below the cap. So the last attempt starts
   * below the cap and the run ends within about one attempt's cost above it, however many run at once.
   */
  admit(): boolean {
    const mean = this.measured > 0 ? this.spent / this.measured : 0;
    if (this.unknown === 0 && this.spent + this.running * mean < this.capUsd) {
      this.running++;
      return true;
    }
    this.notStarted++;
    return false;
  }

  /** The line a run ends with when the budget kept attempts from starting; null when it kept none. */
  stopLine(): string | null {
    if (this.notStarted === 0) return null;
    const why =
      this.unknown > 0
        ? `${this.unknown} attempt(s) had an unknown cost`
        : `the measured spend $${this.spentUsd()} reached the budget $${this.capUsd}`;
    return `${this.notStarted} attempt(s) not started: ${why}; run the same command with a higher --budget-usd (or none) to run them`;
  }
}

/** The run's budget from its spec, or null when it has none. */
export function budgetOf(spec: RunSpec | undefined): Budget | null {
  const cap = specValue(spec, BUDGET_USD);
  return cap === null ? null : new Budget(cap);
}

/** What a budgeted run must be able to price: the agent's model and every judge's. */
export interface PricedModels {
  /** The agent's model (an llm agent's), and its prices if any. */
  agentModel?: string;
  agentPrices?: Prices;
  judges: readonly ModelClient[];
  priceOf: (model: string) => Prices | undefined;
}

/**
 * Refuses, in one line, a budget the run could not measure: a model (the agent's or a judge's)
 * without prices. Called before any attempt starts.
 */
export function checkBudgetPrices(models: PricedModels): void {
  const unpriced = [
    ...(models.agentModel !== undefined && models.agentPrices === undefined ? [models.agentModel] : []),
    ...models.judges.map((j) => j.model).filter((m) => models.priceOf(m) === undefined),
  ];
  if (unpriced.length > 0) {
    throw new GitGoodError("BAD_OPTION", `--budget-usd needs prices for every model the run pays for; none for ${[...new Set(unpriced)].join(", ")} (give --price-in/--price-out or the configuration's prices:)`);
  }
}
