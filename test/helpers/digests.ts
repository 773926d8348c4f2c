import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

/** Every file below `dir`, by relative path, with its bytes' digest: two builds compare equal when they wrote the same bytes. */
export function treeDigests(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (at: string): void => {
    for (const name of readdirSync(at, { withFileTypes: true })) {
      const p = path.join(at, name.name);
      if (name.isDirectory()) walk(p);
      else out[path.relative(dir, p)] = createHash("sha256").update(readFileSync(p)).digest("hex");
    }
  };
  walk(dir);
  return out;
}
