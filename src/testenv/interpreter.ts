import { realpathSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { GitGoodError } from "../errors.js";
import { execIn } from "../sandbox/exec.js";

/** A Python interpreter found on the host: the real executable, its version, and the installation an isolated program must be able to read. */
export interface Interpreter {
  executable: string;
  version: string;
  /** Directories to show read-only (the installation's prefix; nothing under the system directories is needed, but it does no harm). */
  readPaths: string[];
}

const found = new Map<string, Promise<Interpreter>>();

const PROBE = "import json, sys; print(json.dumps([sys.executable, sys.base_prefix, '%d.%d.%d' % sys.version_info[:3]]))";

/**
 * The interpreter `name` (on PATH, or a path) stands for, asked once per process: a launcher such as
 * pyenv's shims is a script that a jail cannot run, so environments are built from the real
 * executable, and its installation (`/root/.pyenv/versions/3.11.7`, say) is shown read-only.
 */
export function findInterpreter(name: string): Promise<Interpreter> {
  let p = found.get(name);
  if (!p) {
    p = probe(name);
    found.set(name, p);
    p.catch(() => found.delete(name));
  }
  return p;
}

async function probe(name: string): Promise<Interpreter> {
  const r = await execIn(os.tmpdir(), [name, "-c", PROBE], { timeout: 60 }).catch((err: unknown) => {
    throw new GitGoodError("ENV_BUILD_FAILED", `cannot run the Python interpreter '${name}': ${(err as Error).message}`, { python: name });
  });
  let parsed: unknown;
  try {
    parsed = JSON.parse(r.stdout.toString("utf8").trim());
  } catch {
    parsed = null;
  }
  if (r.code !== 0 || !Array.isArray(parsed) || parsed.length !== 3 || !parsed.every((x) => typeof x === "string" && x !== "")) {
    const why = r.stderr.toString("utf8").trim().split("\n").at(-1) ?? `exit code ${String(r.code)}`;
    throw new GitGoodError("ENV_BUILD_FAILED", `the Python interpreter '${name}' does not answer: ${why}`, { python: name });
  }
  const [exe, basePrefix, version] = parsed as [string, string, string];
  const executable = realpathSync(exe);
  const binDir = path.dirname(executable);
  const prefix = path.basename(binDir) === "bin" ? path.dirname(binDir) : binDir;
  const readPaths = [...new Set([path.resolve(basePrefix), prefix])].filter((p) => p !== path.parse(p).root);
  return { executable, version, readPaths };
}
