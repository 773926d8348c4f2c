import { z } from "zod";
import { GitGoodError, isGitGoodError } from "../errors.js";
import { escapeControls } from "../util/escape.js";
import { toolsHelp } from "./help.js";
import { functionTool, type FunctionTool } from "./schema.js";
import type { Tool, ToolResult } from "./tool.js";
import { OUTPUT_LIMIT, page, renderPage } from "./truncate.js";

function errorResult(tool: string, err: GitGoodError): ToolResult {
  const message = escapeControls(err.message);
  return { tool, ok: false, output: `error: ${message}`, error: { code: err.code, message } };
}

/** Explains zod's complaints about arguments in a few plain lines. */
function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const where = issue.path.length > 0 ? issue.path.join(".") : "arguments";
      if (issue.code === "unrecognized_keys") return `${where}: unknown parameter(s) ${issue.keys.join(", ")}`;
      if (issue.code === "invalid_type" && /received undefined$/.test(issue.message)) return `${where}: required parameter is missing`;
      return `${where}: ${issue.message}`;
    })
    .join("; ");
}

/**
 * The tools of one scenario. Calls are checked against each tool's schema before its handler runs, so
 * an unknown tool or bad arguments change nothing; handler errors with a gitgood code come back as
 * error results the agent can read. Control characters from the repository (NUL, terminal escape
 * sequences) reach the agent only escaped, as `\x1b`; long answers are paged after escaping.
 */
export class ToolRegistry<S> {
  private readonly byName = new Map<string, Tool<S>>();

  constructor(
    readonly tools: readonly Tool<S>[],
    private readonly limit = OUTPUT_LIMIT,
  ) {
    for (const t of tools) {
      if (this.byName.has(t.name)) throw new GitGoodError("INTERNAL", `tool ${t.name} is defined twice`);
      this.byName.set(t.name, t);
    }
  }

  /** The tools' names, in the order they were given. */
  names(): string[] {
    return this.tools.map((t) => t.name);
  }

  /** The tool called `name`, or undefined when there is none. */
  get(name: string): Tool<S> | undefined {
    return this.byName.get(name);
  }

  /** Each tool as a function-calling declaration (name, description, JSON Schema of its arguments). */
  functionTools(): FunctionTool[] {
    return this.tools.map((t) => functionTool(t as Tool<unknown>));
  }

  /** Every tool described in text, for a prompt or `gitgood tool --help`. */
  help(): string {
    return toolsHelp(this.tools);
  }

  /** Validates and runs one call. Only errors that are not GitGoodErrors (bugs, a dead disk) are thrown. */
  async call(scenario: S, name: string, args: unknown): Promise<ToolResult> {
    const tool = this.byName.get(name);
    if (!tool) {
      return errorResult(
        name,
        new GitGoodError("UNKNOWN_TOOL", `there is no tool '${name}'; the tools are: ${this.names().join(", ")}`),
      );
    }
    if (args === null || typeof args !== "object" || Array.isArray(args)) {
      return errorResult(name, new GitGoodError("BAD_ARGUMENTS", `${name} takes a JSON object of named arguments`));
    }
    const parsed = tool.input.safeParse(args);
    if (!parsed.success) {
      return errorResult(name, new GitGoodError("BAD_ARGUMENTS", `bad arguments for ${name}: ${describeIssues(parsed.error)}`));
    }
    const values = parsed.data as Record<string, unknown>;
    let text: string;
    try {
      text = escapeControls(await tool.run(scenario, values));
    } catch (err) {
      if (isGitGoodError(err)) return errorResult(name, err);
      throw err;
    }
    const offset = tool.readOnly && typeof values.output_offset === "number" ? values.output_offset : 0;
    const p = page(text, offset, this.limit);
    const more = tool.readOnly
      ? { tool: tool.name, pageable: true }
      : tool.moreWith
        ? { tool: tool.moreWith, pageable: false }
        : null;
    const result: ToolResult = { tool: name, ok: true, output: renderPage(p, more) };
    if (p.from > 0 || p.to < p.total) result.truncated = { from: p.from, to: p.to, total: p.total };
    return result;
  }
}
