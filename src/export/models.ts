import { DEFAULT_PROVIDER, resolveProvider } from "../model/providers/index.js";
import { cost, type Prices } from "../model/prices.js";
import type { ModelUsage } from "../report/conversation.js";
import type { RunRead } from "./attempts.js";

/**
 * A model name with the provider gitgood sends it to in front (`provider/model`, as Inspect names models):
 * `gpt-4o` is `openai/gpt-4o`, `anthropic/claude-x` stays as it is. A name no provider takes is kept under
 * `gitgood/`.
 */
export function qualifiedModelName(name: string): string {
  try {
    const { provider, model } = resolveProvider(name.trim(), DEFAULT_PROVIDER);
    return `${provider.name}/${model}`;
  } catch {
    return `gitgood/${name}`;
  }
}

/** The number a run's recorded option holds, when it is one. */
function numberOption(options: Record<string, unknown>, name: string): number | null {
  const value = options[name];
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

/**
 * The prices the run's agent model was charged at, as the run recorded them: `--price-in` and
 * `--price-out`, else the configuration's prices of its model; null when the run has none.
 */
export function agentPrices(run: Pick<RunRead, "config">): Prices | null {
  const resolved = run.config.config;
  if (!resolved) return null;
  const input = numberOption(resolved.options, "price-in");
  const output = numberOption(resolved.options, "price-out");
  if (input !== null && output !== null) return { input, output };
  const model = run.config.identity.model?.name;
  return (model !== undefined && resolved.prices[model]) || null;
}

/** What one model turn cost, US dollars (null: no prices; a cached answer spends no tokens and costs 0). */
export function turnCost(usage: ModelUsage | null, prices: Prices | null): number | null {
  if (!usage || !prices) return null;
  return cost({ prompt: usage.prompt_tokens, completion: usage.completion_tokens }, prices);
}
