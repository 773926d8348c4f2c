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

describe("dependency order", () => {
  it("puts dependencies first and keeps the given order between independent files", () => {
    const deps: Record<string, string[]> = { a: ["b"], b: ["c"], c: [], d: [], e: ["d", "outside"] };
    expect(dependencyOrder(["a", "b", "c", "d", "e"], (f) => deps[f] ?? [])).toEqual(["c", "b", "a", "d", "e"]);
  });

  it("breaks a cycle by taking its first node out and appending it at the end", () => {
    // a → b → c → a is a cycle; d depends on a.
    const deps: Record<string, string[]> = { a: ["b"], b: ["c"], c: ["a"], d: ["a"] };
    expect(dependencyOrder(["a", "b", "c", "d"], (f) => deps[f] ?? [])).toEqual(["c", "b", "d", "a"]);
    // Two cycles: each loses its first node, in the order found.
    const two: Record<string, string[]> = { a: ["b"], b: ["a"], x: ["y"], y: ["x"] };
    expect(dependencyOrder(["a", "b", "x", "y"], (f) => two[f] ?? [])).toEqual(["b", "y", "a", "x"]);
  });
});
