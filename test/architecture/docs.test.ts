import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain JavaScript script, without types
import { anchor, headings, withToc } from "../../scripts/readme-toc.js";

const root = path.resolve(import.meta.dirname, "../..");
const read = (file: string) => readFileSync(path.join(root, file), "utf8");

describe("the documentation in the repository", () => {
  it("names every folder of src/ in ARCHITECTURE.md", () => {
    const architecture = read("ARCHITECTURE.md");
    const folders = readdirSync(path.join(root, "src"), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
    const missing = folders.filter((f) => !new RegExp(`\`(src/)?${f}/?\``).test(architecture) && !new RegExp(`^  ${f} +→`, "m").test(architecture));
    expect(missing, "folders of src/ ARCHITECTURE.md does not name").toEqual([]);
  });

  it("has the README's table of contents as its headings make it (node scripts/readme-toc.js)", () => {
    const readme = read("README.md");
    expect(withToc(readme) === readme, "README.md's table of contents is stale: run node scripts/readme-toc.js").toBe(true);
  });

  it("links from README.md and ARCHITECTURE.md only to files that exist and headings that exist", () => {
    for (const file of ["README.md", "ARCHITECTURE.md", ...readdirSync(path.join(root, "docs")).map((f) => `docs/${f}`)]) {
      const text = read(file);
      const taken = new Map<string, number>();
      const anchors = new Set((headings(text) as { text: string }[]).map((h) => anchor(h.text, taken) as string));
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (!target || /^[a-z]+:/.test(target)) continue;
        const [file2, hash] = target.split("#");
        if (file2) expect(existsSync(path.join(root, path.dirname(file), file2)), `${file} links to ${target}`).toBe(true);
        else if (hash) expect(anchors.has(hash), `${file} links to #${hash}`).toBe(true);
      }
    }
  });
});
