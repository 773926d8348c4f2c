import { GitGoodError } from "../errors.js";

/**
 * commit0's published skeleton rules as a Python program (Python's own `ast` makes them): in every
 * function or method whose name is not a dunder, a docstring is kept and the body becomes `pass`; such
 * a function without a docstring is deleted; dunder methods (`__init__`, `__eq__`, …) keep their
 * bodies; the module is re-emitted by `ast.unparse` (comments and blank lines gone, no final newline).
 * It reads `{path: source}` as JSON on stdin and writes `{path: {text, stubbed, deleted} | {error}}`.
 * It only parses and prints the source, never runs it.
 */
export const COMMIT0_SKELETON_SCRIPT = String.raw`
import ast, json, sys

def dunder(name):
    return len(name) > 4 and name.startswith("__") and name.endswith("__")

def docstring(fn):
    first = fn.body[0] if fn.body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        return first
    return None

class Skeleton(ast.NodeTransformer):
    def __init__(self):
        self.scope, self.stubbed, self.deleted = [], [], []

    def visit_ClassDef(self, node):
        self.scope.append(node.name)
        self.generic_visit(node)
        self.scope.pop()
        return node

    def visit_FunctionDef(self, node):
        name = ".".join(self.scope + [node.name])
        if dunder(node.name):
            return node
        doc = docstring(node)
        if doc is None:
            self.deleted.append(name)
            return None
        node.body = [doc, ast.Pass()]
        self.stubbed.append(name)
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

def fill(tree):
    for node in ast.walk(tree):
        if isinstance(getattr(node, "body", None), list) and not node.body and not isinstance(node, ast.Module):
            node.body = [ast.Pass()]

out = {}
for path, source in json.load(sys.stdin).items():
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError) as e:
        out[path] = {"error": str(e)}
        continue
    skeleton = Skeleton()
    tree = skeleton.visit(tree)
    fill(tree)
    out[path] = {"text": ast.unparse(tree), "stubbed": skeleton.stubbed, "deleted": skeleton.deleted}
json.dump(out, sys.stdout)
`;

/** One file's skeleton by commit0's rules, or why it could not be made (the file does not parse). */
export type Commit0StyleFile = { text: string; stubbed: string[]; deleted: string[] } | { error: string };

/** Reads what COMMIT0_SKELETON_SCRIPT wrote for `files`. */
export function parseCommit0Skeletons(stdout: string, files: readonly string[]): Map<string, Commit0StyleFile> {
  let data: unknown;
  try {
    data = JSON.parse(stdout);
  } catch {
    throw new GitGoodError("INTERNAL", `Python's ast did not answer with the skeletons (${stdout.trim().slice(0, 200) || "no output"})`);
  }
  const out = new Map<string, Commit0StyleFile>();
  const record = (data ?? {}) as Record<string, unknown>;
  for (const file of files) {
    const entry = record[file] as Partial<{ text: unknown; stubbed: unknown; deleted: unknown; error: unknown }> | undefined;
    if (entry && typeof entry.text === "string" && Array.isArray(entry.stubbed) && Array.isArray(entry.deleted)) {
      out.set(file, { text: entry.text, stubbed: entry.stubbed.map(String), deleted: entry.deleted.map(String) });
    } else if (entry && typeof entry.error === "string") {
      out.set(file, { error: entry.error });
    } else {
      throw new GitGoodError("INTERNAL", `Python's ast gave no skeleton for ${file}`);
    }
  }
  return out;
}
