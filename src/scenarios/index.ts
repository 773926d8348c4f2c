import { GitGoodError } from "../errors.js";
import type { ChainSample, MergeSample, Sample } from "../dataset/sample.js";
import { Repo } from "../git/repo.js";
import { Sandbox } from "../sandbox/sandbox.js";
import { readSaved } from "./shared/base.js";
import { IccScenario, type IccData, type IccScope } from "./icc/scenario.js";
import { IrScenario, type IrData } from "./ir/scenario.js";
import { McrScenario, type McrData } from "./mcr/scenario.js";
import type { LiveScenario, ScenarioKind } from "./types.js";

export type { FinalState, InitialContext, LiveScenario, ScenarioKind, ScenarioToolResult } from "./types.js";
export { McrScenario, IrScenario, IccScenario };
export type { IccScope };

export interface SetupOptions {
  /** For a file-commit-chain sample: which of its two scenarios (required for chains). */
  kind?: ScenarioKind;
  /** ICC only: offer only the chain file's hunks ("file", as published) or every file's ("all"). */
  scope?: IccScope;
  /** Keep the sandbox after this process ends (until `close()` or `gitgood env --finish`). */
  keep?: boolean;
  /** Directory to make the sandbox in. */
  root?: string;
}

/** The scenario kinds a sample gives: MCR for a merge, IR and ICC for a chain. */
export function kindsOf(sample: Sample): ScenarioKind[] {
  return sample.sample_type === "merge" ? ["mcr"] : ["ir", "icc"];
}

/** Sets up one scenario of `sample` in a new sandbox made from the repository at `repoPath`. */
export async function setupScenario(sample: Sample, repoPath: string | Repo, opts: SetupOptions = {}): Promise<LiveScenario> {
  const kinds = kindsOf(sample);
  const kind = opts.kind ?? (kinds.length === 1 ? kinds[0] : undefined);
  if (!kind) {
    throw new GitGoodError("BAD_OPTION", `sample ${sample.id} is a file-commit chain: choose its scenario, ir or icc`);
  }
  if (!kinds.includes(kind)) {
    throw new GitGoodError("BAD_OPTION", `sample ${sample.id} (${sample.sample_type}) has no ${kind} scenario; it has ${kinds.join(", ")}`);
  }
  const repo = typeof repoPath === "string" ? await Repo.open(repoPath) : repoPath;
  const common = { keep: opts.keep, root: opts.root };
  if (kind === "mcr") return McrScenario.setup(sample as MergeSample, repo, common);
  if (kind === "ir") return IrScenario.setup(sample as ChainSample, repo, common);
  return IccScenario.setup(sample as ChainSample, repo, { ...common, scope: opts.scope });
}

/** Re-opens the live scenario of a sandbox (made by this or another process). */
export async function openScenario(dir: string): Promise<LiveScenario> {
  const sandbox = await Sandbox.open(dir);
  const saved = readSaved(sandbox);
  switch (saved.kind) {
    case "mcr":
      return McrScenario.restore(sandbox, saved.sample as MergeSample, saved.source, saved.data as McrData);
    case "ir":
      return IrScenario.restore(sandbox, saved.sample as ChainSample, saved.source, saved.data as IrData);
    case "icc":
      return IccScenario.restore(sandbox, saved.sample as ChainSample, saved.source, saved.data as IccData);
    default:
      throw new GitGoodError("BAD_STATE", `unknown scenario kind in ${sandbox.dir}`);
  }
}

/**
 * Sets up a scenario, hands it to `work`, and removes the sandbox afterwards, whether `work`
 * returns or throws.
 */
export async function withScenario<T>(
  sample: Sample,
  repoPath: string | Repo,
  opts: Omit<SetupOptions, "keep">,
  work: (scenario: LiveScenario) => Promise<T>,
): Promise<T> {
  const scenario = await setupScenario(sample, repoPath, { ...opts, keep: false });
  try {
    return await work(scenario);
  } finally {
    scenario.close();
  }
}
