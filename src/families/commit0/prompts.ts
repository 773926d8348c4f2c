import type { StubbedFile } from "../../commit0/order.js";
import { MEMORY_NOTE } from "../../agents/prompts.js";

const SYSTEM = `You are rebuilding a Python library whose function bodies were removed: every function and method
has its signature and docstring but only \`pass\` as its body. You work on one file at a time, through the
tools you are given. Read what you need (the file, the modules it imports, its tests) with view_file, then
implement each stub with replace_function_body: give only the statements of the body. Never rename a
function and never change a signature, a decorator or a docstring: other modules and the tests call them as
they are. Write complete, working code; no placeholders. Each tool takes a "reason" argument: say briefly
why you call it. When the file's stubs are implemented, stop calling tools and reply with a one-line summary.`;

/** The loop agents' system prompt (with the memory note when the memory tools are offered). */
export function loopSystemPrompt(memory: boolean): string {
  return memory ? `${SYSTEM}\n\n${MEMORY_NOTE}` : SYSTEM;
}

interface ImplementContext {
  attempt: number;
  attempts: number;
  /** Files implemented before this one (its dependencies come first). */
  before: readonly string[];
  /** Whether tests will check the attempt. */
  tests: boolean;
  /** The previous attempt's count of passing tests and the best so far, when it was rolled back. */
  previous: { passed: number; best: number } | null;
}

/** The first message of a file's attempt: which file, which stubs, what came before. */
export function implementPrompt(file: StubbedFile, ctx: ImplementContext): string {
  const lines = [
    `Implement the stubbed functions of ${file.file} (attempt ${ctx.attempt} of ${ctx.attempts}).`,
    `Stubs: ${file.stubs.join(", ")}`,
  ];
  if (ctx.before.length > 0) lines.push(`Files implemented before it, dependencies first: ${ctx.before.join(", ")}.`);
  if (ctx.previous) {
    lines.push(
      `Your previous attempt at this file passed ${ctx.previous.passed} counted test(s), fewer than the best so far (${ctx.previous.best}), and was rolled back: implement it differently.`,
    );
  }
  if (ctx.tests) lines.push("After you finish, the file is compiled and its tests run; you will see their failures once to fix them.");
  lines.push(`Start with view_file on ${file.file}.`);
  return lines.join("\n");
}

/** What the model is told when the compile check of its file fails. */
export function compileFailedPrompt(file: string, output: string): string {
  return `The compile check of ${file} (python -m py_compile) failed:\n${output}\nFix the syntax errors with replace_function_body, then reply with a one-line summary.`;
}

/** The debugging round: the related tests' trimmed output, the first failure first. */
export function debugPrompt(file: string, testOutput: string): string {
  return `The tests related to ${file} fail:\n${testOutput}\n\nFix the implementation (in ${file}, or in a module it uses) with replace_function_body, then reply with a one-line summary.`;
}
