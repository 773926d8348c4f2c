import { createRequire } from "node:module";
import type * as FastXmlParser from "fast-xml-parser";
import type { IdStyle, TestOutcome } from "./types.js";

/** One `<testcase>` of a JUnit XML file, with the names of the suites around it (outermost first). */
export interface JUnitCase {
  suites: string[];
  classname: string;
  name: string;
  /** The `file` attribute (pytest's xunit1 family, some Jest/Vitest reporters), or null. */
  file: string | null;
  outcome: TestOutcome;
}

type Node = Record<string, unknown>;

const LISTS = new Set(["testsuites", "testsuite", "testcase", "failure", "error", "skipped"]);

let parser: FastXmlParser.XMLParser | null = null;

/**
 * The XML parser, loaded on first use (the package's CommonJS build, which `require` loads in one go): a
 * run whose test results come through gitgood's own channel never reads XML, and its start-up does not
 * pay for the parser's modules.
 */
function xmlParser(): FastXmlParser.XMLParser {
  if (parser === null) {
    const { XMLParser } = createRequire(import.meta.url)("fast-xml-parser") as typeof FastXmlParser;
    parser = new XMLParser({
      ignoreAttributes: false,
      attributeNamePrefix: "@",
      parseAttributeValue: false,
      parseTagValue: false,
      processEntities: true,
      htmlEntities: true,
      isArray: (name) => LISTS.has(name),
    });
  }
  return parser;
}

function nodes(value: unknown): Node[] {
  return Array.isArray(value) ? value.filter((v): v is Node => typeof v === "object" && v !== null) : [];
}

function attr(node: Node, name: string): string {
  const v = node[`@${name}`];
  return typeof v === "string" ? v : typeof v === "number" ? String(v) : "";
}

/** How bad an outcome is, to keep the worst when a test appears twice (a failing teardown after a pass). */
const SEVERITY: Record<TestOutcome, number> = { passed: 0, xfail: 1, skipped: 2, xpass: 3, failed: 4, error: 5 };

export function worse(a: TestOutcome | undefined, b: TestOutcome): TestOutcome {
  return a === undefined || SEVERITY[b] > SEVERITY[a] ? b : a;
}

function caseOutcome(tc: Node): TestOutcome {
  // An element without attributes or text (`<failure/>`) parses as "", so presence is what counts.
  if (tc.error !== undefined) return "error";
  if (tc.failure !== undefined) return "failed";
  if (tc.skipped !== undefined) {
    const first = nodes(tc.skipped)[0];
    return first && attr(first, "type") === "pytest.xfail" ? "xfail" : "skipped";
  }
  return "passed";
}

function collect(suite: Node, path: string[], out: JUnitCase[]): void {
  for (const tc of nodes(suite.testcase)) {
    const file = attr(tc, "file");
    out.push({ suites: path, classname: attr(tc, "classname"), name: attr(tc, "name"), file: file === "" ? null : file, outcome: caseOutcome(tc) });
  }
  for (const inner of nodes(suite.testsuite)) collect(inner, [...path, attr(inner, "name")], out);
}

/** Every test case of a JUnit XML document (any of the common flavours); a document that does not parse gives none. */
export function parseJUnitXml(xml: string): JUnitCase[] {
  let doc: Node;
  try {
    doc = xmlParser().parse(xml) as Node;
  } catch {
    return [];
  }
  const out: JUnitCase[] = [];
  for (const root of nodes(doc.testsuites)) collect(root, [], out);
  for (const suite of nodes(doc.testsuite)) collect(suite, [attr(suite, "name")], out);
  return out;
}

/**
 * The pytest node id of a case: `file::Class::name`. The file is the `file` attribute when there is
 * one, else the longest dotted prefix of the classname that `isFile` accepts as `a/b.py`; the rest of
 * the classname are the classes. A collection error (no classname, the module as name) names the file.
 */
export function pytestId(c: JUnitCase, isFile: (relPath: string) => boolean): string {
  if (c.classname === "") {
    const asFile = `${c.name.replace(/\./g, "/")}.py`;
    return isFile(asFile) ? asFile : c.name;
  }
  const parts = c.classname.split(".");
  if (c.file !== null) {
    const fileParts = c.file.replace(/\\/g, "/").replace(/\.py$/, "").split("/");
    const classes = parts.slice(fileParts.length);
    return [c.file, ...classes, c.name].join("::");
  }
  for (let n = parts.length; n > 0; n--) {
    const candidate = `${parts.slice(0, n).join("/")}.py`;
    if (isFile(candidate)) return [candidate, ...parts.slice(n), c.name].join("::");
  }
  return [`${parts.join("/")}.py`, c.name].join("::");
}

/** Whether a suite name is a file (Vitest and Jest name a file's suite after it): such names are no part of a test's name. */
function isFileName(name: string): boolean {
  return /[/\\]/.test(name) || /\.(c|m)?(j|t)sx?$/.test(name);
}

/** The id of a case in `names` style: enclosing suites (not files, not the generic wrapper) and the name, joined by ` > `. */
export function namesId(c: JUnitCase): string {
  const suites = c.suites.filter((s) => s !== "" && s !== c.classname && !isFileName(s) && s !== "vitest tests" && s !== "jest tests");
  return [...suites, c.name].join(" > ");
}

/** The id of a case in `java` style: `pkg.Class#method`. */
export function javaId(c: JUnitCase): string {
  return c.classname === "" ? c.name : `${c.classname}#${c.name}`;
}

/** Outcomes by id from JUnit XML documents; a test reported twice keeps its worse outcome. */
export function outcomesFromJUnit(docs: readonly string[], style: IdStyle, isFile: (relPath: string) => boolean): Map<string, TestOutcome> {
  const out = new Map<string, TestOutcome>();
  for (const xml of docs) {
    for (const c of parseJUnitXml(xml)) {
      const id = style === "pytest" ? pytestId(c, isFile) : style === "java" ? javaId(c) : namesId(c);
      out.set(id, worse(out.get(id), c.outcome));
    }
  }
  return out;
}
