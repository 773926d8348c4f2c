import { z } from "zod";
import type { Tool } from "./tool.js";

/** A tool as OpenAI-compatible chat APIs take it in their `tools` list. */
export interface FunctionTool {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Drops bounds that only restate JavaScript's safe-integer range; they add noise for the model. */
function tidy(node: Json): Json {
  if (Array.isArray(node)) return node.map(tidy);
  if (node === null || typeof node !== "object") return node;
  const out: { [key: string]: Json } = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "$schema") continue;
    if ((key === "maximum" && value === Number.MAX_SAFE_INTEGER) || (key === "minimum" && value === Number.MIN_SAFE_INTEGER)) {
      continue;
    }
    out[key] = tidy(value);
  }
  return out;
}

/** The JSON schema of a tool's parameters, derived from its zod input schema. */
export function parametersSchema(tool: Tool<unknown>): Record<string, unknown> {
  return tidy(z.toJSONSchema(tool.input, { io: "input" }) as Json) as Record<string, unknown>;
}

export function functionTool(tool: Tool<unknown>): FunctionTool {
  return {
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: parametersSchema(tool) },
  };
}
