// The layer probe that scripts/layers.js and test/architecture/layers.test.ts share: the layers as
// eslint.config.js lists them, and a linter that lints a one-line import as if it were a file of a folder
// of src/, returning the layer rule's messages.
import path from "node:path";
import { ESLint } from "eslint";

/** `LAYERS` of the repository at `root`, and `errors(folder, importPath)`: what the layer rule says of that import there. */
export async function layerProbe(root) {
  const { LAYERS } = await import(path.join(root, "eslint.config.js"));
  // The probe is linted as text at a path that does not exist, so the type-aware rules (which need the file
  // in the TypeScript project) are turned off for it; the layer rules need no types.
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
  async function errors(folder, importPath) {
    const code = `import * as probe from "${importPath}";\nexport const used = probe;\n`;
    const [result] = await eslint.lintText(code, { filePath: path.join(root, "src", folder, "layer-probe.ts") });
    return (result?.messages ?? []).filter((m) => m.ruleId === "no-restricted-imports").map((m) => m.message);
  }
  return { LAYERS, errors };
}
