import { Option, type Command } from "commander";
import { HISTORY, IDS, JUDGES, LIMIT, MCR_TOOLS, MODEL_SETTINGS, runSettings, type RunSetting, type SettingKind } from "../runs/spec.js";

/**
 * The option of a declared run setting (runs/spec.ts): `--KEY <value>` with the setting's parser, help and
 * default. The configuration file takes the same names, through the options.
 */
export function specOption(s: RunSetting): Option {
  // A switch that is on unless turned off is given as --no-OPTION (commander then sets OPTION false).
  const negated = s.value === undefined && s.default === true;
  const opt = new Option(s.value ? `--${s.option} ${s.value}` : `--${negated ? "no-" : ""}${s.option}`, s.help);
  if (s.choices) opt.choices(s.choices);
  const parse = s.parse;
  const option = `--${s.option}`;
  if (parse && s.repeatable === true) opt.argParser((text: string, previous: unknown) => [...(Array.isArray(previous) ? previous : []), ...(parse(text, option) as unknown[])]);
  else if (parse) opt.argParser((text: string) => parse(text, option));
  // A setting whose default is none (null) and says nothing of it has no default to show; nor has a --no- switch.
  if (!negated && (s.default !== null || s.defaultLabel !== undefined)) opt.default(s.default, s.defaultLabel);
  return opt;
}

/** Adds the option of every declared run setting of one kind to a verb: `run` and `bench` take both kinds; `worker` and `a2a serve` the limits. */
export function addSpecOptions(cmd: Command, kind: SettingKind): Command {
  for (const s of runSettings(kind)) cmd.addOption(specOption(s));
  return cmd;
}

/**
 * The run settings of the verbs that serve scenarios to a client (`gitgood mcp`, `gitgood serve`): what each
 * sandbox gets, which samples are served, who judges them and how the judges are asked. Their run.json's
 * spec holds these alone.
 */
export const SERVING_SETTINGS: readonly RunSetting[] = [IDS, LIMIT, HISTORY, MCR_TOOLS, JUDGES, ...MODEL_SETTINGS];

/** Adds the options of how models are asked (`--temperature`, `--max-tokens`, `--seed`, `--max-connections`, `--no-cache`) to a verb that is not `run` or `bench` (`score`, `mcp`, `serve`). */
export function addModelOptions(cmd: Command): Command {
  for (const s of MODEL_SETTINGS) cmd.addOption(specOption(s));
  return cmd;
}
