/** What a model's tokens cost. */
export interface Prices {
  /** US dollars per million prompt tokens. */
  input: number;
  /** US dollars per million completion tokens. */
  output: number;
}

/** The US dollars `tokens` cost at `prices` (to the millionth), or null when the prices are unknown. */
export function cost(tokens: { prompt: number; completion: number }, prices?: Prices): number | null {
  if (!prices) return null;
  return Math.round(((tokens.prompt * prices.input + tokens.completion * prices.output) / 1e6) * 1e6) / 1e6;
}

/** Where a model's prices are found: `modelPrices` by name (the configuration's), else none. */
export type PriceOf = (model: string) => Prices | undefined;
