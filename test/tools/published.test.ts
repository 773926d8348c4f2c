import { describe, expect, it } from "vitest";
import { ICC_TOOLS } from "../../src/scenarios/icc/tools.js";
import { IR_TOOLS } from "../../src/scenarios/ir/tools.js";
import { MCR_TOOLS } from "../../src/scenarios/mcr/tools.js";
import type { ToolRegistry } from "../../src/tools/registry.js";

type Params = { type: string; properties: Record<string, Record<string, unknown>>; required: string[]; additionalProperties: boolean };

function params(reg: ToolRegistry<never>): Record<string, Params> {
  return Object.fromEntries(reg.functionTools().map((t) => [t.function.name, t.function.parameters as Params]));
}

// Names and parameters as GitGoodBench published them (every tool also takes a required reason).
const PUBLISHED: Record<string, Record<string, string[]>> = {
  mcr: {
    view_current_merge_conflict_with: ["context_window_size"],
    view_merge_conflict_at: ["conflict_index", "context_window_size"],
    resolve_current_merge_conflict_with: ["content"],
    view_diff_for: ["relative_path_from_project_root"],
    view_file_at: ["relative_path_from_project_root"],
  },
  ir: {
    view_rebase_todo: [],
    show_changes_in: ["commit_index"],
    update_rebase_todo_list: ["rebase_todo_list_items"],
    execute_rebase: [],
  },
  icc: {
    commit_changes_in: ["selected_hunks", "commit_message"],
    commit_remaining_changes: ["commit_message"],
  },
};

const REGISTRIES = { mcr: MCR_TOOLS, ir: IR_TOOLS, icc: ICC_TOOLS } as unknown as Record<string, ToolRegistry<never>>;

describe("published tools", () => {
  for (const [kind, tools] of Object.entries(PUBLISHED)) {
    it(`${kind}: every published tool exists with its parameters, all required, plus a required reason`, () => {
      const schemas = params(REGISTRIES[kind] as ToolRegistry<never>);
      for (const [name, names] of Object.entries(tools)) {
        const p = schemas[name];
        expect(p, name).toBeDefined();
        expect(p?.type).toBe("object");
        expect(p?.additionalProperties).toBe(false);
        expect(p?.required.sort()).toEqual([...names, "reason"].sort());
        expect(p?.properties.reason).toMatchObject({ type: "string", minLength: 1 });
      }
    });
  }

  it("the function-calling schema is plain JSON schema the chat APIs accept", () => {
    for (const reg of Object.values(REGISTRIES)) {
      for (const t of reg.functionTools()) {
        expect(t.type).toBe("function");
        expect(t.function.description.length).toBeGreaterThan(20);
        const text = JSON.stringify(t.function.parameters);
        expect(text).not.toContain("$schema");
        expect(text).not.toContain(String(Number.MAX_SAFE_INTEGER));
      }
    }
  });

  it("the todo item schema lists the six commands, fixup -C spelled once", () => {
    const p = params(REGISTRIES.ir as ToolRegistry<never>).update_rebase_todo_list;
    const item = (p?.properties.rebase_todo_list_items as { items: Params }).items;
    expect(item.required.sort()).toEqual(["command", "commit_index"]);
    expect(item.properties.command?.enum).toEqual(["pick", "drop", "fixup", "fixup -C", "squash", "reword"]);
  });

  it("read-only tools take output_offset for paging; tools that change state do not", () => {
    const mcr = params(REGISTRIES.mcr as ToolRegistry<never>);
    expect(mcr.view_file_at?.properties.output_offset).toMatchObject({ type: "integer", minimum: 0 });
    expect(mcr.resolve_current_merge_conflict_with?.properties.output_offset).toBeUndefined();
  });

  it("the help page is derived from the same schemas", () => {
    const help = (REGISTRIES.ir as ToolRegistry<never>).help();
    expect(help).toContain("update_rebase_todo_list(rebase_todo_list_items)");
    expect(help).toContain("rebase_todo_list_items (array of {commit_index, command, commit_msg?}, required)");
    expect(help).toContain('command (one of "pick", "drop", "fixup", "fixup -C", "squash", "reword", required)');
    expect(help).toContain("reason (string, required)");
    expect(help).toContain("view_rebase_todo()  [read-only]");
    const icc = (REGISTRIES.icc as ToolRegistry<never>).help();
    expect(icc).toContain("selected_hunks (array of integer >= 0 or string matching ^HUNK-\\d+$, required)");
  });
});
