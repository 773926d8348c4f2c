import { Option, type Command } from "commander";
import { runSettings } from "../runs/spec.js";

/**
 * Adds an option for every declared run setting (runs/spec.ts) to a verb: `--KEY <value>` with the
 * setting's parser, help and default. The configuration file takes the same names, through the options.
 */
export function addSpecOptions(cmd: Command): Command {
  for (const s of runSettings()) {
    const opt = new Option(s.value ? `--${s.option} ${s.value}` : `--${s.option}`, s.help);
    const parse = s.parse;
    if (parse) opt.argParser((text: string) => parse(text, `--${s.option}`));
    opt.default(s.default, s.defaultLabel);
    cmd.addOption(opt);
  }
  return cmd;
}
