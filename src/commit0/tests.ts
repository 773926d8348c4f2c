import type { RepoCompletionSample } from "../dataset/sample.js";
import { declaredTestDependencies, instanceSetupCommands, isPassing, isTestFileName, loadEnvSpecFile, prepareEnvironment, resolveEnvSpec, runTests } from "../testenv/index.js";
import type { EnvSpec, EnvTarget, Environment, TestRun } from "../testenv/types.js";
import type { Repo } from "../git/repo.js";
import { listFiles } from "../git/trees.js";
import type { Sandbox } from "../sandbox/sandbox.js";
import { DEFAULT_RELATED_TESTS, DEFAULT_SETUP_TIMEOUT, DEFAULT_TEST_TIMEOUT, type Commit0Options } from "./options.js";
import { at } from "../util/at.js";

/** The environment target of a task: its repository (one environment serves the reference and every skeleton of it). */
export function envTarget(sample: Pick<RepoCompletionSample["scenario"], "repo">): EnvTarget {
  return { repo: sample.repo, version: null };
}

/** The spec of the task's environment (see completionEnvironment). */
export function completionEnvSpec(sandbox: Sandbox, task: Pick<RepoCompletionSample["scenario"], "repo" | "setup">, opts: Commit0Options): EnvSpec {
  const user = opts.envSpecFile ? loadEnvSpecFile(opts.envSpecFile) : null;
  return resolveEnvSpec(envTarget(task), sandbox.workDir, user, [...instanceSetupCommands(task.setup), ...declaredTestDependencies(sandbox.workDir)]);
}

/**
 * Builds (or takes from the cache) the environment the task's tests run in, for a sandbox of its
 * project: the spec of `--env-spec` over the built-in default the work tree suggests (pytest for a
 * Python project), whose set-up first runs the task's own (commit0's `setup` fields: `pre_install`,
 * `packages`, `pip_packages`, `install`) and installs the test dependencies the project declares.
 */
export async function completionEnvironment(
  sandbox: Sandbox,
  task: Pick<RepoCompletionSample["scenario"], "repo" | "setup">,
  opts: Commit0Options,
  signal?: AbortSignal,
): Promise<Environment> {
  const target = envTarget(task);
  const spec = completionEnvSpec(sandbox, task, opts);
  return prepareEnvironment({ sandbox, target, spec, cacheDir: opts.cacheDir, timeoutSeconds: opts.setupTimeoutSeconds ?? DEFAULT_SETUP_TIMEOUT, signal });
}

/**
 * The options commit0 gives pytest: a test file that fails to import is an error of its own tests, and
 * the others still run (without it, one broken import would make the whole repository score 0).
 */
export function suiteFlags(spec: EnvSpec): string[] {
  return /\bpytest\b/.test(spec.test) ? ["--continue-on-collection-errors"] : [];
}

/** Runs the whole suite (`test_dir`, or everything the test command finds when it is empty), with commit0's pytest options. */
export function runSuite(sandbox: Sandbox, env: Environment, testDir: string, opts: Commit0Options, signal?: AbortSignal): Promise<TestRun> {
  return runTests(sandbox, env, testDir === "" ? [] : [testDir], { timeoutSeconds: opts.testTimeoutSeconds ?? DEFAULT_TEST_TIMEOUT, flags: suiteFlags(env.spec), signal });
}

/** The tests of a run that pass (passed or xfail), sorted. */
export function passingTests(run: TestRun): string[] {
  return [...run.outcomes].filter(([, o]) => isPassing(o)).map(([id]) => id).sort();
}

export { isTestFileName } from "../testenv/index.js";

/** The test files of a tree below `testDir` (the whole tree when it is empty), in git's order. */
export async function testFilesAt(repo: Repo, rev: string, testDir: string): Promise<string[]> {
  const prefix = testDir === "" ? "" : `${testDir.replace(/\/+$/, "")}/`;
  return (await listFiles(repo, rev)).filter((f) => f.startsWith(prefix) && isTestFileName(f));
}

function patternRegex(pattern: string, stem: string): RegExp {
  let re = "";
  const text = pattern.replaceAll("{stem}", "\0");
  for (let i = 0; i < text.length; i++) {
    const c = at(text, i);
    if (c === "\0") re += stem.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    else if (c === "*" && text[i + 1] === "*") {
      re += ".*";
      i++;
    } else if (c === "*") re += "[^/]*";
    else re += c.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}

/**
 * A source file's related test files among `testFiles`: those the pattern names with the file's stem
 * (default: the stem anywhere in the test file's name; see Commit0Options.relatedTests).
 */
export function relatedTestFiles(sourceFile: string, testFiles: readonly string[], pattern: string = DEFAULT_RELATED_TESTS): string[] {
  const name = sourceFile.slice(sourceFile.lastIndexOf("/") + 1);
  const stem = name.replace(/\.py$/, "");
  const re = patternRegex(pattern, stem);
  const onPath = pattern.includes("/");
  return testFiles.filter((f) => re.test(onPath ? f : f.slice(f.lastIndexOf("/") + 1)));
}

const SECTION = /^=+ (.+?) =+$/;
const BLOCK = /^_{3,} (.+?) _{3,}$/;

/**
 * A test run's output for a model, within `budget` characters: the first failure's traceback first
 * (pytest's first ERRORS or FAILURES block: a collection error stops everything after it), then the
 * summary's FAILED and ERROR lines and its last line, then the other failures' tracebacks as far as the
 * budget goes. Output without such blocks is shown by its end.
 */
export function trimTestOutput(log: string, budget: number): string {
  const lines = log.split("\n");
  const blocks: string[][] = [];
  const summary: string[] = [];
  let section = "";
  let current: string[] | null = null;
  for (const line of lines) {
    const head = SECTION.exec(line);
    if (head) {
      section = at(head, 1).toLowerCase();
      current = null;
      if (/\b(failed|passed|error|errors|no tests ran)\b.* in [\d.]+s/.test(section)) summary.push(line);
      continue;
    }
    if (section === "errors" || section === "failures") {
      if (BLOCK.test(line)) {
        current = [line];
        blocks.push(current);
      } else current?.push(line);
    } else if (section === "short test summary info" && /^(FAILED|ERROR) /.test(line)) {
      summary.push(line);
    }
  }
  const cut = (text: string, room: number): string => (text.length <= room ? text : `${text.slice(0, Math.max(0, room - 40))}\n[... cut to fit the output budget]`);
  if (blocks.length === 0) {
    const end = log.trimEnd();
    return end.length <= budget ? end : `[... the first ${end.length - budget} characters are cut]\n${end.slice(end.length - budget)}`;
  }
  const parts = [at(blocks, 0).join("\n").trimEnd(), summary.join("\n")];
  let out = cut(parts.filter((p) => p !== "").join("\n\n"), budget);
  for (const block of blocks.slice(1)) {
    const text = `\n\n${block.join("\n").trimEnd()}`;
    if (out.length + text.length > budget) {
      out += `\n\n[... ${blocks.length - blocks.indexOf(block)} more failure(s) not shown]`;
      break;
    }
    out += text;
  }
  return out;
}
