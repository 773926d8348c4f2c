import { GitGoodError } from "../errors.js";
import { firstSyntaxError, parsePython, type SyntaxNode } from "./parser.js";
import { at } from "../util/at.js";

/** A function whose body a skeleton replaced. */
interface StubbedFunction {
  /** Dotted name inside the module: `helper`, `Cache.get`, `outer` (nested functions go with their outer one). */
  name: string;
  /** 1-based line of its `def`. */
  line: number;
}

interface StubbedSource {
  text: string;
  stubbed: StubbedFunction[];
}

export function isDocstring(node: SyntaxNode | undefined): boolean {
  if (!node || node.type !== "expression_statement") return false;
  const parts = node.namedChildren;
  return parts.length === 1 && (parts[0]?.type === "string" || parts[0]?.type === "concatenated_string");
}

/** The statements of a block, without comments. */
export function statements(block: SyntaxNode): SyntaxNode[] {
  return block.namedChildren.filter((n): n is SyntaxNode => n !== null && n.type !== "comment");
}

/** A body that is already a stub: `pass` or `...`, after an optional docstring. */
export function isStubBody(block: SyntaxNode): boolean {
  const body = statements(block);
  const rest = isDocstring(body[0]) ? body.slice(1) : body;
  if (rest.length === 0) return true;
  if (rest.length !== 1) return false;
  const only = at(rest, 0);
  return only.type === "pass_statement" || (only.type === "expression_statement" && only.namedChildren[0]?.type === "ellipsis");
}

export function qualifiedName(fn: SyntaxNode): string {
  const names: string[] = [];
  for (let node: SyntaxNode | null = fn; node; node = node.parent) {
    if (node.type === "function_definition" || node.type === "class_definition") {
      const name = node.childForFieldName("name");
      if (name) names.unshift(name.text);
    }
  }
  return names.join(".");
}

/** Function definitions not inside another function (methods of classes included), in source order. */
export function outermostFunctions(root: SyntaxNode): SyntaxNode[] {
  const found: SyntaxNode[] = [];
  const visit = (node: SyntaxNode): void => {
    for (const child of node.namedChildren) {
      if (!child) continue;
      if (child.type === "function_definition") found.push(child);
      else visit(child);
    }
  };
  visit(root);
  return found;
}

/** The indentation of the line `index` is on. */
export function indentAt(text: string, index: number): string {
  const lineStart = text.lastIndexOf("\n", index - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))?.[0] ?? "";
}

/**
 * Replaces the body of every function and method with `pass`, as commit0 makes its skeletons: the
 * signature, decorators and docstring stay; nested functions go with the body they are in; module and
 * class level code stays; bodies that are already `pass` or `...` are left alone. Source that does not
 * parse is refused (SYNTAX_ERROR), since its functions cannot be found reliably.
 */
export async function stubPythonSource(text: string): Promise<StubbedSource> {
  const tree = await parsePython(text);
  try {
    const error = firstSyntaxError(tree);
    if (error) throw new GitGoodError("SYNTAX_ERROR", `Python syntax error at line ${error.line}, column ${error.column}`, error);
    const edits: { from: number; to: number; text: string }[] = [];
    const stubbed: StubbedFunction[] = [];
    for (const fn of outermostFunctions(tree.rootNode)) {
      const block = fn.childForFieldName("body");
      if (!block || isStubBody(block)) continue;
      const body = statements(block);
      const first = at(body, 0);
      if (isDocstring(first)) {
        edits.push({ from: first.endIndex, to: block.endIndex, text: `\n${indentAt(text, first.startIndex)}pass` });
      } else {
        edits.push({ from: block.startIndex, to: block.endIndex, text: "pass" });
      }
      stubbed.push({ name: qualifiedName(fn), line: fn.startPosition.row + 1 });
    }
    let out = text;
    for (const edit of edits.reverse()) out = out.slice(0, edit.from) + edit.text + out.slice(edit.to);
    return { text: out, stubbed };
  } finally {
    tree.delete();
  }
}

/** Functions of a module whose body is a stub (`pass` or `...` after an optional docstring), by dotted name. */
export async function stubbedFunctions(text: string): Promise<string[]> {
  const tree = await parsePython(text);
  try {
    return outermostFunctions(tree.rootNode)
      .filter((fn) => {
        const block = fn.childForFieldName("body");
        return block !== null && isStubBody(block);
      })
      .map(qualifiedName);
  } finally {
    tree.delete();
  }
}
