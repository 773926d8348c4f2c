import { writeFileSync } from "node:fs";
import path from "node:path";
import { GitGoodError } from "../../errors.js";
import {
  checkRelativePath,
  entryKind,
  projectPath,
  readProjectFile,
  readProjectLink,
  type ProjectPath,
} from "../../sandbox/paths.js";
import type { Sandbox } from "../../sandbox/sandbox.js";
import { usesCrlf } from "./lines.js";
import type { FileContent } from "../types.js";

/** Where a link's target leads, judged from its text alone (the link is never followed). */
function linkDestination(p: ProjectPath, target: string): string {
  const joined = path.posix.normalize(path.posix.join(path.posix.dirname(p.bytes.toString("utf8")), target));
  if (path.posix.isAbsolute(target) || joined === ".." || joined.startsWith("../")) return "outside the project root";
  if (joined.split("/").some((c) => c.toLowerCase() === ".git")) return "into .git, which is not part of the project";
  return `to ${joined} in the project; view that path instead`;
}

/**
 * Reads a work-tree file for the agent, after checking the path stays in the project. A symbolic link
 * is never read through: the answer names its target and where that leads.
 */
export function showFile(sandbox: Sandbox, given: string): string {
  const root = sandbox.workDir;
  const p = checkRelativePath(root, given);
  const rel = p.shown;
  const kind = entryKind(root, p);
  if (kind === "missing") throw new GitGoodError("NOT_FOUND", `there is no file ${rel} in the project`, { path: rel });
  if (kind === "directory") throw new GitGoodError("NOT_A_FILE", `${rel} is a directory, not a file`, { path: rel });
  if (kind === "link") {
    const target = readProjectLink(root, p).toString("utf8");
    throw new GitGoodError(
      "SYMLINK_REFUSED",
      `${rel} is a symbolic link to ${JSON.stringify(target)} (${linkDestination(p, target)}); the tools never read through links`,
      { path: rel },
    );
  }
  return describeFile(rel, readProjectFile(root, p));
}

/** A file's bytes as `view_file_at` shows them: a header line, then the text with line breaks as LF. */
export function describeFile(rel: string, bytes: Buffer): string {
  if (bytes.includes(0)) return `[gitgood] ${rel} is a binary file of ${bytes.length} bytes; it cannot be shown`;
  const lines = bytes.length === 0 ? 0 : bytes.toString("utf8").split("\n").length - (bytes[bytes.length - 1] === 0x0a ? 1 : 0);
  const eol = usesCrlf(bytes) ? "CRLF (\\r\\n)" : "LF (\\n)";
  const head = `[gitgood] ${rel}: ${lines} line(s), ${bytes.length} bytes, line endings ${eol}`;
  return `${head}\n${bytes.toString("utf8").replace(/\r\n/g, "\n")}`;
}

/**
 * A path's current content for a final state, as git would store it: a regular file's bytes, a
 * symbolic link's target text (never what it points to); null when there is neither (or the path
 * goes through a link). `rel` is a path notation.
 */
export function fileContent(workDir: string, rel: string): FileContent {
  const p = projectPath(rel);
  let bytes: Buffer | null = null;
  try {
    const kind = entryKind(workDir, p);
    if (kind === "link") bytes = readProjectLink(workDir, p);
    else if (kind === "file") bytes = readProjectFile(workDir, p);
  } catch {
    bytes = null;
  }
  return bytesContent(rel, bytes);
}

/** A file's bytes (null: gone) as a final state holds them: UTF-8 text, or base64 when they are not valid UTF-8. */
export function bytesContent(rel: string, bytes: Buffer | null): FileContent {
  if (bytes === null) return { path: rel, content: null, encoding: "utf8" };
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
