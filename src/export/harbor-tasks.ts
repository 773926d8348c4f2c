import { GitGoodError } from "../errors.js";
import type { HarborParts, HarborTaskInput } from "../families/harbor-kit.js";
import { families } from "../families/registry.js";

export type { HarborParts, TaskFile } from "../families/harbor-kit.js";

/**
 * The Harbor parts of a scenario set up from its sample, from the first of the families' Harbor tasks that
 * takes it; BAD_SAMPLE when none does.
 */
export async function harborParts(input: HarborTaskInput): Promise<HarborParts> {
  const task = families()
    .flatMap((f) => f.harborTasks ?? [])
    .find((t) => t.accepts(input.scenario));
  if (!task) throw new GitGoodError("BAD_SAMPLE", `no Harbor task is made for the ${input.scenario.definition.name} scenario`);
  return task.build(input);
}
