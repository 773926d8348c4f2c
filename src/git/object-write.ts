import { createHash, randomBytes } from "node:crypto";
import { closeSync, existsSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import path from "node:path";
import { deflateSync } from "node:zlib";
import { usesSha256 } from "./index-file.js";

/** The kinds of object gitgood writes itself. */
type WrittenKind = "blob" | "tree" | "commit";

/** The SHA-1 id git gives `content` as an object of `kind`: the hash of `kind size\0content`. */
export function objectId(kind: WrittenKind, content: Buffer): string {
  return createHash("sha1").update(`${kind} ${content.length}\0`).update(content).digest("hex");
}

/**
 * Whether gitgood writes objects into the git directory `gitDir` itself: only a repository that names
 * its objects with SHA-1 (one with SHA-256 is left to git).
 */
export function writesObjects(gitDir: string): boolean {
  return !usesSha256(gitDir);
}

/**
 * Writes `content` as a loose object of `kind` into the object store of `gitDir`, as git does: the
 * zlib-deflated `kind size\0content` under `objects/xx/yyyy…`, written to a new temporary file in the
 * same folder and renamed into place (a reader never sees half an object). An object already there is
 * left alone. Returns the object's id. Only for a SHA-1 repository of gitgood's own (`writesObjects`).
 */
export function writeLooseObject(gitDir: string, kind: WrittenKind, content: Buffer): string {
  const oid = objectId(kind, content);
  const dir = path.join(gitDir, "objects", oid.slice(0, 2));
  const file = path.join(dir, oid.slice(2));
  if (existsSync(file)) return oid;
  mkdirSync(dir, { recursive: true });
  const temp = path.join(dir, `tmp_obj_${randomBytes(6).toString("hex")}`);
  const fd = openSync(temp, "wx", 0o444);
  try {
    writeSync(fd, deflateSync(Buffer.concat([Buffer.from(`${kind} ${content.length}\0`), content])));
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(temp, file);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
  return oid;
}
