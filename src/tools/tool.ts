import { z } from "zod";

/** What an agent gets back from one tool call. Errors are results too: the agent reads them and tries again. */
export interface ToolResult {
  tool: string;
  ok: boolean;
  /** The text to show the agent (for an error, the error message). */
  output: string;
  error?: { code: string; message: string };
  /** Present when `output` is only part of the answer. */
  truncated?: { from: number; to: number; total: number };
}

/** One tool: defined once, from which the function-calling schema and the help text are derived. */
export interface Tool<S> {
  readonly name: string;
  readonly description: string;
  /** The whole input schema, `reason` (and `output_offset` for read-only tools) included. */
  readonly input: z.ZodType;
  /** A read-only tool changes nothing, so it may be called again to page through a long answer. */
  readonly readOnly: boolean;
  /** For a tool that changes state: the read-only tool that shows the rest of a long answer. */
  readonly moreWith?: string;
  /**
   * Does the work with arguments `input` has checked; resolves with the text the agent reads. A refusal the agent
   * can act on is a thrown GitGoodError (the registry turns it into an error result); anything else is a fault.
   */
  run(scenario: S, args: Record<string, unknown>): Promise<string>;
}

export const REASON_DESCRIPTION =
  "Why you are making this call, in one or two sentences (kept in the trajectory; it does not change what the tool does).";
export const OUTPUT_OFFSET_DESCRIPTION =
  "Character offset to start the answer at, to read the rest of an answer that was cut off.";

/** A tool as its author writes it: name, description and zod parameters, whether it only reads, and what it does on a live scenario. */
export interface ToolDefinition<S, Shape extends z.ZodRawShape> {
  name: string;
  description: string;
  params: Shape;
  readOnly: boolean;
  moreWith?: string;
  /** Carries the call out on the live scenario; the text the agent gets. */
  run(scenario: S, args: z.infer<z.ZodObject<Shape>>): Promise<string>;
}

/**
 * Builds a tool from its definition: adds the required `reason` parameter (and, for read-only tools,
 * the optional `output_offset`), and rejects unknown arguments.
 */
export function defineTool<S, Shape extends z.ZodRawShape>(def: ToolDefinition<S, Shape>): Tool<S> {
  const extra = def.readOnly
    ? { output_offset: z.number().int().min(0).optional().describe(OUTPUT_OFFSET_DESCRIPTION) }
    : {};
  const input = z.object({ ...def.params, ...extra, reason: z.string().min(1).describe(REASON_DESCRIPTION) }).strict();
  return {
    name: def.name,
    description: def.description,
    input,
    readOnly: def.readOnly,
    moreWith: def.moreWith,
    run: (scenario, args) => def.run(scenario, args as z.infer<z.ZodObject<Shape>>),
  };
}
