import path from "node:path";
import type { FamilyCli, FamilyVerb, RunIO, RunPreparation, SettingsContext } from "./definition.js";
import { families } from "./registry.js";
import type { Sample } from "../dataset/sample.js";
import type { ResultRecord } from "../runs/record.js";
import { GitGoodError } from "../errors.js";

/** The families with a command line, each with its flags read from a verb's flags. */
function clis(flags: object): { name: string; cli: FamilyCli; flags: Record<string, unknown> }[] {
  return families().flatMap((family) => {
    if (!family.cli) return [];
    const parsed = family.cli.flags.safeParse(flags);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new GitGoodError("BAD_OPTION", `the ${family.name} options: ${issue ? `${issue.path.join(".")}: ${issue.message}` : "invalid"}`);
    }
    return [{ name: family.name, cli: family.cli, flags: parsed.data }];
  });
}

/** The scenario settings every family's flags ask for, merged (`settings.swe`, `settings.commit0`, …). */
export function familySettings(flags: object, verb: FamilyVerb, ctx: SettingsContext): Record<string, unknown> {
  return Object.assign({}, ...clis(flags).map(({ cli, flags: f }) => cli.settings?.(f, verb, ctx) ?? {})) as Record<string, unknown>;
}

/** What run.json's identity records of the families' flags, by family key (`swe`): only the families that record something. */
export function familyIdentity(flags: object): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const { name, cli, flags: f } of clis(flags)) {
    const value = cli.identity?.(f, (p) => path.resolve(p));
    if (value !== undefined) fields[name.toLowerCase()] = value;
  }
  return fields;
}

/** Lets each family narrow the samples and choose the agent before a run (in registry order). */
export function prepareFamilies(flags: object, samples: Sample[], agent: string, io: RunIO): Required<RunPreparation> {
  let prepared: Required<RunPreparation> = { samples, agent, agentOptions: {} };
  for (const { cli, flags: f } of clis(flags)) {
    if (!cli.prepare) continue;
    const next = cli.prepare(f, prepared.samples, prepared.agent, io);
    prepared = { samples: next.samples, agent: next.agent ?? prepared.agent, agentOptions: { ...prepared.agentOptions, ...next.agentOptions } };
  }
  return prepared;
}

/** Lets each family write what its flags ask for after a run (`--predictions-out`). */
export function finishFamilies(flags: object, records: readonly ResultRecord[], io: RunIO): void {
  for (const { cli, flags: f } of clis(flags)) cli.finish?.(f, records, io);
}
