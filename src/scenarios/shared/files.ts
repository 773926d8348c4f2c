import { lstatSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { GitGoodError } from "../../errors.js";
import { checkRelativePath } from "../../sandbox/paths.js";
import type { Sandbox } from "../../sandbox/sandbox.js";
import { usesCrlf } from "./lines.js";
import type { FileContent } from "../types.js";

/** Reads a work-tree file for the agent, after checking the path stays in the project. */
export function showFile(sandbox: Sandbox, given: string): string {
  const rel = checkRelativePath(sandbox.workDir, given);
  const full = path.join(sandbox.workDir, rel);
  let stat;
  try {
    stat = lstatSync(full);
  } catch {
    throw new GitGoodError("NOT_FOUND", `there is no file ${rel} in the project`, { path: rel });
  }
  if (stat.isDirectory()) throw new GitGoodError("NOT_A_FILE", `${rel} is a directory, not a file`, { path: rel });
  return describeFile(rel, readFileSync(full));
}

/** A file's bytes as `view_file_at` shows them: a header line, then the text with line breaks as LF. */
export function describeFile(rel: string, bytes: Buffer): string {
  if (bytes.includes(0)) return `[gitgood] ${rel} is a binary file of ${bytes.length} bytes; it cannot be shown`;
  const lines = bytes.length === 0 ? 0 : bytes.toString("utf8").split("\n").length - (bytes[bytes.length - 1] === 0x0a ? 1 : 0);
  const eol = usesCrlf(bytes) ? "CRLF (\\r\\n)" : "LF (\\n)";
  const head = `[gitgood] ${rel}: ${lines} line(s), ${bytes.length} bytes, line endings ${eol}`;
  return `${head}\n${bytes.toString("utf8").replace(/\r\n/g, "\n")}`;
}

/** A file's current bytes for a final state. */
export function fileContent(workDir: string, rel: string): FileContent {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path.join(workDir, rel));
  } catch {
    return { path: rel, content: null, encoding: "utf8" };
  }
  const text = bytes.toString("utf8");
  return Buffer.from(text, "utf8").equals(bytes)
    ? { path: rel, content: text, encoding: "utf8" }
    : { path: rel, content: bytes.toString("base64"), encoding: "base64" };
}

/** Writes text to a private file of the sandbox (a commit message, say) and returns its path. */
export function privateText(sandbox: Sandbox, name: string, text: string): string {
  const file = sandbox.privatePath(name);
  writeFileSync(file, text, "utf8");
  return file;
}
