import { copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Sample } from "../dataset/sample.js";
import { GitGoodError } from "../errors.js";
import { bundleEveryObject, objectFormat, workTreeDelta } from "../git/bundle.js";
import { gitDirCopyPlan } from "../git/own-git-dir.js";
import type { Repo } from "../git/repo.js";
import type { HistoryDepth } from "../git/store.js";
import type { AnyScenarioDefinition } from "../scenarios/definition.js";
import { withScenario } from "../scenarios/index.js";
import type { LiveScenario } from "../scenarios/types.js";
import { checkRelativePath, entryKind, makeProjectParents, readProjectFile, readProjectLink, writeProjectFile, writeProjectLink } from "../sandbox/paths.js";
import { harborParts, type HarborParts, type TaskFile } from "./harbor-tasks.js";
import { START_SH, TASK_REPO } from "./harbor-scripts.js";
import { tomlDocument } from "./harbor-toml.js";
import { safeFileName } from "../util/file-names.js";

/** What every task of an export shares. */
export interface HarborExportOptions {
  /** Directory the task directories are written into. */
  out: string;
  /** Commits of history below the task's start the repository gets (as `gitgood run --history`). */
  history?: HistoryDepth;
  /** gitgood's version, recorded in task.toml. */
  version: string;
  /** Scenario settings (ICC's `scope`, MCR's `mcrTools`), as for a run. */
  settings?: Record<string, unknown>;
}

/** The Debian image every task starts from. */
export const BASE_IMAGE = "debian:bookworm-slim";

/**
 * The task's directory name and Harbor name (`gitgood/<name>`): the sample id and the scenario as a
 * bounded safe file name in the characters Harbor's `org/name` pattern allows (`-` marks the digest).
 */
export function harborTaskName(sample: Sample, scenario: string): string {
  return safeFileName(`${sample.id}-${scenario.toLowerCase()}`, "-");
}

/**
 * Writes a task file at `rel` under `root` through the sandbox's path door: no '..', no link among its
 * directories (a link written earlier from a hostile tree can never carry a later file outside), and an
 * existing link at the place is replaced, never followed.
 */
function writeTaskFile(root: string, rel: string, file: TaskFile): void {
  mkdirSync(root, { recursive: true });
  const p = checkRelativePath(root, rel);
  makeProjectParents(root, p);
  if ("link" in file) {
    writeProjectLink(root, p, Buffer.from(file.link, "utf8"));
    return;
  }
  writeProjectFile(root, p, Buffer.isBuffer(file.data) ? file.data : Buffer.from(file.data, "utf8"), file.mode ?? 0o644);
}

/** Copies a file of the work tree as it is (a link as a link, never followed; a file with its mode), read through the path door too. */
function copyWorkFile(workDir: string, rel: string, root: string): void {
  const p = checkRelativePath(workDir, rel);
  const kind = entryKind(workDir, p);
  if (kind === "link") writeTaskFile(root, rel, { link: readProjectLink(workDir, p).toString("utf8") });
  else if (kind === "file") {
    const executable = (lstatSync(path.join(workDir, rel)).mode & 0o111) !== 0;
    writeTaskFile(root, rel, { data: readProjectFile(workDir, p), mode: executable ? 0o755 : 0o644 });
  }
}

/**
 * environment/start: the sandbox as gitgood set it up, answer-free by construction (its store holds only
 * what the scenario's start reaches): every object in one bundle, gitgood's own git state (HEAD, refs,
 * index, shallow, config, a merge or rebase in progress; no object), the work tree's files that differ
 * from the index, and the index's files missing from the work tree.
 */
async function writeStart(scenario: LiveScenario, dir: string): Promise<void> {
  const sandbox = scenario.sandbox;
  mkdirSync(path.join(dir, "git"), { recursive: true });
  await bundleEveryObject(sandbox.repo, path.join(dir, "repo.bundle"));
  writeFileSync(path.join(dir, "object-format"), `${await objectFormat(sandbox.repo)}\n`);
  const plan = gitDirCopyPlan(sandbox.ownGitDir);
  for (const rel of ["config", ...plan.always]) {
    const to = path.join(dir, "git", rel);
    mkdirSync(path.dirname(to), { recursive: true });
    copyFileSync(path.join(sandbox.ownGitDir, rel), to);
  }
  const delta = await workTreeDelta(sandbox.repo);
  mkdirSync(path.join(dir, "work"), { recursive: true });
  for (const rel of delta.changed) copyWorkFile(sandbox.workDir, rel, path.join(dir, "work"));
  writeFileSync(path.join(dir, "deleted"), delta.deleted.map((p) => `${p}\0`).join(""));
  writeTaskFile(dir, "start.sh", { data: START_SH, mode: 0o755 });
}

function dockerfile(parts: HarborParts): string {
  const packages = ["git", "ca-certificates", ...parts.packages].join(" ");
  return [
    `FROM ${BASE_IMAGE}`,
    `RUN apt-get update && apt-get install -y --no-install-recommends ${packages} && rm -rf /var/lib/apt/lists/*`,
    "# The repository as gitgood's answer-free sandbox held it at the task's start (start/start.sh says how).",
    "COPY start /tmp/gitgood-start",
    `RUN sh /tmp/gitgood-start/start.sh ${TASK_REPO} && rm -rf /tmp/gitgood-start`,
    `WORKDIR ${TASK_REPO}`,
    ...parts.setup.map((cmd) => `RUN ${cmd}`),
    "",
  ].join("\n");
}

function taskToml(name: string, sample: Sample, scenario: AnyScenarioDefinition, parts: HarborParts, version: string): string {
  const keywords = ["gitgood", scenario.family ?? scenario.name, scenario.name, sample.programming_language ?? "", sample.difficulty ?? ""].filter((k) => k !== "");
  return tomlDocument({ schema_version: "1.1" }, [
    ["task", { name: `gitgood/${name}`, description: `${scenario.title}: ${sample.id} (${sample.name})`, keywords: [...new Set(keywords.map((k) => k.toLowerCase()))] }],
    [
      "metadata",
      {
        sample_id: sample.id,
        scenario: scenario.name,
        repository: sample.name,
        difficulty: sample.difficulty ?? "",
        exported_by: `gitgood ${version}`,
        ...parts.notes,
      },
    ],
    ["verifier", { timeout_sec: { float: 600 } }],
    ["agent", { timeout_sec: { float: 1800 } }],
    ["environment", { build_timeout_sec: { float: 600 }, cpus: 1, memory_mb: 2048, storage_mb: 10240, allow_internet: false }],
  ]);
}

/**
 * Writes one Harbor task directory for `sample` in `scenario` under `opts.out`: the scenario is set up
 * in a sandbox as for a run, its start goes into environment/, and the scenario's verifier and recorded
 * outcome into tests/ and solution/ (the only places that know the answer). Returns the directory. A
 * directory of an earlier export of the same task is replaced; anything else in the way is refused.
 */
export async function exportHarborTask(sample: Sample, scenario: AnyScenarioDefinition, source: Repo, opts: HarborExportOptions): Promise<string> {
  const name = harborTaskName(sample, scenario.name);
  const target = path.join(opts.out, name);
  if (existsSync(target) && !existsSync(path.join(target, "task.toml"))) {
    throw new GitGoodError("WRITE_FAILED", `${target} exists and is not a Harbor task directory; not overwritten`);
  }
  mkdirSync(opts.out, { recursive: true });
  const tmp = mkdtempSync(path.join(opts.out, `.${name}-`));
  try {
    await withScenario(sample, source, { scenario, history: opts.history, workTree: "full", settings: opts.settings }, async (live) => {
      const parts = await harborParts({ sample, scenario: live, source });
      await writeStart(live, path.join(tmp, "environment", "start"));
      writeTaskFile(tmp, "environment/Dockerfile", { data: dockerfile(parts) });
      writeTaskFile(tmp, "instruction.md", { data: parts.instruction });
      writeTaskFile(tmp, "task.toml", { data: taskToml(name, sample, scenario, parts, opts.version) });
      for (const [rel, file] of Object.entries(parts.tests)) writeTaskFile(path.join(tmp, "tests"), rel, file);
      for (const [rel, file] of Object.entries(parts.solution)) writeTaskFile(path.join(tmp, "solution"), rel, file);
    });
    rmSync(target, { recursive: true, force: true });
    renameSync(tmp, target);
    return target;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
