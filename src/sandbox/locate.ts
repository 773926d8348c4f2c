import { readdirSync } from "node:fs";
import path from "node:path";
import { GitGoodError } from "../errors.js";
import { readOwner } from "./owner.js";
import { sandboxRoot } from "./sweep.js";
import { at } from "../util/at.js";

/** Environment variable that names the live sandbox for `gitgood tool` and `gitgood env --finish`. */
export const SANDBOX_ENV = "GITGOOD_SANDBOX";

/** Kept (CLI) sandboxes under the root, newest first. */
function keptSandboxes(root = sandboxRoot()): string[] {
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return [];
  }
  return names
    .map((n) => path.join(root, n))
    .map((dir) => ({ dir, owner: readOwner(dir) }))
    .filter((x) => x.owner?.kept)
    .sort((a, b) => (b.owner?.created ?? 0) - (a.owner?.created ?? 0))
    .map((x) => x.dir);
}

/**
 * The sandbox a CLI call means: the one given, else `$GITGOOD_SANDBOX`, else the only kept sandbox
 * under the sandbox root. Several candidates and none given is an error that lists them.
 */
export function locateSandbox(given?: string): string {
  if (given && given.trim() !== "") return path.resolve(given);
  const fromEnv = process.env[SANDBOX_ENV];
  if (fromEnv && fromEnv.trim() !== "") return path.resolve(fromEnv);
  const kept = keptSandboxes();
  if (kept.length === 1) return at(kept, 0);
  if (kept.length === 0) {
    throw new GitGoodError("NO_SANDBOX", "no live scenario: set one up with 'gitgood env <samples.jsonl> --id ID --repo PATH'");
  }
  throw new GitGoodError(
    "NO_SANDBOX",
    `${kept.length} live scenarios; choose one with --sandbox DIR or ${SANDBOX_ENV}: ${kept.join(", ")}`,
    { sandboxes: kept },
  );
}
