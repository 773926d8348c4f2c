import type { StubbedFile } from "../../commit0/order.js";
import type { RepoCompletionSample } from "../../dataset/sample.js";
import type { Repo } from "../../git/repo.js";
import type { TestRun } from "../../testenv/types.js";
import type { LiveScenario } from "../types.js";

/** What a test run of the scenario gave: the run, the files it ran (none: the whole suite) and, for the suite, the counted tests passing. */
export interface ScenarioTestRun {
  run: TestRun;
  files: string[] | null;
  counted: { passed: number; total: number } | null;
}

/** What the compile check found: whether every file compiles, and the compiler's messages. */
export interface CompileCheck {
  ok: boolean;
  files: string[];
  output: string;
}

/**
 * What COMMIT0's tools and strategies read of a live repository-completion scenario (`Commit0Scenario` is
 * one): a leaf, so that they need not import the class that imports them.
 */
export interface Commit0Host extends LiveScenario {
  readonly sample: RepoCompletionSample;
  /** A file of the work tree as text, or null when it is not a regular file there. */
  readText(file: string): string | null;
  /** The files under src_dir that still have stubs, dependencies first (commit0's order). */
  stubbedFiles(): Promise<StubbedFile[]>;
  /** A source file's related test files. */
  relatedTests(sourceFile: string): Promise<string[]>;
  /** Runs test files (null: the whole suite). */
  runTests(files: readonly string[] | null, signal?: AbortSignal): Promise<ScenarioTestRun>;
  /** Compiles Python files with the environment's interpreter (null: every Python file changed since the skeleton). */
  compileCheck(files: readonly string[] | null, signal?: AbortSignal): Promise<CompileCheck>;
  /** Throws when the task is finished: nothing can be changed any more. */
  refuseWhenFinished(): void;
  /** Ends the task. */
  finish(): void;
  /** The source repository. */
  openSource(): Promise<Repo>;
}
