import { countedTests, tallyCounted } from "../../commit0/evaluate.js";
import { freshIndexEntries, type IndexRecord } from "../../git/index-file.js";
import { COMPILE_TIMEOUT, DEFAULT_RELATED_TESTS, DEFAULT_TEST_TIMEOUT, commit0OptionsOf, type Commit0Options } from "../../commit0/options.js";
import { stubbedFilesInOrder, type StubbedFile } from "../../commit0/order.js";
import { completionEnvironment, relatedTestFiles, runSuite, suiteFlags, testFilesAt } from "../../commit0/tests.js";
import type { RepoCompletionSample } from "../../dataset/sample.js";
import { execInEnvironment, runTests } from "../../testenv/index.js";
import type { Environment } from "../../testenv/types.js";
import { GitGoodError } from "../../errors.js";
import { worktreePatch } from "../../git/apply.js";
import { changedFiles, commitAll, resetHard } from "../../git/checkpoint.js";
import { requireCommits } from "../../git/commits.js";
import { headCommit } from "../../git/refs.js";
import type { Repo } from "../../git/repo.js";
import { commitStore } from "../../git/store.js";
import { listFiles } from "../../git/trees.js";
import { checkoutBranch } from "../../git/worktree.js";
import { stubbedFunctions } from "../../python/stubs.js";
import { checkRelativePath, entryKind, readProjectFile } from "../../sandbox/paths.js";
import type { Sandbox } from "../../sandbox/sandbox.js";
import type { AnyScenarioDefinition, ScenarioSetupOptions } from "../definition.js";
import { ScenarioBase, inNewSandbox } from "../shared/base.js";
import type { InitialContext } from "../types.js";
import type { AttemptRecord, Commit0Data, Commit0FinalState, SavedOptions } from "./state.js";
import type { CompileCheck, Commit0Host, ScenarioTestRun } from "./types.js";


const COMMIT0_BRANCH = "gitgood/commit0";

/**
 * Compiles each file named on the command line with Python's own compiler (what `python -m py_compile`
 * runs, without writing bytecode) and prints each syntax error as `file:line:column: message`.
 */
const COMPILE_SCRIPT = [
  "import sys",
  "bad = 0",
  "for f in sys.argv[1:]:",
  "    try:",
  "        compile(open(f, 'rb').read(), f, 'exec', dont_inherit=True)",
  "    except (SyntaxError, ValueError) as e:",
  "        bad += 1",
  "        where = f'{f}:{getattr(e, \"lineno\", 0) or 0}:{getattr(e, \"offset\", 0) or 0}'",
  "        print(f'{where}: {type(e).__name__}: {getattr(e, \"msg\", e)}')",
  "        text = getattr(e, 'text', None)",
  "        if text: print('    ' + text.rstrip())",
  "sys.exit(1 if bad else 0)",
].join("\n");

function savedOptions(o: Commit0Options): SavedOptions {
  return {
    envSpecFile: o.envSpecFile ?? null,
    cacheDir: o.cacheDir ?? null,
    testTimeoutSeconds: o.testTimeoutSeconds ?? null,
    setupTimeoutSeconds: o.setupTimeoutSeconds ?? null,
    relatedTests: o.relatedTests ?? null,
  };
}

/**
 * A repository-completion task: the skeleton commit checked out on a branch of its own, in a sandbox
 * whose store holds that commit alone (its parents, the reference implementation and everything
 * before it, are not there: history would hold the answer). The tools read and edit files and run the
 * tests in the task's environment; the loop agents also commit each step and roll back to their best
 * commit. The final state is the work tree's diff against the skeleton.
 */
export class Commit0Scenario extends ScenarioBase<Commit0Data> implements Commit0Host {
  declare readonly sample: RepoCompletionSample;
  /**
   * The entries of the index the checkout of base_commit wrote at set-up, kept in this process's memory
   * (no program of the attempt can change them): the final state's patch starts from them instead of a
   * `git read-tree`. Null in a scenario restored by another process.
   */
  private baseEntries: readonly IndexRecord[] | null = null;
  private environment: Promise<Environment> | null = null;
  /** The last test run and compile check of this process (the loop agents read them after their tool calls). */
  lastRun: ScenarioTestRun | null = null;
  lastCompile: CompileCheck | null = null;

  constructor(
    definition: AnyScenarioDefinition,
    sandbox: Sandbox,
    sample: RepoCompletionSample,
    source: string,
    data: Commit0Data,
    private readonly isolated: Commit0Options["isolation"] = undefined,
  ) {
    super(definition, sandbox, sample, source, data);
  }


  static async setup(sample: RepoCompletionSample, source: Repo, opts: ScenarioSetupOptions, definition: AnyScenarioDefinition): Promise<Commit0Scenario> {
    const options = commit0OptionsOf(opts.settings);
    const base = sample.scenario.base_commit;
    await requireCommits(source, [base]);
    const counted = await countedTests(source, sample, options);
    const store = await commitStore(source, base, 1);
    const where = { label: sample.id, branch: COMMIT0_BRANCH, keep: opts.keep, root: opts.root, store, packs: opts.packs, workTree: "full" as const };
    return inNewSandbox(source, where, async (sandbox) => {
      if (options.isolation) sandbox.isolate(options.isolation);
      await checkoutBranch(sandbox.repo, COMMIT0_BRANCH, base);
      const baseEntries = freshIndexEntries(sandbox.ownGitDir);
      const data: Commit0Data = { finished: false, counted, options: savedOptions(options), lastSuite: null, history: [], best: null };
      const scenario = new Commit0Scenario(definition, sandbox, sample, source.dir, data, options.isolation);
      scenario.baseEntries = baseEntries;
      return scenario;
    });
  }

  static restore(sandbox: Sandbox, sample: RepoCompletionSample, source: string, data: Commit0Data, definition: AnyScenarioDefinition): Commit0Scenario {
    return new Commit0Scenario(definition, sandbox, sample, source, data);
  }

  /** The task's settings (the environment's spec file, the cache, the time limits, the isolation). */
  get options(): Commit0Options {
    const o = this.data.options;
    return {
      envSpecFile: o.envSpecFile ?? undefined,
      cacheDir: o.cacheDir ?? undefined,
      testTimeoutSeconds: o.testTimeoutSeconds ?? undefined,
      setupTimeoutSeconds: o.setupTimeoutSeconds ?? undefined,
      relatedTests: o.relatedTests ?? undefined,
      isolation: this.isolated,
    };
  }

  get countedTests(): readonly string[] {
    return this.data.counted;
  }

  /** The last whole-suite run: its commit and the counted tests it passed. */
  get lastSuite(): Commit0Data["lastSuite"] {
    return this.data.lastSuite;
  }

  get history(): readonly AttemptRecord[] {
    return this.data.history;
  }

  /** The task's environment, built (or taken from the cache) on first use. */
  private env(signal?: AbortSignal): Promise<Environment> {
    this.environment ??= completionEnvironment(this.sandbox, this.sample.scenario, this.options, signal).catch((err: unknown) => {
      this.environment = null;
      throw err;
    });
    return this.environment;
  }

  /** A file of the work tree as text, or null when it is not a regular file there. */
  readText(file: string): string | null {
    const root = this.sandbox.workDir;
    try {
      const p = checkRelativePath(root, file);
      return entryKind(root, p) === "file" ? readProjectFile(root, p).toString("utf8") : null;
    } catch {
      return null;
    }
  }

  /** The files under src_dir that still have stubs, dependencies first (commit0's order). */
  async stubbedFiles(): Promise<StubbedFile[]> {
    const files = await listFiles(this.sandbox.repo, "HEAD");
    return stubbedFilesInOrder(files, this.sample.scenario.src_dir, (f) => this.readText(f));
  }

  /** The stubbed functions of one file (dotted names). */
  async stubsOf(file: string): Promise<string[]> {
    const text = this.readText(file);
    return text === null ? [] : stubbedFunctions(text);
  }

  /** The test files of the suite. */
  testFiles(): Promise<string[]> {
    return testFilesAt(this.sandbox.repo, "HEAD", this.sample.scenario.test.test_dir);
  }

  /** A source file's related test files (its stem in their names, or the `--related-tests` pattern). */
  async relatedTests(sourceFile: string): Promise<string[]> {
    return relatedTestFiles(sourceFile, await this.testFiles(), this.options.relatedTests ?? DEFAULT_RELATED_TESTS);
  }

  /** Runs test files (null: the whole suite, which also records how many counted tests pass at HEAD). */
  async runTests(files: readonly string[] | null, signal?: AbortSignal): Promise<ScenarioTestRun> {
    const env = await this.env(signal);
    if (files === null) {
      const run = await runSuite(this.sandbox, env, this.sample.scenario.test.test_dir, this.options, signal);
      const tally = tallyCounted(run, this.data.counted);
      this.data.lastSuite = { commit: await headCommit(this.sandbox.repo), passed: tally.passed, total: tally.total };
      this.lastRun = { run, files: null, counted: { passed: tally.passed, total: tally.total } };
      return this.lastRun;
    }
    const run = await runTests(this.sandbox, env, files, { timeoutSeconds: this.options.testTimeoutSeconds ?? DEFAULT_TEST_TIMEOUT, flags: suiteFlags(env.spec), signal });
    this.lastRun = { run, files: [...files], counted: null };
    return this.lastRun;
  }

  /**
   * Whether a run leaves something to fix: a counted test of the files it ran that does not pass (a
   * test failing at the reference too cannot be fixed), or, when no counted test is named after those
   * files, any failure; a run that ran out of time always does.
   */
  hasFailures(t: ScenarioTestRun): boolean {
    if (t.run.timedOut) return true;
    const files = t.files ?? [];
    const counted = t.files === null ? this.data.counted : this.data.counted.filter((id) => files.some((f) => id.startsWith(`${f}::`)));
    if (counted.length > 0) return tallyCounted(t.run, counted).failed.length > 0;
    return t.run.exitCode !== 0 || [...t.run.outcomes.values()].some((o) => o === "failed" || o === "error");
  }

  /** The Python files changed since the skeleton. */
  async changedPythonFiles(): Promise<string[]> {
    return (await changedFiles(this.sandbox.repo, this.sample.scenario.base_commit)).filter((f) => f.endsWith(".py") && this.readText(f) !== null);
  }

  /** Compiles Python files with the environment's interpreter (default: every Python file changed since the skeleton). */
  async compileCheck(files: readonly string[] | null, signal?: AbortSignal): Promise<CompileCheck> {
    const list = files === null ? await this.changedPythonFiles() : files.map((f) => checkRelativePath(this.sandbox.workDir, f).shown);
    if (list.length === 0) {
      this.lastCompile = { ok: true, files: [], output: "" };
      return this.lastCompile;
    }
    const env = await this.env(signal);
    const r = await execInEnvironment(this.sandbox, env, ["python", "-c", COMPILE_SCRIPT, ...list], { timeoutSeconds: COMPILE_TIMEOUT, signal });
    const output = `${r.stdout.toString("utf8")}${r.stderr.toString("utf8")}`.trim();
    if (r.code !== 0 && r.code !== 1) throw new GitGoodError("EXEC_FAILED", `the compile check could not run: ${output.split("\n").at(-1) ?? `exit ${String(r.code)}`}`);
    this.lastCompile = { ok: r.code === 0, files: list, output };
    return this.lastCompile;
  }

  /** Commits every change of the work tree as one step of a loop (an empty step gets a commit too); returns the commit. */
  async checkpoint(message: string): Promise<string> {
    this.refuseWhenFinished();
    const commit = await commitAll(this.sandbox.repo, message);
    this.save();
    return commit;
  }

  /** Puts the work tree back at an earlier commit of the attempt (`git reset --hard`). */
  async rollback(commit: string): Promise<void> {
    this.refuseWhenFinished();
    await resetHard(this.sandbox.repo, commit);
    this.save();
  }

  /** Adds a step to the best-commit history; a `best` step becomes the best commit. */
  record(entry: AttemptRecord): void {
    this.data.history.push(entry);
    if (entry.outcome === "best" && entry.passed !== null) this.data.best = { commit: entry.commit, passed: entry.passed };
    this.save();
  }

  refuseWhenFinished(): void {
    if (this.data.finished) throw new GitGoodError("NO_SCENARIO", "the task is finished; nothing can be changed any more");
  }

  finish(): void {
    this.data.finished = true;
  }

  async initialContext(): Promise<InitialContext> {
    const sc = this.sample.scenario;
    const files = await this.stubbedFiles();
    const stubs = files.reduce((n, f) => n + f.stubs.length, 0);
    const text = [
      `Repository completion task ${sc.instance_id} for ${sc.repo}, at its skeleton commit ${sc.base_commit}.`,
      `Every function body in ${sc.src_dir === "" ? "the repository's source" : sc.src_dir} was replaced by \`pass\` (signatures and docstrings kept): ${stubs} function(s) in ${files.length} file(s).`,
      `Implement them so that the library's tests (${sc.test.test_dir === "" ? "the whole suite" : sc.test.test_dir}) pass: ${this.data.counted.length} counted test(s) judge your work.`,
      "",
      "Files with stubs, dependencies first:",
      ...files.map((f) => `  ${f.file} (${f.stubs.length}: ${f.stubs.slice(0, 8).join(", ")}${f.stubs.length > 8 ? ", …" : ""})`),
    ];
    return {
      data: {
        scenario: "commit0",
        sample_id: this.sample.id,
        instance_id: sc.instance_id,
        repo: sc.repo,
        base_commit: sc.base_commit,
        src_dir: sc.src_dir,
        test_dir: sc.test.test_dir,
        counted_tests: this.data.counted.length,
        files: files.map((f) => ({ file: f.file, stubs: f.stubs })),
      },
      text: text.join("\n"),
    };
  }

  isDone(): boolean {
    return this.data.finished;
  }

  async finalState(): Promise<Commit0FinalState> {
    const raw = await worktreePatch(this.sandbox.workDir, this.sandbox.repo.objectsDir, this.sample.scenario.base_commit, this.sandbox.privatePath("diff.git"), this.sandbox.ownGitDir, this.baseEntries);
    const bytes = Buffer.from(raw, "latin1");
    const text = bytes.toString("utf8");
    const utf8 = Buffer.from(text, "utf8").equals(bytes);
    const left = (await this.stubbedFiles()).reduce((n, f) => n + f.stubs.length, 0);
    return {
      done: this.isDone(),
      patch: utf8 ? text : bytes.toString("base64"),
      encoding: utf8 ? "utf8" : "base64",
      stubs_left: left,
      history: this.data.history,
      best: this.data.best,
    };
  }
}
