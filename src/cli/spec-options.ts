import { Option, type Command } from "commander";
import { runSettings, type SettingKind } from "../runs/spec.js";

/**
 * Adds an option for every declared run setting of one kind (runs/spec.ts) to a verb: `--KEY <value>`
 * with the setting's parser, help and default. The configuration file takes the same names, through the
 * options. `run` and `bench` take both kinds; `worker` and `a2a serve` the limits.
 */
export function addSpecOptions(cmd: Command, kind: SettingKind): Command {
  for (const s of runSettings(kind)) {
    const opt = new Option(s.value ? `--${s.option} ${s.value}` : `--${s.option}`, s.help);
    const parse = s.parse;
    if (parse) opt.argParser((text: string) => parse(text, `--${s.option}`));
    // A setting whose default is none (null) and says nothing of it has no default to show.
    if (s.default !== null || s.defaultLabel !== undefined) opt.default(s.default, s.defaultLabel);
    cmd.addOption(opt);
  }
  return cmd;
}
