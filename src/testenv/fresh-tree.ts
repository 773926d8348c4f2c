import { readBlob, listFiles } from "../git/trees.js";
import { resetPaths, worktreePatch } from "../git/apply.js";
import type { Repo } from "../git/repo.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import { diffPaths } from "../util/unified-diff.js";
import { pluginModulesNamed, splitPatch, testInfrastructure, type TestInfrastructure } from "./test-infra.js";

/** Config files whose text may name pytest plug-ins. */
const NAMING = /(^|\/)(conftest\.py|pytest\.ini|tox\.ini|setup\.cfg|pyproject\.toml)$/;

/** The plug-in modules the configuration files of `rev` name (`-p NAME`, `pytest_plugins`), sorted. */
export async function pluginModulesAt(repo: Repo, rev: string): Promise<string[]> {
  const files = (await listFiles(repo, rev)).filter((f) => NAMING.test(f));
  const modules = new Set<string>();
  for (const f of files) {
    const blob = await readBlob(repo, rev, f);
    if (blob && blob.length < 1 << 20) for (const m of pluginModulesNamed(blob.toString("utf8"))) modules.add(m);
  }
  return [...modules].sort();
}

/**
 * The evaluation's files in a fresh sandbox at `rev` (before any change of the agent's): the general
 * rules of `testInfrastructure`, the dataset's own test files, and the plug-ins its configuration names.
 */
export async function infrastructureAt(sandbox: Sandbox, rev: string, datasetFiles: readonly string[]): Promise<TestInfrastructure> {
  return testInfrastructure(datasetFiles, await pluginModulesAt(sandbox.repo, rev));
}

/** What was applied of an agent's change, and what of it was dropped. */
export interface AppliedChange<S> {
  /** What `apply` returned for the kept part (null: it did not apply, or nothing was left to apply). */
  applied: S | null;
  /** The evaluation's files the change touched, dropped from it (sorted). */
  tampered: string[];
  /** The change as evaluated: the patch's kept sections (one character per byte). */
  evaluated: string;
  /** Whether the work tree differs from `rev` after the drop (false: the change changed nothing). */
  changed: boolean;
}

/**
 * Applies the part of an agent's change that is the project's code to a fresh sandbox at `rev`: the
 * patch's sections that touch an evaluation file are dropped before `apply` runs, and whatever such a
 * file the application still changed (through a link, a fuzzy match) is put back as `rev` has it. The
 * work tree is read with a git directory of gitgood's own, never the sandbox's.
 */
export async function applyAgentChange<S>(
  sandbox: Sandbox,
  rev: string,
  patch: Buffer,
  infra: TestInfrastructure,
  apply: (kept: Buffer) => Promise<S | null>,
): Promise<AppliedChange<S>> {
  const split = splitPatch(patch.toString("latin1"), (f) => !infra.owns(f));
  const tampered = new Set(split.dropped);
  const kept = Buffer.from(split.kept, "latin1");
  const applied = kept.toString("latin1").trim() === "" ? null : await apply(kept);
  const scratch = sandbox.privatePath("evaluated.git");
  let tree = await worktreePatch(sandbox.workDir, sandbox.repo.objectsDir, rev, scratch);
  const strayed = diffPaths(tree).filter((f) => infra.owns(f));
  if (strayed.length > 0) {
    for (const f of strayed) tampered.add(f);
    await resetPaths(sandbox.repo, strayed);
    tree = await worktreePatch(sandbox.workDir, sandbox.repo.objectsDir, rev, scratch);
  }
  return { applied, tampered: [...tampered].sort(), evaluated: split.kept, changed: tree.trim() !== "" };
}
