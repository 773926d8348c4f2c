import { parsePython, type SyntaxNode } from "./parser.js";

/** One imported module as written: `import a.b` → {module: "a.b", level: 0}; `from ..c import d` → {module: "c", level: 2, names: ["d"]}. */
interface PythonImport {
  module: string;
  /** Leading dots of a relative import; 0 for an absolute one. */
  level: number;
  /** Names after `from … import` (not their aliases); empty for `import x` and for `*`. */
  names: string[];
}

function dotted(node: SyntaxNode | null): string | null {
  if (!node) return null;
  if (node.type === "aliased_import") return dotted(node.childForFieldName("name"));
  return node.type === "dotted_name" ? node.text.replace(/\s+/g, "") : null;
}

function fromImport(node: SyntaxNode): PythonImport | null {
  const moduleNode = node.childForFieldName("module_name");
  if (!moduleNode) return null;
  let module = "";
  let level = 0;
  if (moduleNode.type === "relative_import") {
    for (const part of moduleNode.namedChildren) {
      if (part?.type === "import_prefix") level = part.text.trim().length;
      else if (part?.type === "dotted_name") module = dotted(part) ?? "";
    }
  } else {
    module = dotted(moduleNode) ?? "";
  }
  const names = node.childrenForFieldName("name").map(dotted).filter((n): n is string => n !== null);
  return { module, level, names };
}

/**
 * Every import statement of a module, wherever it stands (top level, inside `if`, `try` or a function),
 * in source order. Source with syntax errors yields the imports the parser still recognises.
 */
export async function pythonImports(text: string): Promise<PythonImport[]> {
  const tree = await parsePython(text);
  try {
    const found: PythonImport[] = [];
    for (const node of tree.rootNode.descendantsOfType(["import_statement", "import_from_statement"])) {
      if (!node) continue;
      if (node.type === "import_statement") {
        for (const name of node.childrenForFieldName("name")) {
          const module = dotted(name);
          if (module) found.push({ module, level: 0, names: [] });
        }
      } else {
        const imp = fromImport(node);
        if (imp) found.push(imp);
      }
    }
    return found;
  } finally {
    tree.delete();
  }
}

/**
 * The repository files an import can refer to, for a module file at `file` (repository-relative, `/`
 * separated) with packages rooted at `roots` (directories that hold top-level packages: "" for the
 * repository root, "src" for a src layout). A module `a.b` is `a/b.py` or `a/b/__init__.py`;
 * `from a import b` may also mean the submodule `a/b.py`. Only candidates present in `exists` are returned.
 */
export function importTargets(imp: PythonImport, file: string, roots: readonly string[], exists: (path: string) => boolean): string[] {
  const bases: string[] = [];
  if (imp.level > 0) {
    const parts = file.split("/").slice(0, -1);
    if (imp.level - 1 > parts.length) return [];
    const pkg = parts.slice(0, parts.length - (imp.level - 1));
    bases.push([...pkg, ...(imp.module ? imp.module.split(".") : [])].join("/"));
  } else {
    for (const root of roots) bases.push([...(root ? root.split("/") : []), ...imp.module.split(".")].join("/"));
  }
  const out = new Set<string>();
  const moduleFiles = (base: string): string[] => (base === "" ? [] : [`${base}.py`, `${base}/__init__.py`]);
  for (const base of bases) {
    for (const candidate of moduleFiles(base)) if (exists(candidate)) out.add(candidate);
    for (const name of imp.names) {
      const sub = base === "" ? name.replace(/\./g, "/") : `${base}/${name.replace(/\./g, "/")}`;
      for (const candidate of moduleFiles(sub)) if (exists(candidate)) out.add(candidate);
    }
  }
  return [...out];
}
