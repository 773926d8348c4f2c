import type { FamilyCli, FamilyVerb, RunIO, RunPreparation, SettingsContext } from "./definition.js";
import { families } from "./registry.js";
import type { Sample } from "../dataset/sample.js";
import type { ResultRecord } from "../runs/record.js";
import type { RunSpec } from "../runs/spec.js";
import type { JobTicket } from "../runs/ticket.js";
import type { Isolation } from "../sandbox/isolation.js";

/*
 * What the families' settings turn into: each family's hooks read its fragment of the run spec (and
 * another family's, where it shares one), wherever the spec comes from: a verb's flags
 * (`familyFragments`), run.json, or a queue ticket on a worker.
 */

/** The families' parts of a run, in registry order. */
function clis(): FamilyCli[] {
  return families().flatMap((family) => (family.cli ? [family.cli] : []));
}

/** The scenario settings every family's settings in `spec` ask for, merged (`settings.swe`, `settings.commit0`, …), their live parts made here. */
export function familyScenarioSettings(spec: RunSpec, verb: FamilyVerb, ctx: SettingsContext): Record<string, unknown> {
  return Object.assign({}, ...clis().map((cli) => cli.scenarioSettings?.(spec, verb, ctx) ?? {})) as Record<string, unknown>;
}

/**
 * The families' scenario settings of a queue ticket's job, made from the ticket's spec where it runs
 * (`TicketEnv.settings`) with that process's isolation, as the producer made them from its flags.
 */
export function ticketScenarioSettings(ticket: JobTicket, isolation: Isolation | undefined): Record<string, unknown> {
  return familyScenarioSettings(ticket.spec ?? {}, "run", { isolation, model: ticket.agent.model ?? undefined, envs: ticket.envs });
}

/** Lets each family narrow the samples and choose the agent before a run (in registry order). */
export function prepareFamilies(spec: RunSpec, samples: Sample[], agent: string, io: RunIO): Required<RunPreparation> {
  let prepared: Required<RunPreparation> = { samples, agent, agentOptions: {} };
  for (const cli of clis()) {
    if (!cli.prepare) continue;
    const next = cli.prepare(spec, prepared.samples, prepared.agent, io);
    prepared = { samples: next.samples, agent: next.agent ?? prepared.agent, agentOptions: { ...prepared.agentOptions, ...next.agentOptions } };
  }
  return prepared;
}

/** Lets each family write what its settings ask for after a run (`--predictions-out`). */
export function finishFamilies(spec: RunSpec, records: readonly ResultRecord[], io: RunIO): void {
  for (const cli of clis()) cli.finish?.(spec, records, io);
}
