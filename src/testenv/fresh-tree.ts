import { copyFileSync, existsSync, readFileSync, statSync, utimesSync } from "node:fs";
import path from "node:path";
import { readBlob, listFiles } from "../git/trees.js";
import { changedPaths, resetPaths, worktreePatch } from "../git/apply.js";
import { blobId, readIndexFile } from "../git/index-file.js";
import type { Repo } from "../git/repo.js";
import { checkRelativePath, readProjectFile } from "../sandbox/paths.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import { diffPaths } from "../util/unified-diff.js";
import { harnessReach } from "./harness-reach.js";
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

/** Whether the sandbox's HEAD (in gitgood's own git directory) is `rev` itself, detached. */
function headIs(sandbox: Sandbox, rev: string): boolean {
  try {
    return readFileSync(path.join(sandbox.ownGitDir, "HEAD"), "latin1").trim() === rev;
  } catch {
    return false;
  }
}

/**
 * The plug-in modules the configuration files of a fresh sandbox name, listed from its index (which
 * gitgood's checkout of `rev` wrote: no `ls-tree`) and read from its work tree where the bytes there are
 * the blob's (its hash says so; else, a file a set-up changed or a filter rewrote, from the object store).
 * Null when the index cannot be read here.
 */
async function pluginModulesInIndex(sandbox: Sandbox): Promise<string[] | null> {
  const index = readIndexFile(sandbox.ownGitDir);
  if (index === null) return null;
  const modules = new Set<string>();
  for (const e of index) {
    if (e.stage !== 0 || e.mode === "120000" || e.mode === "160000" || !NAMING.test(e.path)) continue;
    let blob = readWorkFile(sandbox.workDir, e.path);
    if (blob === null || blobId(blob, e.oid) !== e.oid) {
      const obj = await sandbox.repo.reader?.read(e.oid);
      blob = obj?.type === "blob" ? obj.content : null;
    }
    if (blob && blob.length < 1 << 20) for (const m of pluginModulesNamed(blob.toString("utf8"))) modules.add(m);
  }
  return [...modules].sort();
}

/** A regular file of the work tree, read without following a link; null for anything else. */
function readWorkFile(work: string, rel: string): Buffer | null {
  try {
    return readProjectFile(work, checkRelativePath(work, rel));
  } catch {
    return null;
  }
}

/**
 * The evaluation's files in a fresh sandbox at `rev` (before any change of the agent's): the general
 * rules of `testInfrastructure`, the dataset's own test files, and the plug-ins its configuration names.
 * Where gitgood has just checked `rev` out in the sandbox, its index lists the files; else `ls-tree`.
 */
export async function infrastructureAt(sandbox: Sandbox, rev: string, datasetFiles: readonly string[]): Promise<TestInfrastructure> {
  const fromIndex = headIs(sandbox, rev) ? await pluginModulesInIndex(sandbox) : null;
  return testInfrastructure(datasetFiles, fromIndex ?? (await pluginModulesAt(sandbox.repo, rev)));
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
  /**
   * The paths where the work tree differs from `rev`, from the last look at it (taken after the evaluation's
   * files were put back, and nothing changed the tree since); null where nothing was applied and no look was taken.
   */
  paths: string[] | null;
  /** Where the evaluated change reaches for the test run that judges it (src/testenv/harness-reach.ts): its outcomes are then void. */
  reach: string[];
}

/**
 * The paths where the work tree now differs from `rev`, and how to ask again: through a copy of the
 * sandbox's index taken before the change (when gitgood's own HEAD is `rev`, the index is its tree: one
 * `git status`), else through a scratch git directory of gitgood's own (`worktreePatch`).
 */
function changeProbe(sandbox: Sandbox, rev: string): () => Promise<string[]> {
  const index = path.join(sandbox.ownGitDir, "index");
  if (headIs(sandbox, rev) && existsSync(index)) {
    const copy = sandbox.privatePath("evaluated.index");
    copyFileSync(index, copy);
    // The copy keeps the index's time, so that git's check of entries written in the same second still holds.
    const st = statSync(index);
    utimesSync(copy, st.atime, st.mtime);
    return () => changedPaths(sandbox.repo, copy);
  }
  return async () => diffPaths(await worktreePatch(sandbox.workDir, sandbox.repo.objectsDir, rev, sandbox.privatePath("evaluated.git"), sandbox.ownGitDir));
}

/**
 * Applies the part of an agent's change that is the project's code to a fresh sandbox at `rev`: the
 * patch's sections that touch an evaluation file are dropped before `apply` runs, and whatever such a
 * file the application still changed (through a link, a fuzzy match) is put back as `rev` has it. The
 * work tree is read with a git directory of gitgood's own, never the sandbox's `.git`. When nothing is
 * left to apply, nothing ran and the tree is `rev`'s as checked out. The kept part is searched for code
 * that reaches for the test run (`reach`).
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
  if (split.kept.trim() === "") return { applied: null, tampered: [...tampered].sort(), evaluated: split.kept, changed: false, paths: null, reach: [] };
  const kept = Buffer.from(split.kept, "latin1");
  const changed = changeProbe(sandbox, rev);
  const applied = await apply(kept);
  let paths = await changed();
  const strayed = paths.filter((f) => infra.owns(f));
  if (strayed.length > 0) {
    for (const f of strayed) tampered.add(f);
    await resetPaths(sandbox.repo, strayed);
    paths = await changed();
  }
  return { applied, tampered: [...tampered].sort(), evaluated: split.kept, changed: paths.length > 0, paths, reach: harnessReach(split.kept) };
}
