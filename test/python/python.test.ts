import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { importTargets, pythonImports } from "../../src/python/imports.js";
import { dependencyOrder } from "../../src/python/order.js";
import { stubPythonSource, stubbedFunctions } from "../../src/python/stubs.js";

/** Python's own ast as the oracle: each function's body as statement type names, by qualified name (outermost functions only). */
function astBodies(source: string): Record<string, string[]> {
  const script = `
import ast, json, sys
tree = ast.parse(sys.stdin.read())
out = {}
def walk(node, prefix):
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out[prefix + child.name] = [type(s).__name__ + ("Doc" if isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and isinstance(s.value.value, str) else "") for s in child.body]
        elif isinstance(child, ast.ClassDef):
            walk(child, prefix + child.name + ".")
        else:
            walk(child, prefix)
walk(tree, "")
print(json.dumps(out))
`;
  return JSON.parse(execFileSync("python3", ["-c", script], { input: source, encoding: "utf8" })) as Record<string, string[]>;
}

const MODULE = `"""A module."""
import os

CONSTANT = {"a": 1}  # kept


def plain(x, y=2):
    total = x + y
    return total


@decorator(arg=1)
def decorated(*args, **kwargs) -> int:
    """Docstring kept.

    Over several lines, with a 'quote' and é.
    """
    # a comment
    if args:
        return len(args)

    return 0


def one_liner(v): return v * 2


def already():
    pass


def ellipsis_body():
    "doc"
    ...


class Cache(dict):
    """A class."""
    limit = 10

    def __init__(self, size):
        super().__init__()
        self.size = size

    async def fetch(self, key):
        '''Fetch.'''
        def inner():
            return key
        return inner()

    @property
    def full(self):
        return len(self) >= self.size


if __name__ == "__main__":
    print(plain(1))
`;

describe("Python skeletons", () => {
  it("replaces every function and method body by pass, keeping signatures, decorators, docstrings and other code", async () => {
    const { text, stubbed } = await stubPythonSource(MODULE);
    expect(stubbed.map((s) => s.name)).toEqual(["plain", "decorated", "one_liner", "Cache.__init__", "Cache.fetch", "Cache.full"]);
    expect(stubbed[0]?.line).toBe(7);
    const bodies = astBodies(text);
    expect(bodies).toEqual({
      plain: ["Pass"],
      decorated: ["ExprDoc", "Pass"],
      one_liner: ["Pass"],
      already: ["Pass"],
      ellipsis_body: ["ExprDoc", "Expr"],
      "Cache.__init__": ["Pass"],
      "Cache.fetch": ["ExprDoc", "Pass"],
      "Cache.full": ["Pass"],
    });
    expect(text).toContain('@decorator(arg=1)\ndef decorated(*args, **kwargs) -> int:\n    """Docstring kept.');
    expect(text).toContain("def one_liner(v): pass\n");
    expect(text).toContain('CONSTANT = {"a": 1}  # kept');
    expect(text).toContain('if __name__ == "__main__":\n    print(plain(1))\n');
    expect(text).toContain("    limit = 10\n");
    // Stubbing a skeleton changes nothing.
    expect((await stubPythonSource(text)).text).toBe(text);
    expect(await stubbedFunctions(text)).toEqual(["plain", "decorated", "one_liner", "already", "ellipsis_body", "Cache.__init__", "Cache.fetch", "Cache.full"]);
    expect(await stubbedFunctions(MODULE)).toEqual(["already", "ellipsis_body"]);
  });

  it("keeps CRLF files compiling and refuses source that does not parse", async () => {
    const crlf = "def f(a):\r\n    '''d'''\r\n    return a\r\n";
    const { text } = await stubPythonSource(crlf);
    expect(astBodies(text)).toEqual({ f: ["ExprDoc", "Pass"] });
    await expect(stubPythonSource("def broken(:\n    pass\n")).rejects.toMatchObject({ code: "SYNTAX_ERROR" });
  });
});

describe("Python imports", () => {
  it("finds every import form, relative levels included", async () => {
    const source = "import a.b as c, d\nfrom . import x, y as z\nfrom ..pkg.m import (q, r)\nfrom e.f import *\ntry:\n    import g\nexcept ImportError:\n    g = None\ndef f():\n    from h import i\n";
    expect(await pythonImports(source)).toEqual([
      { module: "a.b", level: 0, names: [] },
      { module: "d", level: 0, names: [] },
      { module: "", level: 1, names: ["x", "y"] },
      { module: "pkg.m", level: 2, names: ["q", "r"] },
      { module: "e.f", level: 0, names: [] },
      { module: "g", level: 0, names: [] },
      { module: "h", level: 0, names: ["i"] },
    ]);
  });

  it("resolves imports to the repository's module files", () => {
    const files = new Set(["src/lib/__init__.py", "src/lib/core.py", "src/lib/util/__init__.py", "src/lib/util/text.py", "setup.py"]);
    const exists = (p: string): boolean => files.has(p);
    const at = "src/lib/util/text.py";
    expect(importTargets({ module: "lib.core", level: 0, names: [] }, at, ["src"], exists)).toEqual(["src/lib/core.py"]);
    expect(importTargets({ module: "lib", level: 0, names: ["core"] }, at, ["src"], exists)).toEqual(["src/lib/__init__.py", "src/lib/core.py"]);
    expect(importTargets({ module: "", level: 2, names: ["core"] }, at, ["src"], exists)).toEqual(["src/lib/__init__.py", "src/lib/core.py"]);
    expect(importTargets({ module: "", level: 1, names: ["text"] }, at, ["src"], exists)).toEqual(["src/lib/util/__init__.py", "src/lib/util/text.py"]);
    expect(importTargets({ module: "os", level: 0, names: ["path"] }, at, ["src"], exists)).toEqual([]);
    expect(importTargets({ module: "", level: 9, names: ["x"] }, at, ["src"], exists)).toEqual([]);
  });
});

describe("dependency order (commit0's, with Python's graphlib as the oracle)", () => {
  /** commit0's ignore_cycles over {file: dependencies} in file order, run by Python's own graphlib, for each graph. */
  function commit0Orders(graphs: [string[], Record<string, string[]>][]): string[][] {
    const script = [
      "import json, sys",
      "from graphlib import TopologicalSorter, CycleError",
      "def ignore_cycles(graph):",
      "    try:",
      "        return list(TopologicalSorter(graph).static_order())",
      "    except CycleError as e:",
      "        graph.pop(e.args[1][0], None)",
      "        return ignore_cycles(graph)",
      "out = []",
      "for files, deps in json.load(sys.stdin):",
      "    graph = {f: sorted(d for d in set(deps.get(f, [])) if d != f and d in files) for f in files}",
      "    order = ignore_cycles(graph)",
      "    out.append(order + [f for f in files if f not in order])",
      "print(json.dumps(out))",
    ].join("\n");
    return JSON.parse(execFileSync("python3", ["-c", script], { input: JSON.stringify(graphs), encoding: "utf8" })) as string[][];
  }

  it("puts dependencies first, group by group as graphlib's static order does", () => {
    const deps: Record<string, string[]> = { a: ["b"], b: ["c"], c: [], d: [], e: ["d", "outside"] };
    expect(dependencyOrder(["a", "b", "c", "d", "e"], (f) => deps[f] ?? [])).toEqual(["c", "d", "b", "e", "a"]);
  });

  it("breaks a cycle as commit0 does: its first file loses its dependencies and stays in place", () => {
    // a and b import each other, c imports a: commit0 gives [a, b, c].
    const pair: Record<string, string[]> = { a: ["b"], b: ["a"], c: ["a"] };
    expect(dependencyOrder(["a", "b", "c"], (f) => pair[f] ?? [])).toEqual(["a", "b", "c"]);
    const deps: Record<string, string[]> = { a: ["b"], b: ["c"], c: ["a"], d: ["a"] };
    expect(dependencyOrder(["a", "b", "c", "d"], (f) => deps[f] ?? [])).toEqual(["a", "c", "d", "b"]);
  });

  it("agrees with commit0's ignore_cycles over graphlib on random graphs", () => {
    let seed = 7;
    const random = (): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const graphs: [string[], Record<string, string[]>][] = [];
    for (let round = 0; round < 200; round++) {
      const files = Array.from({ length: 2 + Math.floor(random() * 7) }, (_, i) => `m${i}.py`);
      const deps: Record<string, string[]> = {};
      for (const f of files) deps[f] = files.filter(() => random() < 0.3);
      graphs.push([files, deps]);
    }
    const expected = commit0Orders(graphs);
    expect(graphs.map(([files, deps]) => dependencyOrder(files, (f) => deps[f] ?? []))).toEqual(expected);
  });
});
