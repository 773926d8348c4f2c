import { mkdtempSync } from "node:fs";
import path from "node:path";
import { PackCache } from "../git/packs.js";
import { removeAtExit } from "../util/cleanup.js";
import { currentOwner, writeOwner } from "./owner.js";
import { ensureSandboxRoot } from "./root.js";
import { sandboxRoot } from "./sweep.js";

/** A run's pack cache and how to remove it. */
interface RunPacks {
  cache: PackCache;
  remove(): void;
}

/**
 * A pack cache for one run, in a directory of its own under the sandbox root (where no agent looks):
 * removed by `remove()` or at process exit, and swept like a sandbox when its process was killed.
 */
export function runPackCache(root = sandboxRoot()): RunPacks {
  const dir = mkdtempSync(path.join(ensureSandboxRoot(root), "packs-"));
  writeOwner(dir, currentOwner(false));
  return { cache: new PackCache(dir), remove: removeAtExit(dir) };
}
