import { existsSync, lstatSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { removeEntries } from "../util/tempdirs.js";
import { processAlive, readOwner } from "./owner.js";
import { ROOT_MARK_FILE, sandboxRoot } from "./root.js";

export { sandboxRoot } from "./root.js";

/** Kept sandboxes (made by `gitgood env`) older than this are treated as abandoned. */
const KEEP_LIMIT_MS = 7 * 24 * 3600 * 1000;

/** An unmarked folder in a root of gitgood's own older than this is a sandbox killed before its owner record was written. */
const UNMARKED_LIMIT_MS = 3600 * 1000;

/** The names `Sandbox.create` gives (`<label>-XXXXXX`, from mkdtemp). */
const SANDBOX_NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]*-[A-Za-z0-9]{6}$/;

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
 * Whether `dir` (named `name`) in a root gitgood made is a sandbox whose process was killed between
 * making its folder and writing its owner record: a real directory with a sandbox's name, no owner
 * record, untouched for UNMARKED_LIMIT_MS.
 */
function unmarkedLeftover(root: string, name: string, dir: string, now: number): boolean {
  if (!SANDBOX_NAME.test(name) || !existsSync(path.join(root, ROOT_MARK_FILE))) return false;
  try {
    const st = lstatSync(dir);
    return st.isDirectory() && readOwner(dir) === null && now - st.mtimeMs > UNMARKED_LIMIT_MS;
  } catch {
    return false;
  }
}

/**
 * Removes sandboxes left behind by runs that were killed (their process is gone), half-removed ones
 * whose removal a kill cut short, abandoned kept ones, and, in a root gitgood made itself, sandbox folders left unmarked for an hour (killed before
 * their owner record existed). Live sandboxes of other processes, and anything gitgood did not make,
 * are left alone; symbolic links are never followed. Returns the removed paths.
 */
export function sweepStale(root = sandboxRoot(), now = Date.now()): string[] {
  return removeEntries(root, (name, dir) => staleReason(dir, now) !== null || unmarkedLeftover(root, name, dir, now) || orphanTrash(root, name, dir));
}

/** A sandbox's removal in the background: `<sandbox>.removing-<pid>-<hex>` (util/cleanup.ts). */
const TRASH_NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]*-[A-Za-z0-9]{6}\.removing-(\d+)-[0-9a-f]{8}$/;

/** Whether `dir` is a sandbox whose removal in the background was cut short by its process's death, in a root gitgood made. */
function orphanTrash(root: string, name: string, dir: string): boolean {
  const pid = TRASH_NAME.exec(name)?.[1];
  if (pid === undefined || !existsSync(path.join(root, ROOT_MARK_FILE))) return false;
  try {
    return lstatSync(dir).isDirectory() && !processAlive(Number(pid));
  } catch {
    return false;
  }
}
