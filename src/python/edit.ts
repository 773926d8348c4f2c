import { GitGoodError } from "../errors.js";
import { firstSyntaxError, parsePython, type SyntaxNode } from "./parser.js";
import { indentAt, isDocstring, isStubBody, outermostFunctions, qualifiedName, statements } from "./stubs.js";
import { at } from "../util/at.js";

/** A function or method of a module (nested functions go with the one they are in). */
export interface PythonFunction {
  /** Dotted name inside the module: `helper`, `Cache.get`. */
  name: string;
  /** 1-based line of its `def`. */
  line: number;
  /** Its `def` line(s), from `def` (or `async def`) to the colon, as in the file. */
  signature: string;
  /** Whether its body is a stub (`pass` or `...` after an optional docstring). */
  stub: boolean;
}

interface Located extends PythonFunction {
  node: SyntaxNode;
}

function signatureOf(text: string, fn: SyntaxNode, block: SyntaxNode): string {
  const colon = text.lastIndexOf(":", block.startIndex - 1);
  return text.slice(fn.startIndex, colon + 1);
}

function locate(text: string, root: SyntaxNode): Located[] {
  const out: Located[] = [];
  for (const fn of outermostFunctions(root)) {
    const block = fn.childForFieldName("body");
    if (!block) continue;
    out.push({ name: qualifiedName(fn), line: fn.startPosition.row + 1, signature: signatureOf(text, fn, block), stub: isStubBody(block), node: fn });
  }
  return out;
}

/** The functions and methods of a module in source order (not nested ones), each with its signature and whether it is a stub. */
export async function pythonFunctions(text: string): Promise<PythonFunction[]> {
  const tree = await parsePython(text);
  try {
    return locate(text, tree.rootNode).map(({ node: _node, ...f }) => f);
  } finally {
    tree.delete();
  }
}

/** The lines of `text` with their common leading whitespace removed (blank lines ignored for it). */
function dedent(text: string): string {
  const lines = text.split("\n");
  const indents = lines.filter((l) => l.trim() !== "").map((l) => /^[ \t]*/.exec(l)?.[0] ?? "");
  let common = indents[0] ?? "";
  for (const i of indents) while (!i.startsWith(common)) common = common.slice(0, -1);
  return lines.map((l) => (l.startsWith(common) ? l.slice(common.length) : l.trimStart())).join("\n");
}

/** The body's lines at `indent`: kept byte for byte when every line has it already, else re-indented from their common indentation. */
function indented(body: string, indent: string): string {
  const lines = body.replace(/\s+$/, "").split("\n");
  while (lines.length > 0 && at(lines, 0).trim() === "") lines.shift();
  if (lines.every((l) => l.trim() === "" || l.startsWith(indent))) return lines.map((l) => (l.trim() === "" ? "" : l)).join("\n");
  return dedent(lines.join("\n"))
    .split("\n")
    .map((l) => (l.trim() === "" ? "" : `${indent}${l}`))
    .join("\n");
}

/** A signature on one line: where it breaks its lines is the only freedom a copy of it has. */
function oneLine(signature: string): string {
  return signature.replace(/\s*\n\s*/g, " ");
}

/** The last part of a dotted function name: `Cache.get` → `get`. */
function ownName(fn: PythonFunction): string {
  return fn.name.slice(fn.name.lastIndexOf(".") + 1);
}

/**
 * The body an agent gave, without a copy of the function's own `def` line(s) in front. Only a leading
 * `def` of the function's own name is such a copy: it is accepted when it repeats the signature exactly
 * and refused otherwise (renaming or reformatting a function breaks its callers and the tests), and so
 * is the function's own name under decorators (they stay as they are). Any other leading `def` or
 * decorator is the start of the body: a closure or a decorator factory's inner function.
 */
async function bodyOnly(given: string, fn: PythonFunction): Promise<string> {
  const plain = dedent(given.replace(/^\s*\n/, ""));
  const first = plain.trimStart();
  if (!/^(async\s+)?def\s/.test(first) && !first.startsWith("@")) return given;
  const tree = await parsePython(plain);
  try {
    const def = tree.rootNode.namedChildren.find((n) => n !== null && n.type !== "comment");
    if (def?.type !== "function_definition" && def?.type !== "decorated_definition") return given;
    const node = def.type === "decorated_definition" ? def.childForFieldName("definition") : def;
    if (node?.childForFieldName("name")?.text !== ownName(fn)) return given;
    const block = node.childForFieldName("body");
    if (!block || def.type === "decorated_definition" || oneLine(signatureOf(plain, node, block)) !== oneLine(fn.signature)) {
      throw new GitGoodError(
        "EDIT_REFUSED",
        `give only the body of ${fn.name}: its signature must stay exactly \`${oneLine(fn.signature)}\` (no renaming, no reformatting, no decorators)`,
        { function: fn.name },
      );
    }
    return plain.slice(node.startIndex + signatureOf(plain, node, block).length);
  } finally {
    tree.delete();
  }
}

/** The one function of `name` (at `line` when several share it), or UNKNOWN_FUNCTION listing what there is. */
function pick(functions: readonly Located[], name: string, line: number | undefined, file: string): Located {
  const named = functions.filter((f) => f.name === name && (line === undefined || f.line === line));
  if (named.length === 1) return at(named, 0);
  if (named.length > 1) {
    throw new GitGoodError("UNKNOWN_FUNCTION", `${file} has ${named.length} functions named ${name} (lines ${named.map((f) => f.line).join(", ")}); give line to choose one`, {
      function: name,
      lines: named.map((f) => f.line),
    });
  }
  const known = functions.map((f) => f.name);
  const shown = known.length > 30 ? `${known.slice(0, 30).join(", ")}, …` : known.join(", ");
  throw new GitGoodError("UNKNOWN_FUNCTION", `${file} has no function ${name}${line === undefined ? "" : ` at line ${line}`}; its functions: ${shown || "(none)"}`, {
    function: name,
  });
}

/** A file's text with one function's body replaced, and that function as it was found. */
export interface BodyReplacement {
  text: string;
  function: PythonFunction;
}

/**
 * Replaces the body of the function or method `name` (dotted, as `pythonFunctions` names it; `line`
 * chooses among functions of the same name) with `body`, keeping its decorators, signature and
 * docstring. The body's lines are indented to the function's body (kept as given when they already
 * are). Refused, with the file left as it was, when the result does not parse or the function would
 * not keep its signature (a body that repeats the signature exactly is accepted without it).
 */
export async function replaceFunctionBody(text: string, name: string, body: string, opts: { line?: number; file?: string } = {}): Promise<BodyReplacement> {
  const file = opts.file ?? "the file";
  if (body.trim() === "") throw new GitGoodError("EDIT_REFUSED", `the new body of ${name} is empty; give at least one statement (pass keeps it a stub)`, { function: name });
  const tree = await parsePython(text);
  let out: string;
  let fn: PythonFunction;
  let start: number;
  let tail: number;
  try {
    const error = firstSyntaxError(tree);
    if (error) throw new GitGoodError("EDIT_REFUSED", `${file} does not parse (line ${error.line}, column ${error.column}); its functions cannot be found`, { ...error });
    const found = pick(locate(text, tree.rootNode), name, opts.line, file);
    const { node, ...info } = found;
    fn = info;
    start = node.startIndex;
    tail = text.length - node.endIndex;
    const block = node.childForFieldName("body") as SyntaxNode;
    const given = await bodyOnly(body, fn);
    const first = statements(block)[0];
    const sameLine = block.startPosition.row === node.startPosition.row;
    const bodyIndent = sameLine ? `${indentAt(text, node.startIndex)}    ` : indentAt(text, block.startIndex);
    const code = indented(given, bodyIndent);
    if (isDocstring(first) && !sameLine) {
      out = `${text.slice(0, (first as SyntaxNode).endIndex)}\n${code}${text.slice(block.endIndex)}`;
    } else {
      const from = sameLine ? text.lastIndexOf(":", block.startIndex - 1) + 1 : block.startIndex - bodyIndent.length;
      out = `${text.slice(0, from)}${sameLine ? "\n" : ""}${code}${text.slice(block.endIndex)}`;
    }
  } finally {
    tree.delete();
  }
  await checkEdit(out, fn, start, tail, file);
  return { text: out, function: { ...fn, stub: false } };
}

/**
 * The edited module must parse, and still have the function where it began (`start`) with its signature,
 * ending where the text after it begins (`tail`: the characters after the function, unchanged by the edit).
 */
async function checkEdit(out: string, fn: PythonFunction, start: number, tail: number, file: string): Promise<void> {
  const tree = await parsePython(out);
  try {
    const error = firstSyntaxError(tree);
    if (error) {
      const line = out.split("\n")[error.line - 1] ?? "";
      throw new GitGoodError("EDIT_REFUSED", `the new body of ${fn.name} makes ${file} fail to parse at line ${error.line}: ${line.trim().slice(0, 120)}; ${file} is unchanged`, {
        function: fn.name,
        ...error,
      });
    }
    const after = locate(out, tree.rootNode).find((f) => f.node.startIndex === start);
    if (!after || after.name !== fn.name || after.signature !== fn.signature || out.length - after.node.endIndex !== tail) {
      throw new GitGoodError("EDIT_REFUSED", `the new body of ${fn.name} would change where the function ends or what it is called; give only its body, indented under it`, {
        function: fn.name,
      });
    }
  } finally {
    tree.delete();
  }
}
