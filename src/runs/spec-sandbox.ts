import { z } from "zod";
import { GitGoodError } from "../errors.js";
import { DEFAULT_HISTORY, parseHistory, type HistoryDepth } from "../git/store.js";
import { MCR_TOOL_SETS, type McrToolSet } from "../scenarios/mcr/state.js";
import { defineRunSetting, specValue, type RunSpec } from "./spec-registry.js";

/* What each sandbox gets: the history below the scenario's start and the MCR tools. */

/** First-parent commits of history each sandbox gets below the scenario's start: what the agent sees. */
export const HISTORY = defineRunSetting<HistoryDepth>({
  key: "history",
  option: "history",
  value: "<n|full>",
  help: "first-parent commits of history each sandbox gets below the scenario's start, or 'full'",
  schema: z.union([z.number().int().min(1), z.literal("full")]),
  parse: (text) => parseHistory(text),
  default: DEFAULT_HISTORY,
  identity: true,
  kind: "choice",
  group: "sandbox",
});

/** The MCR tools an agent gets: the published ones, or those and `write_file_at`. */
export const MCR_TOOLS = defineRunSetting<McrToolSet>({
  key: "mcr_tools",
  option: "mcr-tools",
  value: "<set>",
  help: "MCR tools: paper (the published ones, replacing conflict regions only) or extended (also write_file_at, for edits outside the regions)",
  schema: z.enum(MCR_TOOL_SETS),
  parse: (text, option) => {
    const set = MCR_TOOL_SETS.find((s) => s === text);
    if (set === undefined) throw new GitGoodError("BAD_OPTION", `${option} takes ${MCR_TOOL_SETS.join(" or ")}, not '${text}'`);
    return set;
  },
  default: "paper",
  identity: true,
  kind: "choice",
  group: "sandbox",
});

/** The scenario settings of an attempt: the families' (`settings`) and the spec's (MCR's `mcrTools`). */
export function scenarioSettings(spec: RunSpec | undefined, settings: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return { ...settings, mcrTools: specValue(spec, MCR_TOOLS) };
}
