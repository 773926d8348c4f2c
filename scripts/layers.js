#!/usr/bin/env node
// The layers of src/, measured: `node scripts/layers.js` prints which folders each folder imports (the
// diagram in ARCHITECTURE.md), then lints, in every folder, a probe file importing the folder just above
// it and one importing the folder just below, and prints what lint says. Exit 1 when a probe upward
// passes lint or a probe downward fails it.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { layerProbe } from "./layer-probe.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { LAYERS, errors } = await layerProbe(root);

/** Every .ts file below a directory. */
function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : e.name.endsWith(".ts") ? [p] : [];
  });
}

/** The folders of src/ each folder imports from, in layer order. */
function measured() {
  const edges = new Map(LAYERS.map((f) => [f, new Set()]));
  for (const file of sources(path.join(root, "src"))) {
    const rel = path.relative(path.join(root, "src"), file).split(path.sep);
    if (rel.length < 2) continue;
    const [folder] = rel;
    for (const m of readFileSync(file, "utf8").matchAll(/from "((?:\.\.\/)+)(\w+)(?:\/|\.js")/g)) {
      const up = m[1].length / 3;
      if (up === rel.length - 1 && m[2] !== folder) edges.get(folder)?.add(m[2]);
    }
  }
  return LAYERS.map((f) => [f, [...(edges.get(f) ?? [])].sort((a, b) => LAYERS.indexOf(a) - LAYERS.indexOf(b))]);
}

async function probe(folder, target) {
  return (await errors(folder, `../${target}/x.js`)).length;
}

console.log("Imports between folders (measured):");
for (const [folder, deps] of measured()) console.log(`  ${folder.padEnd(10)} → ${deps.length > 0 ? deps.join(", ") : "(nothing)"}`);

console.log("\nProbe imports, linted in every folder:");
let wrong = 0;
for (const [i, folder] of LAYERS.entries()) {
  const above = LAYERS[i + 1];
  const below = LAYERS[i - 1];
  const up = above ? await probe(folder, above) : null;
  const down = below ? await probe(folder, below) : null;
  if (up === 0 || (down ?? 0) > 0) wrong++;
  const say = (n, t) => (n === null ? "" : `${t}: ${n > 0 ? "refused" : "allowed"}`);
  console.log(`  ${folder.padEnd(10)} ${[say(up, `↑ ${above}`), say(down, `↓ ${below}`)].filter(Boolean).join("   ")}`);
}
console.log(wrong === 0 ? "\nevery folder refuses the folder above it and allows the one below" : `\n${wrong} folder(s) break the layer order`);
process.exit(wrong === 0 ? 0 : 1);
