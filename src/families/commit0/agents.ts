import { GitGoodError, isErrorCode } from "../../errors.js";
import type { ChatMessage, ModelClient } from "../../model/types.js";
import type { AnyScenarioDefinition } from "../../scenarios/definition.js";
import { COMMIT0 } from "../../scenarios/commit0/index.js";
import type { Commit0Scenario } from "../../scenarios/commit0/scenario.js";
import type { AttemptRecord } from "../../scenarios/commit0/state.js";
import { describeTestRun } from "../../scenarios/commit0/tools.js";
import type { Agent, Session } from "../../agents/agent.js";
import { compileFailedPrompt, debugPrompt, implementPrompt, loopSystemPrompt } from "./prompts.js";
import { conversationStep } from "../../agents/conversation.js";
import { modelClientFor, type AgentKind, type AgentOptions } from "../../agents/index.js";

/** Attempts per file of the debug loop (`--attempts`), as the seed's Debug Agent makes them. */
export const DEFAULT_ATTEMPTS = 3;
/** Characters of test output a debugging round shows the model. */
const DEBUG_OUTPUT_BUDGET = 8000;
/** Model calls one step (implementing a file, one fix) may make. */
const STEP_TURNS = 12;
/** The tools the model gets inside the loop (tests and finishing are the loop's). */
const LOOP_TOOLS = new Set(["list_files", "view_file", "list_stubs", "replace_function_body", "compile_check"]);

/** How a `Commit0Agent` works: attempts per file in its debug loop, and its sampling temperature. */
export interface Commit0AgentOptions {
  /** Debug loop: attempts per file (default 3). */
  attempts?: number;
  temperature?: number;
}

/** Calls a tool for the loop itself; a failure (the environment cannot be built, say) ends the attempt with its code. */
async function loopCall(session: Session, tool: string, args: Record<string, unknown>): Promise<string> {
  const r = await session.call(tool, { ...args, reason: `commit0 loop: ${tool}` });
  if (!r.ok) {
    const code = r.error?.code;
    throw new GitGoodError(code !== undefined && isErrorCode(code) ? code : "INTERNAL", r.output);
  }
  return r.output;
}

/** A file name as a memory branch name can hold it. */
function branchSafe(file: string): string {
  return file.replace(/\.py$/, "").replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^[-.]+|[-.]+$/g, "") || "file";
}

/**
 * The loop agents of commit0 over any model: the files with stubs in commit0's order (dependencies
 * first, a cycle broken by moving its first file to the end), each implemented by the model through the
 * scenario's edit tools. `commit0-oneshot` (commit0's baseline) implements each file once and commits
 * it, with no test run and no rollback. `commit0-debug` (the seed's Debug Agent) checks each attempt:
 * a compile check of the file fed back before any test runs, the file's related tests with one
 * debugging round on their trimmed output (the first failure's traceback first), a commit per step,
 * then the whole suite; an attempt that passes at least as many counted tests as the best so far
 * becomes the best commit, else the work tree goes back to the best (`git reset --hard`) and the file
 * is tried again, up to `attempts` times; the last attempt is kept when none was good enough, so that
 * no file stays a skeleton (and it becomes what later files are compared with). With the memory tools
 * (`--memory`) the model has them in every step, each attempt opens a memory branch and each file ends
 * with a memory commit.
 */
export class Commit0Agent implements Agent {
  readonly name: string;
  readonly workTree = "full";

  constructor(
    readonly mode: "debug" | "oneshot",
    private readonly model: ModelClient,
    private readonly opts: Commit0AgentOptions = {},
  ) {
    this.name = `commit0-${mode}:${model.model}`;
  }

  supports(scenario: AnyScenarioDefinition): boolean {
    return scenario === COMMIT0;
  }

  async run(session: Session): Promise<void> {
    const s = session.scenario as Commit0Scenario;
    const order = await s.stubbedFiles();
    session.note("note", `commit0-${this.mode}: files in dependency order: ${order.map((f) => f.file).join(", ") || "(none)"}`);
    const tools = session.tools.filter((t) => LOOP_TOOLS.has(t.function.name) || (session.hasExtraTools && t.function.name.startsWith("memory_")));
    const system = loopSystemPrompt(session.hasExtraTools);
    const step = (messages: ChatMessage[]) => conversationStep(session, this.model, messages, { tools, maxTurns: STEP_TURNS, temperature: this.opts.temperature });
    let best: { commit: string; passed: number } | null = null;
    if (this.mode === "debug") {
      await loopCall(session, "run_tests", {});
      best = { commit: s.lastSuite?.commit ?? "", passed: s.lastSuite?.passed ?? 0 };
      session.note("note", `commit0-debug: the skeleton passes ${best.passed} counted test(s)`);
    }
    for (const [index, entry] of order.entries()) {
      if (!session.canContinue) break;
      const done = order.slice(0, index).map((f) => f.file);
      if (this.mode === "oneshot") {
        await step([
          { role: "system", content: system },
          { role: "user", content: implementPrompt(entry, { attempt: 1, attempts: 1, before: done, tests: false, previous: null }) },
        ]);
        const commit = await s.checkpoint(`Implement ${entry.file}`);
        s.record({ file: entry.file, attempt: 1, commit, passed: null, outcome: "kept" });
      } else {
        best = await this.debugFile(session, s, entry, done, best as { commit: string; passed: number }, step);
      }
      if (session.hasExtraTools) {
        const last = s.history.at(-1);
        await loopCall(session, "memory_commit", {
          contribution: `${entry.file}: ${last ? `attempt ${last.attempt} ${last.outcome}${last.passed === null ? "" : `, ${last.passed} counted test(s) passing`}` : "not worked"}.`,
        });
      }
    }
    if (!s.isDone()) await loopCall(session, "finish", {});
  }

  /** The Debug Agent's attempts at one file; returns the commit later files are compared with. */
  private async debugFile(
    session: Session,
    s: Commit0Scenario,
    entry: { file: string; stubs: string[] },
    done: readonly string[],
    best: { commit: string; passed: number },
    step: (messages: ChatMessage[]) => Promise<void>,
  ): Promise<{ commit: string; passed: number }> {
    const attempts = Math.max(1, this.opts.attempts ?? DEFAULT_ATTEMPTS);
    let previous: number | null = null;
    for (let attempt = 1; attempt <= attempts && session.canContinue; attempt++) {
      if (session.hasExtraTools) {
        await loopCall(session, "memory_branch", { name: `attempt-${attempt}-${branchSafe(entry.file)}`, purpose: `Attempt ${attempt} at implementing ${entry.file}.` });
      }
      const messages: ChatMessage[] = [
        { role: "system", content: loopSystemPrompt(session.hasExtraTools) },
        { role: "user", content: implementPrompt(entry, { attempt, attempts, before: done, tests: true, previous: previous === null ? null : { passed: previous, best: best.passed } }) },
      ];
      await step(messages);
      await this.compileRound(session, s, entry.file, messages, step);
      await s.checkpoint(`Implement ${entry.file} (attempt ${attempt})`);
      const related = await s.relatedTests(entry.file);
      if (related.length > 0 && session.canContinue) {
        await loopCall(session, "run_tests", { source_file: entry.file });
        const run = s.lastRun;
        if (run && s.hasFailures(run)) {
          messages.push({ role: "user", content: debugPrompt(entry.file, describeTestRun(run, DEBUG_OUTPUT_BUDGET)) });
          await step(messages);
          await this.compileRound(session, s, entry.file, messages, step);
          await s.checkpoint(`Debug ${entry.file} (attempt ${attempt})`);
        }
      }
      await loopCall(session, "run_tests", {});
      const suite = s.lastSuite;
      const passed = suite?.passed ?? 0;
      const commit = suite?.commit ?? "";
      const last = attempt === attempts || !session.canContinue;
      let outcome: AttemptRecord["outcome"];
      if (passed >= best.passed) outcome = "best";
      else if (last) outcome = "kept_last";
      else outcome = "rolled_back";
      s.record({ file: entry.file, attempt, commit, passed, outcome });
      session.note("note", `commit0-debug: ${entry.file} attempt ${attempt}: ${passed} counted test(s) passing (best so far ${best.passed}): ${outcome}`);
      if (outcome !== "rolled_back") return { commit, passed };
      await s.rollback(best.commit);
      previous = passed;
    }
    return best;
  }

  /** The compile check of a file, fed back to the model once when it fails (before any test runs). */
  private async compileRound(
    session: Session,
    s: Commit0Scenario,
    file: string,
    messages: ChatMessage[],
    step: (messages: ChatMessage[]) => Promise<void>,
  ): Promise<void> {
    if (!session.canContinue) return;
    await loopCall(session, "compile_check", { paths: [file] });
    const check = s.lastCompile;
    if (!check || check.ok) return;
    messages.push({ role: "user", content: compileFailedPrompt(file, check.output) });
    await step(messages);
    await loopCall(session, "compile_check", { paths: [file] });
  }
}

/** The commit0 loop agents by name (`--agent commit0-debug`, `--agent commit0-oneshot`; `--attempts`). */
export const COMMIT0_AGENT_KINDS: readonly AgentKind[] = (["debug", "oneshot"] as const).map((mode) => ({
  name: `commit0-${mode}`,
  usesModel: true,
  settings: [],
  create: (opts: AgentOptions) =>
    new Commit0Agent(mode, modelClientFor(`commit0-${mode}`, opts), {
      attempts: typeof opts.attempts === "number" ? opts.attempts : undefined,
      temperature: opts.temperature,
    }),
}));
