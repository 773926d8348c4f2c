import { z } from "zod";
import { DIFFICULTIES, type Difficulty } from "../dataset/sample.js";
import { GitGoodError } from "../errors.js";
import { scenarioNames, scenarioSet } from "../scenarios/registry.js";
import { intOption, keywordListOption, listOption, positiveIntOption } from "../util/options.js";
import { defineRunSetting } from "./spec-registry.js";

/*
 * Which samples and scenarios a run evaluates: ids, scenarios, difficulties, languages, a random draw and a
 * count, each kept in one spelling so that the same selection is the same identity however it was typed.
 */

/** Only these sample ids (null: every sample). */
export const IDS = defineRunSetting<string[] | null>({
  key: "ids",
  option: "ids",
  value: "<list>",
  help: "only these sample ids, comma-separated",
  schema: z.array(z.string()).nullable(),
  parse: (text) => nonEmpty(listOption(text)),
  default: null,
  identity: true,
  kind: "choice",
  group: "selection",
});

/** Only the samples that give one of these scenarios, by their registry names in report order (null: every scenario). */
export const SCENARIOS = defineRunSetting<string[] | null>({
  key: "scenarios",
  option: "scenario",
  value: "<list>",
  // Read when the help is shown: the families register their scenarios after this module is loaded.
  get help() {
    return `only these scenarios, comma-separated (${scenarioNames().map((n) => n.toLowerCase()).join(", ")}; any case)`;
  },
  schema: z.array(z.string()).nullable(),
  parse: (text) => nonEmpty(scenarioSet(listOption(text))),
  default: null,
  identity: true,
  kind: "choice",
  group: "selection",
});

/** Only samples of these difficulties, in the order of DIFFICULTIES (null: every difficulty). */
export const DIFFICULTY = defineRunSetting<Difficulty[] | null>({
  key: "difficulties",
  option: "difficulty",
  value: "<list>",
  help: `only these difficulties, comma-separated (${DIFFICULTIES.join(", ")})`,
  schema: z.array(z.enum(DIFFICULTIES)).nullable(),
  parse: (text, option) => {
    const list = keywordListOption(text);
    const wrong = list.filter((d) => !(DIFFICULTIES as readonly string[]).includes(d));
    if (wrong.length > 0 || list.length === 0) throw new GitGoodError("BAD_OPTION", `${option} takes ${DIFFICULTIES.join(", ")} (comma-separated), not '${text}'`);
    return DIFFICULTIES.filter((d) => list.includes(d));
  },
  default: null,
  identity: true,
  kind: "choice",
  group: "selection",
});

/** Only samples whose programming language is one of these, lower-cased and sorted (null: every language). */
export const LANGUAGES = defineRunSetting<string[] | null>({
  key: "languages",
  option: "language",
  value: "<list>",
  help: "only samples whose programming_language is one of these, comma-separated (any case)",
  schema: z.array(z.string()).nullable(),
  parse: (text) => nonEmpty([...new Set(keywordListOption(text))].sort()),
  default: null,
  identity: true,
  kind: "choice",
  group: "selection",
});

/** A stratified random draw of `size` samples, the same for the same `seed` (`--seed`, default 0; null: no draw). */
export const SAMPLE = defineRunSetting<{ size: number; seed: number } | null>({
  key: "sample",
  option: "sample",
  value: "<n>",
  help: "a random sample of N samples, stratified by scenario and difficulty (drawn with --seed)",
  schema: z.object({ size: z.number().int().min(1), seed: z.number().int() }).strict().nullable(),
  parse: (text, option) => ({ size: positiveIntOption(option)(text), seed: 0 }),
  complete: (value, options) => (value === null ? null : { size: value.size, seed: typeof options.seed === "number" ? options.seed : value.seed }),
  default: null,
  identity: true,
  kind: "choice",
  group: "selection",
});

/** Only the first N samples, after the filters and the draw (null: all of them). */
export const LIMIT = defineRunSetting<number | null>({
  key: "limit",
  option: "limit",
  value: "<n>",
  help: "only the first N samples, in file order (run, bench: after the filters and --sample)",
  schema: z.number().int().min(0).nullable(),
  parse: (text, option) => intOption(option)(text),
  default: null,
  identity: true,
  kind: "choice",
  group: "selection",
});

/** A list, or null (no filter) when it is empty. */
function nonEmpty<T>(list: T[]): T[] | null {
  return list.length > 0 ? list : null;
}
