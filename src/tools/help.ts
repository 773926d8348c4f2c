import { parametersSchema } from "./schema.js";
import type { Tool } from "./tool.js";

interface Prop {
  type?: string;
  enum?: unknown[];
  items?: Prop;
  anyOf?: Prop[];
  properties?: Record<string, Prop>;
  required?: string[];
  description?: string;
  minimum?: number;
  minItems?: number;
  pattern?: string;
}

/** A short type name for a JSON schema node, e.g. `integer ≥ 0`, `array of {commit_index, command}`. */
function typeName(p: Prop): string {
  if (p.enum) return `one of ${p.enum.map((v) => JSON.stringify(v)).join(", ")}`;
  if (p.anyOf) return p.anyOf.map(typeName).join(" or ");
  if (p.type === "array") return `array of ${p.items ? typeName(p.items) : "values"}`;
  if (p.type === "object" && p.properties) {
    const req = new Set(p.required ?? []);
    return `{${Object.keys(p.properties).map((k) => (req.has(k) ? k : `${k}?`)).join(", ")}}`;
  }
  if (p.type === "integer" && p.minimum !== undefined) return `integer >= ${p.minimum}`;
  if (p.type === "string" && p.pattern) return `string matching ${p.pattern}`;
  return p.type ?? "value";
}

function paramLines(schema: Prop, indent: string): string[] {
  const lines: string[] = [];
  const req = new Set(schema.required ?? []);
  for (const [name, p] of Object.entries(schema.properties ?? {})) {
    const flag = req.has(name) ? "required" : "optional";
    lines.push(`${indent}${name} (${typeName(p)}, ${flag})${p.description ? `: ${p.description}` : ""}`);
    const inner = p.type === "array" ? p.items : p;
    if (inner?.type === "object" && inner.properties) lines.push(...paramLines(inner, `${indent}    `));
  }
  return lines;
}

/** The help page of one tool, derived from the same schema the function-calling adapter sends. */
export function toolHelp(tool: Tool<unknown>): string {
  const schema = parametersSchema(tool) as Prop;
  const names = Object.keys(schema.properties ?? {}).filter((n) => n !== "reason" && n !== "output_offset");
  return [
    `${tool.name}(${names.join(", ")})${tool.readOnly ? "  [read-only]" : ""}`,
    ...tool.description.split("\n").map((l) => `    ${l}`),
    "  parameters:",
    ...paramLines(schema, "    "),
  ].join("\n");
}

/** The help page of a whole tool list. */
export function toolsHelp(tools: readonly Tool<unknown>[]): string {
  return tools.map(toolHelp).join("\n\n");
}
