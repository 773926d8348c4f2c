import { createRequire } from "node:module";
import type { Node, Parser, Tree } from "web-tree-sitter";
import { GitGoodError } from "../errors.js";

export type { Node as SyntaxNode, Tree as SyntaxTree } from "web-tree-sitter";

let loading: Promise<Parser> | null = null;

/** Loads tree-sitter's WASM runtime and its Python grammar once per process (both ship in npm packages). */
async function load(): Promise<Parser> {
  const require = createRequire(import.meta.url);
  const ts = await import("web-tree-sitter");
  await ts.Parser.init();
  let grammar: string;
  try {
    grammar = require.resolve("tree-sitter-python/tree-sitter-python.wasm");
  } catch {
    throw new GitGoodError("INTERNAL", "the Python grammar (tree-sitter-python.wasm) is not installed: run npm ci");
  }
  const language = await ts.Language.load(grammar);
  const parser = new ts.Parser();
  parser.setLanguage(language);
  return parser;
}

/**
 * Parses Python source. Node offsets (`startIndex`, `endIndex`) are indices into the JavaScript string,
 * so `text.slice(node.startIndex, node.endIndex)` is the node's text.
 */
export async function parsePython(text: string): Promise<Tree> {
  loading ??= load();
  const parser = await loading.catch((err: unknown) => {
    loading = null;
    throw err;
  });
  const tree = parser.parse(text);
  if (!tree) throw new GitGoodError("INTERNAL", "the Python parser returned no tree");
  return tree;
}

/** Line and column of the first syntax error, or null when the source parses cleanly. */
export function firstSyntaxError(tree: Tree): { line: number; column: number } | null {
  if (!tree.rootNode.hasError) return null;
  const stack: Node[] = [tree.rootNode];
  while (stack.length > 0) {
    const node = stack.pop() as Node;
    if (node.isError || node.isMissing) return { line: node.startPosition.row + 1, column: node.startPosition.column + 1 };
    if (!node.hasError) continue;
    for (let i = node.childCount - 1; i >= 0; i--) {
      const child = node.child(i);
      if (child) stack.push(child);
    }
  }
  return { line: 1, column: 1 };
}


/** Whether `text` parses as Python without an error. */
export async function parsesCleanly(text: string): Promise<boolean> {
  const tree = await parsePython(text);
  try {
    return !tree.rootNode.hasError;
  } finally {
    tree.delete();
  }
}
