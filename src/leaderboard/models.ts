import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { GitGoodError } from "../errors.js";
import { fsReason } from "../util/errno.js";

/** A cut-off as models.yaml gives it: a day (`2024-06-01`) or an instant (`2024-06-01T12:00:00Z`). */
const CUTOFF = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/;
const DAY_MS = 86_400_000;

/** Each model's stated training cut-off, by the model name a run records (`identity.model.name`). */
export type Cutoffs = ReadonlyMap<string, string>;

/**
 * Reads a models file: a YAML mapping from model names to training cut-offs, each a date or a date and time
 * with its zone. Anything else stops the command in one line.
 */
export function readCutoffs(file: string): Cutoffs {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new GitGoodError("BAD_MODELS_FILE", `cannot read the models file ${file} (${fsReason(err)})`);
  }
  let value: unknown;
  try {
    value = parse(text);
  } catch (err) {
    throw new GitGoodError("BAD_MODELS_FILE", `the models file ${file} is not YAML (${err instanceof Error ? err.message.split("\n")[0] : String(err)})`);
  }
  if (value === null || value === undefined) return new Map();
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new GitGoodError("BAD_MODELS_FILE", `the models file ${file} must map model names to cut-off dates (model: 2024-06-01)`);
  }
  const cutoffs = new Map<string, string>();
  for (const [model, cutoff] of Object.entries(value as Record<string, unknown>)) {
    if (typeof cutoff !== "string" || !CUTOFF.test(cutoff) || Number.isNaN(Date.parse(cutoff))) {
      throw new GitGoodError("BAD_MODELS_FILE", `the models file ${file} gives ${JSON.stringify(model)} the cut-off ${JSON.stringify(cutoff)}: give a date (2024-06-01) or a date and time with its zone`);
    }
    cutoffs.set(model, cutoff);
  }
  return cutoffs;
}

/** The last instant a cut-off covers, in ms: the end of its day for a date, the instant itself for a date and time. */
function cutoffEnd(cutoff: string): number {
  return cutoff.length === 10 ? Date.parse(`${cutoff}T00:00:00Z`) + DAY_MS - 1 : Date.parse(cutoff);
}

/**
 * Whether a task dated `date` may have been in the training data of a model with this cut-off: dated on or
 * before it. An undated task may have been (null date: true).
 */
export function possiblyContaminated(date: string | null, cutoff: string): boolean {
  if (date === null) return true;
  const at = Date.parse(date);
  return Number.isNaN(at) || at <= cutoffEnd(cutoff);
}
