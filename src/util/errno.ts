/** The `code` of a Node.js system error (`ENOENT`, `EEXIST`, …), or undefined for anything else. */
export function errnoCode(err: unknown): string | undefined {
  if (typeof err !== "object" || err === null || !("code" in err)) return undefined;
  const code = err.code;
  return typeof code === "string" ? code : undefined;
}

/** What the common file-system errors mean, in the words a user reads in a one-line error. */
const REASONS: Readonly<Record<string, string>> = {
  ENOENT: "no such file or directory",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EISDIR: "it is a directory",
  ENOTDIR: "a part of the path is not a directory",
  ELOOP: "too many symbolic links",
  ENAMETOOLONG: "the name is too long",
  ENOSPC: "no space left on the device",
  EROFS: "the file system is read-only",
  EMFILE: "too many open files",
  EEXIST: "it already exists",
};

/** Why a file-system call failed, for a one-line error: the words for a known code, else the code, else the message. */
export function fsReason(err: unknown): string {
  const code = errnoCode(err);
  if (code !== undefined) return REASONS[code] ?? code;
  return err instanceof Error ? err.message : String(err);
}
