import { errnoCode } from "./errno.js";

/** True when a process with this id runs on this machine (or cannot be signalled by us, which means it exists). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return errnoCode(err) === "EPERM";
  }
}
