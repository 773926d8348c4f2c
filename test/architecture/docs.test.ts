import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain JavaScript script, without types
import { anchor, headings, withToc } from "../../scripts/readme-toc.js";

const root = path.resolve(import.meta.dirname, "../..");
const read = (file: string) => readFileSync(path.join(root, file), "utf8");

/** The README's longest: what gitgood is, a quick start, a tour of the main jobs and where to go next; the rest is under docs/. */
const README_MAX_LINES = 600;

/** Every file under a directory of the repository, as paths relative to the repository's root. */
function filesUnder(dir: string): string[] {
  return readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)));
}

/** The top folders the repository keeps code, tests and documents in: a backticked path starting with one names a file of the repository. */
const ROOTS = ["src", "test", "scripts", "bench", "docs", "examples", ".ci"];

/**
 * What ARCHITECTURE.md names in backticks that does not exist. Counted as a name of the code: a path ending
 * in `.ts` or `/` that starts with a top folder or with a folder of src/ (`runs/flags.ts` is src/runs/flags.ts),
 * a bare `.ts` file name (some file of src/ has it), and an identifier written as code is (camelCase,
 * PascalCase or CONSTANT_CASE, with an optional call `(…)` or member `.name`), which must occur as a word
 * in src/. Not counted: plain lower-case words (verbs, options, fields of a file format), placeholders
 * (`<name>`), command lines, and the paths of files gitgood writes elsewhere (`tests/test.sh` of a Harbor task).
 */
function missingNames(text: string): string[] {
  const srcFolders = new Set(readdirSync(path.join(root, "src"), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name));
  const srcFiles = filesUnder("src");
  const srcText = srcFiles.filter((f) => f.endsWith(".ts")).map((f) => read(f)).join("\n");
  const baseNames = new Set(srcFiles.map((f) => path.basename(f)));
  const missing = new Set<string>();
  for (const [, quoted = ""] of text.matchAll(/`([^`\n]+)`/g)) {
    if (/^[\w.-]+(\/[\w.-]+)*(\.ts|\/)$/.test(quoted)) {
      const first = quoted.split("/")[0] ?? "";
      if (!quoted.includes("/")) {
        if (!baseNames.has(quoted)) missing.add(quoted);
      } else if (ROOTS.includes(first)) {
        if (!existsSync(path.join(root, quoted))) missing.add(quoted);
      } else if (srcFolders.has(first) && !existsSync(path.join(root, "src", quoted))) missing.add(quoted);
      continue;
    }
    const code = /^([A-Za-z_]\w*)((?:\.[A-Za-z_]\w*)*)(\(.*\))?$/.exec(quoted);
    if (!code) continue;
    const names = [code[1] ?? "", ...(code[2] ?? "").split(".").filter(Boolean)];
    const looksLikeCode = (n: string) => /^[a-z]+[A-Z]\w*$/.test(n) || /^[A-Z][a-z]\w*$/.test(n) || /^[A-Z][A-Z0-9]*_[A-Z0-9_]+$|^[A-Z]{4,}$/.test(n);
    if (!names.some(looksLikeCode)) continue;
    for (const n of names) if (!new RegExp(`\\b${n}\\b`).test(srcText)) missing.add(quoted);
  }
  return [...missing].sort();
}

describe("the documentation in the repository", () => {
  it("names every folder of src/ in ARCHITECTURE.md", () => {
    const architecture = read("ARCHITECTURE.md");
    const folders = readdirSync(path.join(root, "src"), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
    const missing = folders.filter((f) => !new RegExp(`\`(src/)?${f}/?\``).test(architecture) && !new RegExp(`^  ${f} +→`, "m").test(architecture));
    expect(missing, "folders of src/ ARCHITECTURE.md does not name").toEqual([]);
  });

  it(`keeps README.md at most ${README_MAX_LINES} lines`, () => {
    expect(read("README.md").split("\n").length).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it("names in ARCHITECTURE.md only files and code names that exist in src/", () => {
    expect(missingNames("`runs/spec.ts` `src/runs/` `spec.ts` `runBenchmark` `JobTicket` `BAD_SIGNATURE` `run` `tests/test.sh` `src/<name>/`")).toEqual([]);
    expect(missingNames("`runs/nothing.ts` `src/nothing/` `nothing.ts` `executorForNothing(base)` `NoSuchType` `NO_SUCH_CODE`")).toEqual(["NO_SUCH_CODE", "NoSuchType", "executorForNothing(base)", "nothing.ts", "runs/nothing.ts", "src/nothing/"]);
    expect(missingNames(read("ARCHITECTURE.md")), "ARCHITECTURE.md names these, which src/ does not have").toEqual([]);
  });

  it("has the README's table of contents as its headings make it (node scripts/readme-toc.js)", () => {
    const readme = read("README.md");
    expect(withToc(readme) === readme, "README.md's table of contents is stale: run node scripts/readme-toc.js").toBe(true);
  });

  it("links from README.md, ARCHITECTURE.md and docs/ only to files that exist and headings that exist, in other pages too", () => {
    const anchorsOf = (file: string): Set<string> => {
      const taken = new Map<string, number>();
      return new Set((headings(read(file)) as { text: string }[]).map((h) => anchor(h.text, taken) as string));
    };
    const broken: string[] = [];
    for (const file of ["README.md", "ARCHITECTURE.md", ...readdirSync(path.join(root, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)]) {
      for (const [, target] of read(file).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (!target || /^[a-z]+:/.test(target)) continue;
        const [file2, hash] = target.split("#");
        const into = file2 ? path.relative(root, path.join(root, path.dirname(file), file2)) : file;
        if (!existsSync(path.join(root, into))) broken.push(`${file} links to ${target}: no such file`);
        else if (hash && into.endsWith(".md") && !anchorsOf(into).has(hash)) broken.push(`${file} links to ${target}: no such heading`);
      }
    }
    expect(broken).toEqual([]);
  });
});
