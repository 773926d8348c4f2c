import os from "node:os";
import path from "node:path";
import { removeEntries } from "../util/tempdirs.js";
import { processAlive, readOwner } from "./owner.js";

/** Kept sandboxes (made by `gitgood env`) older than this are treated as abandoned. */
export const KEEP_LIMIT_MS = 7 * 24 * 3600 * 1000;

/** The directory sandboxes live in: `$GITGOOD_SANDBOX_ROOT`, else `<tmp>/gitgood-sandboxes`. */
export function sandboxRoot(): string {
  const fromEnv = process.env.GITGOOD_SANDBOX_ROOT;
  return path.resolve(fromEnv && fromEnv.trim() !== "" ? fromEnv : path.join(os.tmpdir(), "gitgood-sandboxes"));
}

/**
 * Why a sandbox directory is stale, or null when it may still be in use or is not a sandbox at all.
 * Only a real directory (not a symbolic link) with a marked owner record is a sandbox.
 */
export function staleReason(dir: string, now = Date.now()): string | null {
  const owner = readOwner(dir);
  if (!owner) return null;
  if (now - owner.created > KEEP_LIMIT_MS) return "older than the keep limit";
  if (owner.kept || owner.host !== os.hostname()) return null;
  return processAlive(owner.pid) ? null : `its process ${owner.pid} is gone`;
}

/**
 * Removes sandboxes left behind by runs that were killed (their process is gone) and abandoned kept
 * ones. Live sandboxes of other processes, and anything gitgood did not make and mark, are left
 * alone; symbolic links are never followed. Returns the removed paths.
 */
export function sweepStale(root = sandboxRoot(), now = Date.now()): string[] {
  return removeEntries(root, (_name, dir) => staleReason(dir, now) !== null);
}
