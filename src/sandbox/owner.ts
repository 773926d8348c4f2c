import { randomBytes } from "node:crypto";
import { lstatSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { readRegularFile } from "../util/files.js";

export { processAlive } from "../util/processes.js";

/** Name of the file in every sandbox that says who made it and whether it may outlive its process. */
export const OWNER_FILE = "owner.json";

/**
 * The mark in every owner record. Only a directory whose owner record carries it is a sandbox: the
 * sweeper removes nothing else, so a sandbox root that holds other folders ($HOME, say) loses none.
 */
const SANDBOX_MARK = "gitgood-sandbox/1";

interface Owner {
  pid: number;
  host: string;
  /** Milliseconds since the epoch. */
  created: number;
  /**
   * A kept sandbox belongs to a person or a shell-driven agent (`gitgood env`), not to a process: it
   * lives until `gitgood env --finish`, or until it is older than the keep limit.
   */
  kept: boolean;
}

/** Writes the owner record whole (a temporary sibling renamed into place), never through a link. */
export function writeOwner(dir: string, owner: Owner): void {
  const file = path.join(dir, OWNER_FILE);
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  writeFileSync(tmp, `${JSON.stringify({ mark: SANDBOX_MARK, ...owner })}\n`, { flag: "wx" });
  try {
    renameSync(tmp, file);
  } catch (err) {
    unlinkSync(tmp);
    throw err;
  }
}

export function currentOwner(kept: boolean): Owner {
  return { pid: process.pid, host: os.hostname(), created: Date.now(), kept };
}

/**
 * The owner record of a sandbox directory, or null when `dir` is not a sandbox: not a real directory
 * (a symbolic link is never followed), no owner record, or a record without the sandbox mark.
 */
export function readOwner(dir: string): Owner | null {
  try {
    if (!lstatSync(dir).isDirectory()) return null;
  } catch {
    return null;
  }
  const text = readRegularFile(path.join(dir, OWNER_FILE));
  if (text === null) return null;
  try {
    const value = JSON.parse(text) as Partial<Owner> & { mark?: unknown };
    if (value.mark !== SANDBOX_MARK || typeof value.pid !== "number" || typeof value.created !== "number") return null;
    return { pid: value.pid, host: String(value.host ?? ""), created: value.created, kept: value.kept === true };
  } catch {
    return null;
  }
}
