import { z } from "zod";
import { trimTestOutput } from "../../commit0/tests.js";
import { TEST_OUTCOMES } from "../../testenv/index.js";
import { GitGoodError } from "../../errors.js";
import { pythonFunctions, replaceFunctionBody } from "../../python/edit.js";
import { checkRelativePath, entryKind, readProjectFile, writeProjectFile } from "../../sandbox/paths.js";
import { ToolRegistry } from "../../tools/registry.js";
import { defineTool } from "../../tools/tool.js";
import { listFilesTool, viewFileTool } from "../shared/project-tools.js";
import type { Commit0Host, ScenarioTestRun } from "./types.js";

/** Characters of a test run's output a tool result shows (the first failure's traceback first). */
const TEST_OUTPUT_BUDGET = 6000;

const pathParam = z.string().min(1).describe("A file path relative to the project root, e.g. pkg/module.py.");

/** A test run in a few lines for an agent: the counts, the counted tests for the suite, then the trimmed output. */
export function describeTestRun(t: ScenarioTestRun, budget = TEST_OUTPUT_BUDGET): string {
  const { run } = t;
  const counts = new Map<string, number>();
  for (const o of run.outcomes.values()) counts.set(o, (counts.get(o) ?? 0) + 1);
  const what = t.files === null ? "the whole suite" : t.files.join(", ");
  const tally = TEST_OUTCOMES.filter((o) => counts.has(o)).map((o) => `${counts.get(o)} ${o}`).join(", ") || "no test reported";
  const head = [
    run.timedOut ? `Ran ${what}: it ran out of time and was killed; no outcome is kept.` : `Ran ${what}: ${tally} (exit code ${String(run.exitCode)}).`,
  ];
  if (t.counted) head.push(`Counted tests passing: ${t.counted.passed} of ${t.counted.total}.`);
  return `${head.join("\n")}\n${trimTestOutput(run.log, budget)}`;
}

export const COMMIT0_TOOLS = new ToolRegistry<Commit0Host>([
  listFilesTool<Commit0Host>((s) => s.sandbox.workDir),
  viewFileTool<Commit0Host>((s) => s.sandbox.workDir),
  defineTool<Commit0Host, { path: z.ZodOptional<z.ZodString> }>({
    name: "list_stubs",
    description:
      "Without path: the source files that still have stubbed functions, dependencies first (implement them in this " +
      "order). With path: that file's functions whose body is still a stub, each with its line and signature.",
    params: { path: z.string().optional().describe("A Python file relative to the project root (default: every file with stubs).") },
    readOnly: true,
    async run(s, args) {
      if (args.path === undefined) {
        const files = await s.stubbedFiles();
        if (files.length === 0) return "No stub is left.";
        return files.map((f) => `${f.file}: ${f.stubs.length} stub(s): ${f.stubs.join(", ")}`).join("\n");
      }
      const p = checkRelativePath(s.sandbox.workDir, args.path);
      const text = s.readText(p.shown);
      if (text === null) throw new GitGoodError("NOT_FOUND", `there is no file ${p.shown} in the project`, { path: p.shown });
      const stubs = (await pythonFunctions(text)).filter((f) => f.stub);
      if (stubs.length === 0) return `${p.shown} has no stubbed function.`;
      return [`${p.shown}: ${stubs.length} stubbed function(s)`, ...stubs.map((f) => `line ${f.line}: ${f.name}: ${f.signature.replace(/\s*\n\s*/g, " ")}`)].join("\n");
    },
  }),
  defineTool<Commit0Host, { path: typeof pathParam; function: z.ZodString; body: z.ZodString; line: z.ZodOptional<z.ZodNumber> }>({
    name: "replace_function_body",
    description:
      "Replaces the body of one function or method (by its dotted name, e.g. helper or Cache.get) with the code you " +
      "give: only the statements of the body, without the def line; its decorators, signature and docstring stay. " +
      "Do not rename functions or change their signatures. The body is indented under the function for you. The edit " +
      "is refused, and the file left unchanged, when the file would no longer parse.",
    params: {
      path: pathParam,
      function: z.string().min(1).describe("The function's dotted name inside the module, as list_stubs shows it."),
      body: z.string().describe("The new statements of the body."),
      line: z.number().int().min(1).optional().describe("The function's line, only when several functions share the name."),
    },
    readOnly: false,
    async run(s, args) {
      s.refuseWhenFinished();
      const root = s.sandbox.workDir;
      const p = checkRelativePath(root, args.path);
      const kind = entryKind(root, p);
      if (kind === "link") throw new GitGoodError("SYMLINK_REFUSED", `${p.shown} is a symbolic link; the tools never write through links`, { path: p.shown });
      if (kind !== "file") throw new GitGoodError("NOT_FOUND", `there is no file ${p.shown} in the project`, { path: p.shown });
      const text = readProjectFile(root, p).toString("utf8");
      const r = await replaceFunctionBody(text, args.function, args.body, { line: args.line, file: p.shown });
      writeProjectFile(root, p, Buffer.from(r.text, "utf8"));
      const left = (await pythonFunctions(r.text)).filter((f) => f.stub).length;
      return `Replaced the body of ${r.function.name} (line ${r.function.line}) in ${p.shown}; ${left} stub(s) left in the file.`;
    },
  }),
  defineTool<Commit0Host, { source_file: z.ZodOptional<z.ZodString>; test_files: z.ZodOptional<z.ZodArray<z.ZodString>> }>({
    name: "run_tests",
    description:
      "Runs tests in the project's environment and shows the counts and the output, the first failure's traceback " +
      "first. With source_file: that file's related tests (test files whose name holds its stem). With test_files: " +
      "those files. With neither: the whole suite, and how many of the counted tests pass.",
    params: {
      source_file: z.string().optional().describe("A source file whose related tests to run."),
      test_files: z.array(z.string().min(1)).optional().describe("Test files to run, relative to the project root."),
    },
    readOnly: false,
    async run(s, args) {
      s.refuseWhenFinished();
      if (args.source_file !== undefined && args.test_files !== undefined) {
        throw new GitGoodError("BAD_ARGUMENTS", "give source_file or test_files, not both");
      }
      let files: string[] | null = null;
      if (args.source_file !== undefined) {
        const source = checkRelativePath(s.sandbox.workDir, args.source_file).shown;
        files = await s.relatedTests(source);
        if (files.length === 0) return `No test file is related to ${source}; run the whole suite (no arguments) or name test_files.`;
      } else if (args.test_files !== undefined) {
        files = args.test_files.map((f) => checkRelativePath(s.sandbox.workDir, f).shown);
      }
      return describeTestRun(await s.runTests(files));
    },
  }),
  defineTool<Commit0Host, { paths: z.ZodOptional<z.ZodArray<z.ZodString>> }>({
    name: "compile_check",
    description:
      "Compiles Python files with the project's interpreter (as python -m py_compile does) and shows every syntax " +
      "error. Default: every Python file you changed.",
    params: { paths: z.array(z.string().min(1)).optional().describe("Python files to check (default: every changed one).") },
    readOnly: true,
    async run(s, args) {
      const c = await s.compileCheck(args.paths ?? null);
      if (c.files.length === 0) return "No changed Python file to check.";
      return c.ok ? `All ${c.files.length} file(s) compile: ${c.files.join(", ")}.` : `Syntax errors:\n${c.output}`;
    },
  }),
  defineTool<Commit0Host, Record<string, never>>({
    name: "finish",
    description: "Ends the task. Your answer is the code in the work tree; the library's tests will judge it.",
    params: {},
    readOnly: false,
    async run(s) {
      s.refuseWhenFinished();
      s.finish();
      return "The task is finished; your implementation will be evaluated.";
    },
  }),
]);
