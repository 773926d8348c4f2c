import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// The package's public surface, entry point by entry point: every exported name with its kind, read from
// the sources package.json's "exports" point at (TypeScript's parser, following re-exports). The list is compared with the
// committed api.snapshot.txt, so every change to the surface shows in review. After a deliberate change:
// npx vitest run test/architecture/api.test.ts -u

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** package.json's entry points, each with the source file it is built from (dist/x.js ← src/x.ts). */
function entryPoints(): { name: string; source: string }[] {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { name: string; exports: Record<string, { import: string }> };
  return Object.entries(pkg.exports).map(([sub, target]) => ({
    name: sub === "." ? pkg.name : `${pkg.name}/${sub.slice(2)}`,
    source: path.join(ROOT, target.import.replace(/^\.\/dist\//, "src/").replace(/\.js$/, ".ts")),
  }));
}

type Kinds = Map<string, Set<string>>;

const parsed = new Map<string, ts.SourceFile>();
function sourceFile(file: string): ts.SourceFile {
  let sf = parsed.get(file);
  if (!sf) {
    sf = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.ES2022, true);
    parsed.set(file, sf);
  }
  return sf;
}

/** The source file a relative module specifier names (`./x.js` → x.ts, `./x/index.js`). */
function resolve(from: string, specifier: string): string {
  return path.resolve(path.dirname(from), specifier.replace(/\.js$/, ".ts"));
}

const exported = (node: ts.Node): boolean =>
  ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

/** What a declaration is: class, function, const, enum, interface or type. */
function declarationKind(node: ts.Statement): string | null {
  if (ts.isClassDeclaration(node)) return "class";
  if (ts.isFunctionDeclaration(node)) return "function";
  if (ts.isEnumDeclaration(node)) return "enum";
  if (ts.isVariableStatement(node)) return "const";
  if (ts.isInterfaceDeclaration(node)) return "interface";
  if (ts.isTypeAliasDeclaration(node)) return "type";
  return null;
}

function declaredNames(node: ts.Statement): string[] {
  if (ts.isVariableStatement(node)) return node.declarationList.declarations.map((d) => d.name.getText());
  const name = (node as ts.DeclarationStatement).name;
  return name && ts.isIdentifier(name) ? [name.text] : [];
}

/** A module's own declarations, exported or not, by name with their kinds (a name can be a value and a type). */
function declarations(file: string): Kinds {
  const out: Kinds = new Map();
  for (const st of sourceFile(file).statements) {
    const kind = declarationKind(st);
    if (!kind) continue;
    for (const name of declaredNames(st)) out.set(name, new Set([...(out.get(name) ?? []), kind]));
  }
  return out;
}

/** A name a module imports, with its kinds in the module it comes from. */
function imported(file: string, name: string, seen: Set<string>): Set<string> | undefined {
  for (const st of sourceFile(file).statements) {
    if (!ts.isImportDeclaration(st) || !ts.isStringLiteral(st.moduleSpecifier) || !st.moduleSpecifier.text.startsWith(".")) continue;
    const bindings = st.importClause?.namedBindings;
    if (!bindings || !ts.isNamedImports(bindings)) continue;
    const el = bindings.elements.find((e) => e.name.text === name);
    if (el) return exportsOf(resolve(file, st.moduleSpecifier.text), new Set(seen)).get((el.propertyName ?? el.name).text);
  }
  return undefined;
}

/** Every name a module exports with its kinds, following `export … from` and `export *` through the sources. */
const exportCache = new Map<string, Kinds>();
function exportsOf(file: string, seen = new Set<string>()): Kinds {
  const cached = exportCache.get(file);
  if (cached) return cached;
  const out: Kinds = new Map();
  if (seen.has(file)) return out;
  seen.add(file);
  const own = declarations(file);
  const add = (name: string, kinds: Iterable<string>) => out.set(name, new Set([...(out.get(name) ?? []), ...kinds]));
  for (const st of sourceFile(file).statements) {
    if (ts.isExportDeclaration(st)) {
      const from = st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier) ? resolve(file, st.moduleSpecifier.text) : null;
      const target = from ? exportsOf(from, new Set(seen)) : own;
      if (!st.exportClause) {
        for (const [name, kinds] of target) if (name !== "default") add(name, kinds);
      } else if (ts.isNamedExports(st.exportClause)) {
        for (const el of st.exportClause.elements) {
          const source = (el.propertyName ?? el.name).text;
          const kinds = target.get(source) ?? (from ? undefined : imported(file, source, seen));
          if (!kinds) throw new Error(`${path.relative(ROOT, file)}: ${source} is not exported by ${st.moduleSpecifier ? st.moduleSpecifier.getText(sourceFile(file)) : "this module"}`);
          add(el.name.text, kinds);
        }
      }
    } else if (exported(st)) {
      const kind = declarationKind(st);
      if (kind) for (const name of declaredNames(st)) add(name, own.get(name) ?? [kind]);
    }
  }
  exportCache.set(file, out);
  return out;
}

/** Where the name a module exports is declared (`file#name`), following re-exports and imports through the sources. */
function originOf(file: string, name: string): string | undefined {
  for (const st of sourceFile(file).statements) {
    if (ts.isExportDeclaration(st)) {
      const from = st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier) ? resolve(file, st.moduleSpecifier.text) : null;
      if (!st.exportClause) {
        const found = from ? originOf(from, name) : undefined;
        if (found) return found;
      } else if (ts.isNamedExports(st.exportClause)) {
        const el = st.exportClause.elements.find((e) => e.name.text === name);
        if (!el) continue;
        const source = (el.propertyName ?? el.name).text;
        if (from) return originOf(from, source);
        return declarations(file).has(source) ? `${path.relative(ROOT, file)}#${source}` : importedOrigin(file, source);
      }
    } else if (exported(st) && declaredNames(st).includes(name)) {
      return `${path.relative(ROOT, file)}#${name}`;
    }
  }
  return undefined;
}

function importedOrigin(file: string, name: string): string | undefined {
  for (const st of sourceFile(file).statements) {
    if (!ts.isImportDeclaration(st) || !ts.isStringLiteral(st.moduleSpecifier) || !st.moduleSpecifier.text.startsWith(".")) continue;
    const bindings = st.importClause?.namedBindings;
    if (!bindings || !ts.isNamedImports(bindings)) continue;
    const el = bindings.elements.find((e) => e.name.text === name);
    if (el) return originOf(resolve(file, st.moduleSpecifier.text), (el.propertyName ?? el.name).text);
  }
  return undefined;
}

/** The surface as text: one block per entry point, one `kinds name` line per export, sorted by name. */
function surface(): string {
  const order = ["class", "function", "enum", "const", "interface", "type"];
  const blocks = entryPoints().map(({ name, source }) => {
    const lines = [...exportsOf(source)]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([n, kinds]) => `${[...kinds].sort((a, b) => order.indexOf(a) - order.indexOf(b)).join("+")} ${n}`);
    return [`## ${name} (${lines.length})`, ...lines].join("\n");
  });
  return `${blocks.join("\n\n")}\n`;
}

describe("the public API", () => {
  it("is the committed snapshot: every entry point's names and kinds", async () => {
    await expect(surface()).toMatchFileSnapshot("api.snapshot.txt");
  });

  it("gives a name exported by several entry points one declaration", () => {
    const seen = new Map<string, { entry: string; origin: string | undefined }>();
    const clashes: string[] = [];
    for (const { name: entry, source } of entryPoints()) {
      for (const name of exportsOf(source).keys()) {
        const origin = originOf(source, name);
        const first = seen.get(name);
        if (!first) seen.set(name, { entry, origin });
        else if (first.origin !== origin) clashes.push(`${name}: ${first.entry} (${first.origin}) and ${entry} (${origin})`);
      }
    }
    expect(clashes).toEqual([]);
  });

  it("keeps the root to at most 80 names, and gitgood/types to types", () => {
    const points = new Map(entryPoints().map((e) => [e.name, e.source]));
    expect(exportsOf(points.get("gitgood") ?? "").size).toBeLessThanOrEqual(80);
    const types = [...exportsOf(points.get("gitgood/types") ?? "")].filter(([, kinds]) => [...kinds].some((k) => k !== "interface" && k !== "type"));
    expect(types.map(([n]) => n)).toEqual([]);
  });

  // `npm run docs:api` (run by .ci/run) documents what typedoc.json names, and fails on any warning: a missing
  // comment or a broken link in any entry point stops CI, as long as every entry point is listed there.
  it("is what the API reference documents, with TypeDoc's warnings as errors", () => {
    const config = JSON.parse(readFileSync(path.join(ROOT, "typedoc.json"), "utf8")) as { entryPoints: string[]; treatWarningsAsErrors?: boolean };
    const documented = config.entryPoints.map((p) => path.join(ROOT, p)).sort();
    expect(documented).toEqual(entryPoints().map((e) => e.source).sort());
    expect(config.treatWarningsAsErrors).toBe(true);
  });
});
