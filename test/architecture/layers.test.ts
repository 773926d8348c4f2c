import { readdirSync } from "node:fs";
import path from "node:path";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
// The lint configuration is plain JavaScript; the list of layers is read from it as data.
const configPath: string = path.join(root, "eslint.config.js");
const { LAYERS } = (await import(configPath)) as { LAYERS: string[] };
const folders = readdirSync(path.join(root, "src"), { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();

// The probe is linted as text at a path that does not exist, so the type-aware rules (which need the file in the
// TypeScript project) are turned off for it; the layer rules need no types.
const eslint = new ESLint({
  cwd: root,
  overrideConfig: {
    languageOptions: { parserOptions: { projectService: false } },
    rules: {
      "@typescript-eslint/no-floating-promises": "off",
      "@typescript-eslint/no-misused-promises": "off",
      "@typescript-eslint/no-unnecessary-type-assertion": "off",
      "@typescript-eslint/switch-exhaustiveness-check": "off",
    },
  },
});

async function layerErrors(folder: string, importPath: string): Promise<string[]> {
  const code = `import * as probe from "${importPath}";\nexport const used = probe;\n`;
  const [result] = await eslint.lintText(code, { filePath: path.join(root, "src", folder, "layer-probe.ts") });
  return (result?.messages ?? []).filter((m) => m.ruleId === "no-restricted-imports").map((m) => m.message);
}

describe("the layers of src/", () => {
  it("lists every folder of src/ exactly once", () => {
    expect(new Set(LAYERS).size).toBe(LAYERS.length);
    expect([...LAYERS].sort()).toEqual(folders);
  });

  it("refuses in every folder an import of any folder above it, and allows the one below", async () => {
    for (const [i, folder] of LAYERS.entries()) {
      const above = LAYERS[i + 1];
      if (above !== undefined) {
        expect(await layerErrors(folder, `../${above}/x.js`), `${folder} importing ${above}`).toHaveLength(1);
        expect(await layerErrors(folder, "../cli/main.js"), `${folder} importing cli`).toHaveLength(folder === "cli" ? 0 : 1);
      }
      const below = LAYERS[i - 1];
      if (below !== undefined) expect(await layerErrors(folder, `../${below}/x.js`), `${folder} importing ${below}`).toEqual([]);
    }
  }, 120_000);

  it("lets only src/git/ and src/sandbox/ start processes", async () => {
    for (const folder of LAYERS) {
      const errors = await layerErrors(folder, "node:child_process");
      expect(errors, folder).toHaveLength(folder === "git" || folder === "sandbox" ? 0 : 1);
    }
  }, 120_000);
});
