import { Option, type Command } from "commander";
import { HISTORY, IDS, JUDGES, LIMIT, MCR_TOOLS, runSettings, type RunSetting, type SettingKind } from "../runs/spec.js";

/**
 * The option of a declared run setting (runs/spec.ts): `--KEY <value>` with the setting's parser, help and
 * default. The configuration file takes the same names, through the options.
 */
export function specOption(s: RunSetting): Option {
  const opt = new Option(s.value ? `--${s.option} ${s.value}` : `--${s.option}`, s.help);
  if (s.choices) opt.choices(s.choices);
  const parse = s.parse;
  if (parse) opt.argParser((text: string) => parse(text, `--${s.option}`));
  // A setting whose default is none (null) and says nothing of it has no default to show.
  if (s.default !== null || s.defaultLabel !== undefined) opt.default(s.default, s.defaultLabel);
  return opt;
}

/** Adds the option of every declared run setting of one kind to a verb: `run` and `bench` take both kinds; `worker` and `a2a serve` the limits. */
export function addSpecOptions(cmd: Command, kind: SettingKind): Command {
  for (const s of runSettings(kind)) cmd.addOption(specOption(s));
  return cmd;
}

/**
 * The run settings of the verbs that serve scenarios to a client (`gitgood mcp`, `gitgood serve`): what each
 * sandbox gets, which samples are served and who judges them. Their run.json's spec holds these alone.
 */
export const SERVING_SETTINGS: readonly RunSetting[] = [IDS, LIMIT, HISTORY, MCR_TOOLS, JUDGES];
