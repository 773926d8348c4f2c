import { readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
// The probe is plain JavaScript, shared with scripts/layers.js; the layers are read from eslint.config.js as data.
const probePath: string = path.join(root, "scripts", "layer-probe.js");
const { layerProbe } = (await import(probePath)) as {
  layerProbe(root: string): Promise<{ LAYERS: string[]; errors(folder: string, importPath: string): Promise<string[]> }>;
};
const { LAYERS, errors: layerErrors } = await layerProbe(root);
const folders = readdirSync(path.join(root, "src"), { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();

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

  it("lets only src/cli/ import commander (a family declares its options as data)", async () => {
    for (const folder of LAYERS) {
      const errors = await layerErrors(folder, "commander");
      expect(errors, folder).toHaveLength(folder === "cli" ? 0 : 1);
    }
  }, 120_000);
});
