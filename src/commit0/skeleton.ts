import path from "node:path";
import { completionDifficulty } from "./dataset.js";
import { bareRepositoryFields, idPrefix, type RepoCompletionSample } from "../dataset/sample.js";
import { GitGoodError, isGitGoodError } from "../errors.js";
import { readCommit } from "../git/commits.js";
import { Repo } from "../git/repo.js";
import { SKELETON_REF_PREFIX, commitReplacing, setGitgoodRef, treeFiles, validRefPart } from "../git/skeleton.js";
import { readBlob } from "../git/trees.js";
import { repositoryName } from "../mining/repository.js";
import { COMMIT0_SKELETON_SCRIPT, parseCommit0Skeletons, type Commit0StyleFile } from "./skeleton-style.js";
import { stubPythonSource } from "../python/stubs.js";
import { execIn } from "../sandbox/exec.js";
import { referenceRun } from "./evaluate.js";
import type { Commit0Options } from "./options.js";
import { passingTests } from "./tests.js";

/** Files longer than this are left whole, as commit0 leaves them. */
const MAX_STUBBED_LINES = 1500;

/** Why a Python file under the source directory keeps its bodies. */
export type SkipReason = "test" | "__init__" | "__main__" | "conftest" | "too long" | "does not parse";

/**
 * Whether commit0's skeleton leaves a Python file whole, and why: tests (a `test`/`tests`/`testing`
 * directory on its path, or a `test_*.py` / `*_test.py` name), `__init__.py`, `__main__.py` and
 * `conftest.py`. Long files and files that do not parse are found when they are read.
 */
export function keptWhole(file: string): SkipReason | null {
  const parts = file.split("/");
  const name = parts.at(-1) as string;
  if (name === "__init__.py") return "__init__";
  if (name === "__main__.py") return "__main__";
  if (name === "conftest.py") return "conftest";
  if (name.startsWith("test_") || name.endsWith("_test.py") || parts.slice(0, -1).some((d) => d === "test" || d === "tests" || d === "testing")) return "test";
  return null;
}

/**
 * How bodies are taken out. `gitgood` (the default): every function and method body becomes `pass`,
 * everything else stays byte for byte. `commit0`: the rules of commit0's published skeletons (dunder
 * methods keep their bodies, functions without a docstring are deleted, files re-emitted by Python's
 * `ast.unparse`), for results that compare with commit0's leaderboard.
 */
export type SkeletonStyle = "gitgood" | "commit0";
export const SKELETON_STYLES: readonly SkeletonStyle[] = ["gitgood", "commit0"];

export interface SkeletonOptions extends Commit0Options {
  /** How bodies are taken out (default `gitgood`). */
  style?: SkeletonStyle;
  /** The source directory whose function bodies are stubbed, relative to the repository root ("" or "." for all of it). */
  src: string;
  /** The reference: the revision whose code the skeleton is made from (default HEAD). */
  ref?: string;
  /** The repository's `owner/name` (default: from the origin remote, else the directory's name). */
  name?: string;
  /** The sample's and the skeleton ref's id (default `<owner_name>_repo_completion_<reference hash, 8>`). */
  id?: string;
  /** The tests' directory (default `tests` or `test` when the reference has one, else the whole repository). */
  testDir?: string;
  /** The test command recorded in the task (commit0's `test_cmd`; the environment's spec runs the tests). */
  testCmd?: string;
  signal?: AbortSignal;
}

/** What `makeSkeleton` made: the repository-completion sample, where the skeleton is kept, and what it stubbed. */
export interface SkeletonResult {
  /** The task as a sample, ready to save to a dataset. */
  sample: RepoCompletionSample;
  /** The gitgood ref that keeps the skeleton commit. */
  ref: string;
  /** Stubbed files with their stubbed functions' names, in path order. */
  stubbed: { file: string; functions: string[] }[];
  /** Functions deleted (`--style commit0`: those without a docstring), per file in path order. */
  deleted: { file: string; functions: string[] }[];
  /** Python files under the source directory left whole, with why. */
  kept: { file: string; reason: SkipReason }[];
  /** Tests run at the reference and how many passed (the counted tests). */
  reference: { ran: number; passed: number };
}

function cleanDir(dir: string): string {
  const d = dir.trim().replace(/\\/g, "/").replace(/^(\.\/)+/, "").replace(/\/+$/, "");
  if (d === ".") return "";
  if (path.posix.isAbsolute(d) || d.split("/").includes("..")) throw new GitGoodError("BAD_OPTION", `--src ${dir} must be a directory inside the repository`);
  return d;
}

/**
 * Makes a commit0-style repository-completion task from a Python repository, as commit0 makes its
 * skeletons: every function and method body in the Python files under `src` is replaced by `pass`
 * (signatures, decorators and docstrings kept; tests, `__init__.py`, `__main__.py`, `conftest.py` and
 * files over 1,500 lines left whole). The skeleton is a commit on top of the reference written with
 * plumbing alone and kept under refs/gitgood/skeletons/<id>: the repository's branches, HEAD, index and
 * work tree are not touched. The counted tests are those that pass at the reference, run in a sandbox
 * of its own with the task's environment.
 */
export async function makeSkeleton(repoPath: string, opts: SkeletonOptions): Promise<SkeletonResult> {
  const repo = await Repo.open(repoPath);
  const src = cleanDir(opts.src);
  const reference = await readCommit(repo, `${opts.ref ?? "HEAD"}^{commit}`).catch((err: unknown) => {
    if (isGitGoodError(err) && err.code === "MISSING_COMMIT") throw new GitGoodError("BAD_OPTION", `--ref ${opts.ref ?? "HEAD"} is not a commit of ${repoPath}`);
    throw err;
  });
  const files = await treeFiles(repo, reference.oid);
  const prefix = src === "" ? "" : `${src}/`;
  const python = files.filter((f) => f.path.startsWith(prefix) && f.path.endsWith(".py") && (f.mode === "100644" || f.mode === "100755"));
  if (src !== "" && !files.some((f) => f.path.startsWith(prefix))) {
    throw new GitGoodError("BAD_OPTION", `--src ${opts.src}: the reference ${reference.oid.slice(0, 12)} has no directory ${src}`);
  }
  const replaced = new Map<string, Buffer>();
  const stubbed: SkeletonResult["stubbed"] = [];
  const deleted: SkeletonResult["deleted"] = [];
  const kept: SkeletonResult["kept"] = [];
  const sources = new Map<string, string>();
  for (const f of python) {
    const whole = keptWhole(f.path.slice(prefix.length));
    if (whole) {
      kept.push({ file: f.path, reason: whole });
      continue;
    }
    const text = ((await readBlob(repo, reference.oid, f.path)) ?? Buffer.alloc(0)).toString("utf8");
    if (text.split("\n").length > MAX_STUBBED_LINES) kept.push({ file: f.path, reason: "too long" });
    else sources.set(f.path, text);
  }
  const made = opts.style === "commit0" ? await commit0Style(sources, opts.signal) : await gitgoodStyle(sources);
  for (const [file, out] of made) {
    if ("error" in out) {
      kept.push({ file, reason: "does not parse" });
      continue;
    }
    if (out.stubbed.length === 0 && out.deleted.length === 0 && opts.style !== "commit0") continue;
    if (out.text !== sources.get(file)) replaced.set(file, Buffer.from(out.text, "utf8"));
    if (out.stubbed.length > 0) stubbed.push({ file, functions: out.stubbed });
    if (out.deleted.length > 0) deleted.push({ file, functions: out.deleted });
  }
  kept.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
  const functions = stubbed.reduce((n, s) => n + s.functions.length, 0);
  if (functions === 0) throw new GitGoodError("NO_SAMPLES", `no function body to stub in the Python files under ${src === "" ? "the repository" : src}`);

  const name = opts.name ?? (await repositoryName(repo)).name;
  const id = opts.id ?? `${idPrefix(name)}_repo_completion_${reference.oid.slice(0, 8)}`;
  if (!(await validRefPart(repo, id))) throw new GitGoodError("BAD_OPTION", `'${id}' cannot name a ref (refs/gitgood/skeletons/${id}); give --id`);
  const testDir =
    opts.testDir !== undefined ? cleanDir(opts.testDir) : (["tests", "test"].find((d) => files.some((f) => f.path.startsWith(`${d}/`))) ?? "");
  const removed = deleted.reduce((n, d) => n + d.functions.length, 0);
  const style = opts.style ?? "gitgood";
  const message = `Skeleton of ${src === "" ? "the repository" : src} (gitgood, ${style} style)\n\n${functions} function bodies in ${stubbed.length} file(s) replaced by pass${removed > 0 ? `, ${removed} function(s) deleted` : ""}.\nReference: ${reference.oid}\n`;
  const commit = await commitReplacing(repo, {
    parent: reference.oid,
    files: replaced,
    message,
    identity: { name: "gitgood", email: "gitgood@localhost", date: reference.committer.date },
  });
  const ref = `${SKELETON_REF_PREFIX}${id}`;
  await setGitgoodRef(repo, ref, commit);

  const scenario = {
    instance_id: id,
    repo: name,
    base_commit: commit,
    reference_commit: reference.oid,
    src_dir: src,
    test: { test_cmd: opts.testCmd ?? "pytest", test_dir: testDir },
    setup: {},
    tests: [] as string[],
  };
  const run = await referenceRun(repo, scenario, opts, opts.signal);
  if (run.timedOut) throw new GitGoodError("TIMEOUT", `the test suite of ${name} ran out of time at the reference commit (--test-timeout)`);
  scenario.tests = passingTests(run);
  if (scenario.tests.length === 0) {
    const end = run.log.trimEnd().split("\n").at(-1)?.trim() ?? "";
    throw new GitGoodError("NO_SAMPLES", `no test passes at the reference commit ${reference.oid.slice(0, 12)}, so none can be counted${end ? `: ${end}` : ""}`);
  }
  const sample: RepoCompletionSample = {
    id,
    ...bareRepositoryFields(name, "Python"),
    difficulty: completionDifficulty(functions),
    sample_type: "repo_completion",
    scenario,
  };
  return { sample, ref, stubbed, deleted, kept, reference: { ran: run.outcomes.size, passed: scenario.tests.length } };
}

/** gitgood's skeletons: every body `pass`, the rest of each file byte for byte. */
async function gitgoodStyle(sources: ReadonlyMap<string, string>): Promise<Map<string, Commit0StyleFile>> {
  const out = new Map<string, Commit0StyleFile>();
  for (const [file, text] of sources) {
    try {
      const s = await stubPythonSource(text);
      out.set(file, { text: s.text, stubbed: s.stubbed.map((f) => f.name), deleted: [] });
    } catch (err) {
      if (!isGitGoodError(err) || err.code !== "SYNTAX_ERROR") throw err;
      out.set(file, { error: err.message });
    }
  }
  return out;
}

/** commit0's published skeletons, made by Python's own `ast` (python3 on PATH; it parses the files, never runs them). */
async function commit0Style(sources: ReadonlyMap<string, string>, signal?: AbortSignal): Promise<Map<string, Commit0StyleFile>> {
  const files = [...sources.keys()];
  if (files.length === 0) return new Map();
  const r = await execIn(process.cwd(), ["python3", "-I", "-c", COMMIT0_SKELETON_SCRIPT], {
    input: JSON.stringify(Object.fromEntries(sources)),
    maxOutput: 256 * 1024 * 1024,
    timeout: 600,
    signal,
  }).catch((err: unknown) => {
    throw new GitGoodError("BAD_OPTION", `--style commit0 needs python3 on PATH (Python's ast makes the skeleton): ${(err as Error).message}`);
  });
  if (r.code !== 0) {
    const end = r.stderr.toString("utf8").trim().split("\n").at(-1) ?? "";
    throw new GitGoodError("BAD_OPTION", `--style commit0: python3 could not make the skeleton (exit ${String(r.code)}): ${end}`);
  }
  return parseCommit0Skeletons(r.stdout.toString("utf8"), files);
}
