import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * A family is named only in its own folders, the registry lines and the sample union: report/, cli/,
 * runs/, agents/, a2a/, dataset/ and the public index iterate over the registries. This test reads src/
 * and fails on a family's name anywhere else: in an identifier (`SWE_SCENARIO`, `isSweRecord`,
 * `normalizeCommit0Record`), in a string (`"swe"`, `"SWE task"`), or as an import of a family's folder
 * (module paths are checked as imports, not as strings). Comments are prose and may name a family.
 */

const SRC = path.resolve(import.meta.dirname, "../../src");

/** Each family: its name as a word of an identifier or a string, and its own folders (relative to src/). */
const FAMILIES = [
  { name: "SWE", word: /^swe$/i, folders: ["swe", "scenarios/swe", "families/swe"] },
  { name: "COMMIT0", word: /^commit0$/i, folders: ["commit0", "scenarios/commit0", "families/commit0"] },
];

/**
 * The registry lines (one line per family in each) and the sample union, which list every family by
 * name; nothing else may.
 */
const REGISTRIES = ["scenarios/registry.ts", "families/registry.ts", "families/public.ts", "families/command-line.ts", "dataset/sample.ts"];

/** Files that still name a family, each with the reason. */
const KNOWN: Record<string, string> = {
  "errors/codes.ts": "the error catalogue: BAD_SWE_TASK is a stable public code, and the meanings say which family's data is wrong",
  "cli/a2a.ts": "the AgentBeats agent cards (the green agent's description and tags) and the a2a verb's help name the SWE participant task in prose",
};

/** The source with comments removed, and each string literal apart (template literals whole). */
function split(source: string): { code: string; strings: string[] } {
  let code = "";
  const strings: string[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i] ?? "";
    if (source.startsWith("//", i)) {
      const end = source.indexOf("\n", i);
      i = end < 0 ? source.length : end;
    } else if (source.startsWith("/*", i)) {
      const end = source.indexOf("*/", i + 2);
      i = end < 0 ? source.length : end + 2;
    } else if (c === '"' || c === "'" || c === "`") {
      let j = i + 1;
      while (j < source.length && source[j] !== c) j += source[j] === "\\" ? 2 : 1;
      strings.push(source.slice(i + 1, j));
      code += '""';
      i = j + 1;
    } else {
      code += c;
      i += 1;
    }
  }
  return { code, strings };
}

/** The words of an identifier or a text: split at non-letters and at camel-case humps (`isSweRecord` → is, Swe, Record). */
function words(text: string): string[] {
  return text.match(/[A-Z0-9]+(?![a-z])|[A-Z]?[a-z0-9]+/g) ?? [];
}

/** What names a family outside its folders in one file of src/ (`file` relative to src/). */
function findings(file: string, source: string): string[] {
  const own = (rel: string, folders: readonly string[]) => folders.some((f) => rel === `${f}.ts` || rel.startsWith(`${f}/`));
  if (REGISTRIES.includes(file)) return [];
  const found: string[] = [];
  const { code, strings } = split(source);
  const identifiers = [...new Set(code.match(/[A-Za-z_$][\w$]*/g) ?? [])];
  for (const family of FAMILIES) {
    if (own(file, family.folders)) continue;
    for (const id of identifiers) if (words(id).some((w) => family.word.test(w))) found.push(`${file}: ${family.name} in the identifier ${id}`);
    for (const s of strings.filter((t) => !t.startsWith("."))) if (words(s).some((w) => family.word.test(w))) found.push(`${file}: ${family.name} in the string "${s.slice(0, 60)}"`);
    for (const m of source.matchAll(/(?:from|import)\s*\(?\s*["']([^"']+)["']/g)) {
      const spec = m[1] ?? "";
      if (!spec.startsWith(".")) continue;
      const target = path.relative(SRC, path.resolve(SRC, path.dirname(file), spec)).split(path.sep).join("/");
      if (own(target.replace(/\.js$/, ".ts"), family.folders)) found.push(`${file}: imports ${spec}`);
    }
  }
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : e.name.endsWith(".ts") ? [p] : [];
  });
}

const files = sourceFiles(SRC).map((p) => [path.relative(SRC, p).split(path.sep).join("/"), readFileSync(p, "utf8")] as const);

describe("family names", () => {
  it("appear only in the families' own folders, the registry lines and the sample union", () => {
    const found = files.filter(([file]) => KNOWN[file] === undefined).flatMap(([file, source]) => findings(file, source));
    expect(found).toEqual([]);
  });

  it("still appear in each file the known list names (a file that no longer does leaves the list)", () => {
    const stale = Object.keys(KNOWN).filter((file) => findings(file, files.find(([f]) => f === file)?.[1] ?? "").length === 0);
    expect(stale).toEqual([]);
  });

  it("are found where they do not belong: a name switch, the name in a string or an identifier, an import of a family folder", () => {
    expect(findings("report/probe.ts", 'import { SWE_SCENARIO } from "../families/swe/report.js";\nif (r.scenario === SWE_SCENARIO) {}')).toEqual([
      "report/probe.ts: SWE in the identifier SWE_SCENARIO",
      "report/probe.ts: imports ../families/swe/report.js",
    ]);
    expect(findings("cli/probe.ts", 'const wanted = "commit0"; // COMMIT0 in a comment is prose')).toEqual(['cli/probe.ts: COMMIT0 in the string "commit0"']);
    expect(findings("a2a/probe.ts", 'await import("../scenarios/commit0/index.js")')).toEqual(["a2a/probe.ts: imports ../scenarios/commit0/index.js"]);
    expect(findings("dataset/probe.ts", "export const x = isSweRecord(row) && normalizeCommit0Record(row);")).toEqual([
      "dataset/probe.ts: SWE in the identifier isSweRecord",
      "dataset/probe.ts: COMMIT0 in the identifier normalizeCommit0Record",
    ]);
    expect(findings("a2a/probe.ts", 'end("this agent takes a SWE task")')).toEqual(['a2a/probe.ts: SWE in the string "this agent takes a SWE task"']);
    // Words that merely contain the letters are not the name; the families' own folders and the registry lines may name them.
    expect(findings("scoring/probe.ts", 'const ANSWER_RESERVE = answer + sweep("commit01");')).toEqual([]);
    expect(findings("families/swe/report.ts", 'if (r.scenario === "SWE") {}')).toEqual([]);
    expect(findings("scenarios/registry.ts", 'import { SWE } from "./swe/index.js";')).toEqual([]);
  });
});
