import { readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/** Name of the file in every sandbox that says who made it and whether it may outlive its process. */
export const OWNER_FILE = "owner.json";

export interface Owner {
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

export function writeOwner(dir: string, owner: Owner): void {
  writeFileSync(path.join(dir, OWNER_FILE), `${JSON.stringify(owner)}\n`);
}

export function currentOwner(kept: boolean): Owner {
  return { pid: process.pid, host: os.hostname(), created: Date.now(), kept };
}

/** The owner record of a sandbox directory, or null when it is missing or unreadable. */
export function readOwner(dir: string): Owner | null {
  try {
    const value = JSON.parse(readFileSync(path.join(dir, OWNER_FILE), "utf8")) as Partial<Owner>;
    if (typeof value.pid !== "number" || typeof value.created !== "number") return null;
    return { pid: value.pid, host: String(value.host ?? ""), created: value.created, kept: value.kept === true };
  } catch {
    return null;
  }
}

/** True when a process with this id runs on this machine (or cannot be signalled by us, which means it exists). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
