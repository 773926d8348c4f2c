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
import type { Isolation } from "../sandbox/isolation.js";
import type { Environment } from "../testenv/types.js";
import { checkHarborTask, type HarborCheck, type RewardFiles } from "./harbor-check.js";
import { checkHarborTaskInContainer, type ContainerCheckOptions } from "./harbor-container.js";
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
  /** Scenario settings (ICC's `scope`, MCR's `mcrTools`, SWE's and COMMIT0's `envSpecFile`), as for a run. */
  settings?: Record<string, unknown>;
  /**
   * Run the gate before the task is written: in gitgood's jail with this isolation (src/export/harbor-check.ts),
   * or with a container runtime that builds the Dockerfile (src/export/harbor-container.ts); absent: not checked.
   */
  check?: { isolation: Isolation; timeoutSeconds?: number } | { container: ContainerCheckOptions } | null;
  /** Write a task that fails the gate too (its task.toml's [metadata] says so); by default it is left out. */
  keepFailing?: boolean;
}

/** One exported task: its directory (null when the gate left it out) and the gate's findings (null when not checked). */
export interface HarborExport {
  dir: string | null;
  check: HarborCheck | null;
}

/** The Debian image every task starts from. */
export const BASE_IMAGE = "debian:bookworm-slim";

/**
 * The task's directory name and Harbor name (`gitgood/<name>`): the sample id and the scenario as a
 * bounded safe file name in the characters Harbor's `org/name` pattern allows (`-` marks the digest).
 */
function harborTaskName(sample: Sample, scenario: string): string {
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

/** A Dockerfile `ENV` value: quoted, its quotes and backslashes escaped (`$NAME` is still replaced, as Docker does). */
function envValue(value: string): string {
  return `"${value.replace(/[\\"]/g, (c) => `\\${c}`).replace(/\n/g, " ")}"`;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function dockerfile(parts: HarborParts): string {
  const bad = Object.keys(parts.env).find((k) => !ENV_NAME.test(k));
  if (bad !== undefined) throw new GitGoodError("BAD_ENV_SPEC", `the environment's variable name ${JSON.stringify(bad)} cannot go into a Dockerfile`);
  const packages = [...new Set(["git", "ca-certificates", ...parts.packages])].join(" ");
  return [
    "# The base image can be given at build time (a Debian image built offline, say): --build-arg BASE_IMAGE=…",
    `ARG BASE_IMAGE=${BASE_IMAGE}`,
    "FROM ${BASE_IMAGE}",
    `RUN apt-get update && apt-get install -y --no-install-recommends ${packages} && rm -rf /var/lib/apt/lists/*`,
    "# The repository as gitgood's answer-free sandbox held it at the task's start (start/start.sh says how).",
    "COPY start /tmp/gitgood-start",
    `RUN sh /tmp/gitgood-start/start.sh ${TASK_REPO} && rm -rf /tmp/gitgood-start`,
    `WORKDIR ${TASK_REPO}`,
    ...Object.entries(parts.env).map(([k, v]) => `ENV ${k}=${envValue(v)}`),
    // The exec form with a JSON string keeps a command as it is, line breaks included; sh runs it in /app.
    ...parts.setup.map((cmd) => `RUN ${JSON.stringify(["sh", "-c", cmd])}`),
    "",
  ].join("\n");
}

/** The schema of Harbor's task.toml gitgood writes (Harbor's TaskConfig of 0.24 and later: `[verifier]` environment_mode, network_mode). */
const TASK_SCHEMA_VERSION = "1.4";

function taskToml(name: string, sample: Sample, scenario: AnyScenarioDefinition, parts: HarborParts, version: string): string {
  const keywords = ["gitgood", scenario.family ?? scenario.name, scenario.name, sample.programming_language ?? "", sample.difficulty ?? ""].filter((k) => k !== "");
  return tomlDocument({ schema_version: TASK_SCHEMA_VERSION }, [
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
    // The verifier reads the repository the agent left: it runs in the agent's container, without the network.
    ["verifier", { timeout_sec: { float: 600 }, environment_mode: "shared", network_mode: "no-network" }],
    ["agent", { timeout_sec: { float: 1800 } }],
    ["environment", { build_timeout_sec: { float: 600 }, cpus: 1, memory_mb: 2048, storage_mb: 10240, network_mode: "no-network", workdir: TASK_REPO }],
  ]);
}

/**
 * Writes one Harbor task directory for `sample` in `scenario` under `opts.out`: the scenario is set up
 * in a sandbox as for a run, its start goes into environment/, and the scenario's verifier and recorded
 * outcome into tests/ and solution/ (the only places that know the answer). Returns the directory. A
 * directory of an earlier export of the same task is replaced; anything else in the way is refused.
 */
export async function exportHarborTask(sample: Sample, scenario: AnyScenarioDefinition, source: Repo, opts: HarborExportOptions): Promise<HarborExport> {
  const name = harborTaskName(sample, scenario.name);
  // Resolved now: the sandbox's git runs elsewhere, and a relative path would be read from there.
  const out = path.resolve(opts.out);
  const target = path.join(out, name);
  if (existsSync(target) && !existsSync(path.join(target, "task.toml"))) {
    throw new GitGoodError("WRITE_FAILED", `${target} exists and is not a Harbor task directory; not overwritten`);
  }
  mkdirSync(out, { recursive: true });
  const tmp = mkdtempSync(path.join(out, `.${name}-`));
  try {
    const check = await withScenario(sample, source, { scenario, history: opts.history, workTree: "full", settings: opts.settings }, async (live) => {
      const parts = await harborParts({ sample, scenario: live, source });
      await writeStart(live, path.join(tmp, "environment", "start"));
      writeTaskFile(tmp, "environment/Dockerfile", { data: dockerfile(parts) });
      writeTaskFile(tmp, "instruction.md", { data: parts.instruction });
      writeTaskFile(tmp, "task.toml", { data: taskToml(name, sample, scenario, parts, opts.version) });
      for (const [rel, file] of Object.entries(parts.tests)) writeTaskFile(path.join(tmp, "tests"), rel, file);
      for (const [rel, file] of Object.entries(parts.solution)) writeTaskFile(path.join(tmp, "solution"), rel, file);
      if (!opts.check) return null;
      const found = await gate(tmp, parts, opts.check);
      const verdict = found.problems.length === 0 ? `passed in ${found.where}` : `FAILED in ${found.where}: ${found.problems.join("; ")}`;
      writeTaskFile(tmp, "task.toml", { data: taskToml(name, sample, scenario, { ...parts, notes: { ...parts.notes, gitgood_check: verdict } }, opts.version) });
      return found;
    });
    if (check && check.problems.length > 0 && !opts.keepFailing) return { dir: null, check };
    rmSync(target, { recursive: true, force: true });
    renameSync(tmp, target);
    return { dir: target, check };
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** The gate on a task written at `dir`, with the environment its family names; an environment that cannot be built fails it. */
async function gate(dir: string, parts: HarborParts, check: NonNullable<HarborExportOptions["check"]>): Promise<HarborCheck> {
  if ("container" in check) return checkHarborTaskInContainer(dir, check.container);
  let environment: Environment | null = null;
  if (parts.checkEnvironment) {
    try {
      environment = await parts.checkEnvironment();
    } catch (err) {
      if (!(err instanceof GitGoodError)) throw err;
      const none: RewardFiles = { reward: null, metrics: null, output: "" };
      return { where: `gitgood's jail (${check.isolation.mode})`, oracle: none, nop: none, problems: [`the task's environment could not be built: ${err.message}`] };
    }
  }
  return checkHarborTask(dir, { isolation: check.isolation, environment, timeoutSeconds: check.timeoutSeconds });
}
