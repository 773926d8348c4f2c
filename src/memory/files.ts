import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { GitGoodError } from "../errors.js";

export function readText(file: string): string | null {
  try {
    return readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new GitGoodError("READ_FAILED", `cannot read ${file}: ${(err as Error).message}`, { file });
  }
}

/** Writes a file whole or not at all (a temporary sibling renamed into place), creating folders. */
export function writeText(file: string, text: string): void {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(tmp, text);
    renameSync(tmp, file);
  } catch (err) {
    throw new GitGoodError("WRITE_FAILED", `cannot write ${file}: ${(err as Error).message}`, { file });
  }
}
