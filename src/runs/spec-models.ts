import { z } from "zod";
import type { Prices } from "../model/prices.js";
import { listOption, intOption, numberOption, positiveIntOption } from "../util/options.js";
import { defineRunSetting, specValue, type RunSetting, type RunSpec } from "./spec-registry.js";

/* The models of a run besides the agent's own: the judges, how every model is asked and the agent's prices. */

/**
 * The judge models of IR and ICC (`--judge m1,m2`; none: the deterministic checks only). Not part of the
 * run's identity: judging is how attempts are scored, not what is evaluated, and `gitgood score` re-scores a
 * finished run with other judges (its run.json then names those).
 */
export const JUDGES = defineRunSetting<string[]>({
  key: "judges",
  option: "judge",
  value: "<models>",
  help: "judge models for IR/ICC, comma-separated (pairwise, positions swapped)",
  schema: z.array(z.string().min(1)),
  parse: (text) => listOption(text),
  default: [],
  defaultLabel: "none",
  identity: false,
  kind: "choice",
  group: "scoring",
});

/** The sampling temperature of every model request, the agent's and the judges' (null: not sent, the client's default). */
export const TEMPERATURE = defineRunSetting<number | null>({
  key: "temperature",
  option: "temperature",
  value: "<t>",
  help: "sampling temperature of every model request, the agent's and the judges' (default 0)",
  schema: z.number().min(0).max(2).nullable(),
  parse: (text, option) => numberOption(option, 0, 2)(text),
  default: null,
  identity: true,
  kind: "choice",
  group: "models",
});

/** The most tokens of each model answer (null: the endpoint's own bound). */
export const MAX_TOKENS = defineRunSetting<number | null>({
  key: "max_tokens",
  option: "max-tokens",
  value: "<n>",
  help: "upper bound on the tokens of each model answer",
  schema: z.number().int().min(1).nullable(),
  parse: (text, option) => positiveIntOption(option)(text),
  default: null,
  identity: true,
  kind: "choice",
  group: "models",
});

/**
 * The seed sent with every model request (null: none sent). `--seed` is also the seed of `--sample`'s draw
 * (SAMPLE's `complete`), which records it in its own value.
 */
export const SEED = defineRunSetting<number | null>({
  key: "seed",
  option: "seed",
  value: "<n>",
  help: "seed of --sample's random draw (default 0), also sent with every model request (endpoints that support it)",
  schema: z.number().int().nullable(),
  parse: (text, option) => intOption(option)(text),
  default: null,
  identity: true,
  kind: "choice",
  group: "models",
});

/** Model requests in flight at once, over the agent's and the judges' (null: no limit); how they are asked, not what. */
export const MAX_CONNECTIONS = defineRunSetting<number | null>({
  key: "max_connections",
  option: "max-connections",
  value: "<n>",
  help: "model requests in flight at once, the agent's and the judges' together (default: no limit)",
  schema: z.number().int().min(1).nullable(),
  parse: (text, option) => positiveIntOption(option)(text),
  default: null,
  identity: false,
  kind: "choice",
  group: "models",
});

/** Whether temperature-0 requests are answered from the response cache (`--no-cache`: asked every time). */
export const CACHE = defineRunSetting<boolean>({
  key: "cache",
  option: "cache",
  help: "ask the endpoint every time: do not answer temperature-0 requests from the response cache",
  schema: z.boolean(),
  default: true,
  identity: false,
  kind: "choice",
  group: "models",
});

/** The settings of how every model of a command is asked: `run`, `bench`, `score`, `mcp` and `serve` take their options. */
export const MODEL_SETTINGS: readonly RunSetting[] = [TEMPERATURE, MAX_TOKENS, SEED, MAX_CONNECTIONS, CACHE];

/** US dollars per million prompt tokens of the agent's model (`--price-in`; with `price_out`, over the configuration's `prices:`). */
export const PRICE_IN = defineRunSetting<number | null>({
  key: "price_in",
  option: "price-in",
  value: "<usd>",
  help: "price per million prompt tokens (to record cost)",
  schema: z.number().min(0).max(1e6).nullable(),
  parse: (text, option) => numberOption(option, 0, 1e6)(text),
  default: null,
  identity: false,
  kind: "choice",
  group: "spend",
});

/** US dollars per million completion tokens of the agent's model (`--price-out`). */
export const PRICE_OUT = defineRunSetting<number | null>({
  key: "price_out",
  option: "price-out",
  value: "<usd>",
  help: "price per million completion tokens",
  schema: z.number().min(0).max(1e6).nullable(),
  parse: (text, option) => numberOption(option, 0, 1e6)(text),
  default: null,
  identity: false,
  kind: "choice",
  group: "spend",
});

/**
 * The prices of a run's agent: the spec's `price_in` and `price_out` when both are given, else the prices of
 * `model` (the model the agent asks; none for an agent that asks none) among `modelPrices` (the configuration's).
 */
export function agentPrices(spec: RunSpec | undefined, model: string | null | undefined, modelPrices: Readonly<Record<string, Prices>>): Prices | undefined {
  const input = specValue(spec, PRICE_IN);
  const output = specValue(spec, PRICE_OUT);
  if (input !== null && output !== null) return { input, output };
  return model ? modelPrices[model] : undefined;
}
