import { readdirSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { processAlive, readOwner } from "./owner.js";

/** Kept sandboxes (made by `gitgood env`) older than this are treated as abandoned. */
export const KEEP_LIMIT_MS = 7 * 24 * 3600 * 1000;
/** A directory without an owner record is a sandbox whose creation was interrupted, once this old. */
const ORPHAN_GRACE_MS = 10 * 60 * 1000;

/** The directory sandboxes live in: `$GITGOOD_SANDBOX_ROOT`, else `<tmp>/gitgood-sandboxes`. */
export function sandboxRoot(): string {
  const fromEnv = process.env.GITGOOD_SANDBOX_ROOT;
  return path.resolve(fromEnv && fromEnv.trim() !== "" ? fromEnv : path.join(os.tmpdir(), "gitgood-sandboxes"));
}

/** Why a sandbox directory is stale, or null when it may still be in use. */
export function staleReason(dir: string, now = Date.now()): string | null {
  const owner = readOwner(dir);
  if (!owner) {
    let age = 0;
    try {
      age = now - statSync(dir).mtimeMs;
    } catch {
      return null;
    }
    return age > ORPHAN_GRACE_MS ? "no owner record" : null;
  }
  if (now - owner.created > KEEP_LIMIT_MS) return "older than the keep limit";
  if (owner.kept || owner.host !== os.hostname()) return null;
  return processAlive(owner.pid) ? null : `its process ${owner.pid} is gone`;
}

/**
 * Removes sandboxes left behind by runs that were killed (their process is gone), half-made ones and
 * abandoned kept ones. Live sandboxes of other processes are left alone. Returns the removed paths.
 */
export function sweepStale(root = sandboxRoot(), now = Date.now()): string[] {
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const dir = path.join(root, name);
    try {
      if (!statSync(dir).isDirectory()) continue;
    } catch {
      continue;
    }
    if (staleReason(dir, now) === null) continue;
    try {
      rmSync(dir, { recursive: true, force: true });
      removed.push(dir);
    } catch {
      /* another process may be removing it at the same time */
    }
  }
  return removed;
}
