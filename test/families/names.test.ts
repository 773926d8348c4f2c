import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * A family is named only in its own folders and the registry lines: report/, cli/, runs/, agents/, a2a/
 * and the public index iterate over the registries. This test reads src/ and fails on a family's name
 * in code (an identifier or a string that is the name), or an import of a family's folder, anywhere else.
 */

const SRC = path.resolve(__dirname, "../../src");

/** Each family: its names in code, and its own folders (relative to src/). */
const FAMILIES = [
  { names: ["SWE", "SWE_SCENARIO"], folders: ["swe", "scenarios/swe", "families/swe"] },
  { names: ["COMMIT0", "COMMIT0_SCENARIO"], folders: ["commit0", "scenarios/commit0", "families/commit0"] },
];

/** The registry lines: the scenario registry, the family registry and the families' public API. */
const REGISTRIES = ["scenarios/registry.ts", "families/registry.ts", "families/public.ts"];

/** Files that still import a family's folder, each with the reason. */
const KNOWN: Record<string, string> = {
  "cli/skeleton.ts": "`gitgood skeleton` is the commit0 family's own verb (families do not add verbs yet)",
  "cli/mine-swe.ts": "`gitgood mine --type swe` is the SWE family's own mining mode (families do not add verbs or mining types yet)",
  "a2a/swe-task.ts": "the A2A participant speaks SWE-bench's task protocol (REPO_DIR, Problem Statement:)",
  "a2a/participant.ts": "the A2A participant speaks SWE-bench's task protocol (REPO_DIR, Problem Statement:)",
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

/** What names a family outside its folders in one file of src/ (`file` relative to src/). */
function findings(file: string, source: string): string[] {
  const own = (rel: string, folders: readonly string[]) => folders.some((f) => rel === `${f}.ts` || rel.startsWith(`${f}/`));
  if (REGISTRIES.includes(file)) return [];
  const found: string[] = [];
  const { code, strings } = split(source);
  for (const family of FAMILIES) {
    if (own(file, family.folders)) continue;
    for (const name of family.names) {
      if (new RegExp(`\\b${name}\\b`).test(code)) found.push(`${file}: names ${name}`);
      if (strings.includes(name)) found.push(`${file}: the string "${name}"`);
    }
    if (KNOWN[file] !== undefined) continue;
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

describe("family names", () => {
  it("appear only in the families' own folders and the registry lines", () => {
    const found = sourceFiles(SRC).flatMap((p) => findings(path.relative(SRC, p).split(path.sep).join("/"), readFileSync(p, "utf8")));
    expect(found).toEqual([]);
  });

  it("are found where they do not belong: a name switch, the name as a string, an import of a family folder", () => {
    expect(findings("report/probe.ts", 'import { SWE_SCENARIO } from "../families/swe/report.js";\nif (r.scenario === SWE_SCENARIO) {}')).toEqual([
      "report/probe.ts: names SWE_SCENARIO",
      "report/probe.ts: imports ../families/swe/report.js",
    ]);
    expect(findings("cli/probe.ts", 'const wanted = "COMMIT0"; // COMMIT0 in a comment is prose')).toEqual(['cli/probe.ts: the string "COMMIT0"']);
    expect(findings("a2a/probe.ts", 'await import("../scenarios/commit0/index.js")')).toEqual(["a2a/probe.ts: imports ../scenarios/commit0/index.js"]);
    // The families' own folders and the registry lines may name them.
    expect(findings("families/swe/report.ts", 'if (r.scenario === "SWE") {}')).toEqual([]);
    expect(findings("scenarios/registry.ts", 'import { SWE } from "./swe/index.js";')).toEqual([]);
  });
});
