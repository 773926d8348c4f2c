import { lstatSync, mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { GitGoodError } from "../errors.js";
import { errnoCode, fsReason } from "../util/errno.js";

/** Environment variable that moves the sandbox root. */
const SANDBOX_ROOT_ENV = "GITGOOD_SANDBOX_ROOT";

/**
 * The file gitgood leaves in a sandbox root it made itself. Only in such a root are unmarked folders
 * (a sandbox killed before its owner record was written) swept: a root the user named may hold folders
 * of their own.
 */
export const ROOT_MARK_FILE = ".gitgood-sandbox-root";

function uid(): number | null {
  return typeof process.getuid === "function" ? process.getuid() : null;
}

/**
 * The directory sandboxes live in: `$GITGOOD_SANDBOX_ROOT`, else the user's own `$XDG_RUNTIME_DIR/gitgood`,
 * else `<tmp>/gitgood-<uid>` (never one folder that every user of the machine shares).
 */
export function sandboxRoot(): string {
  const fromEnv = process.env[SANDBOX_ROOT_ENV];
  if (fromEnv && fromEnv.trim() !== "") return path.resolve(fromEnv);
  const runtime = process.env.XDG_RUNTIME_DIR;
  if (runtime && path.isAbsolute(runtime)) return path.join(runtime, "gitgood");
  const me = uid();
  return path.join(os.tmpdir(), me === null ? `gitgood-${os.userInfo().username}` : `gitgood-${me}`);
}

/** Why `root` is not this user's to keep sandboxes in, or null when it is. */
function rootProblem(root: string): string | null {
  let st;
  try {
    st = lstatSync(root);
  } catch (err) {
    return `it cannot be read (${fsReason(err)})`;
  }
  if (st.isSymbolicLink()) return "it is a symbolic link";
  if (!st.isDirectory()) return "it is not a directory";
  const me = uid();
  if (me !== null && st.uid !== me) return `it belongs to uid ${st.uid}, not to you (uid ${me})`;
  if ((st.mode & 0o022) !== 0) return `others may write in it (mode ${(st.mode & 0o777).toString(8).padStart(4, "0")})`;
  return null;
}

/**
 * Makes the sandbox root if it is missing (mode 0700, marked as gitgood's), then checks that it is the
 * user's own: a real directory (not a symbolic link), owned by the user, writable by no one else. A
 * root someone else made or can change is refused in one line, before anything is put in it.
 */
export function ensureSandboxRoot(root: string): string {
  const abs = path.resolve(root);
  mkdirSync(path.dirname(abs), { recursive: true, mode: 0o700 });
  let made = false;
  try {
    mkdirSync(abs, { mode: 0o700 });
    made = true;
  } catch (err) {
    if (errnoCode(err) !== "EEXIST") {
      throw new GitGoodError("SANDBOX_ROOT_REFUSED", `cannot make the sandbox root ${abs}: ${fsReason(err)}`, { root: abs });
    }
  }
  const why = rootProblem(abs);
  if (why !== null) {
    throw new GitGoodError(
      "SANDBOX_ROOT_REFUSED",
      `the sandbox root ${abs} is refused: ${why}; remove it, or set ${SANDBOX_ROOT_ENV} to a directory of your own`,
      { root: abs },
    );
  }
  if (made) writeFileSync(path.join(abs, ROOT_MARK_FILE), "gitgood made this directory for its sandboxes\n", { flag: "wx" });
  return abs;
}
