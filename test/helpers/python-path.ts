// Runs once before the suite: when `python3` on PATH is a version manager's shim (pyenv's is a bash script that
// starts a dozen programs to pick the interpreter, ~0.6 s of process starts per call on a small VM), the
// interpreter it picks goes first on PATH, so the tests' scripts and the processes they start run that same
// Python directly. Without a shim this changes nothing. Workers inherit this process's environment.
import { spawnSync } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import path from "node:path";

/** The directory on PATH holding the first `python3`, or null. */
function firstOnPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (dir && existsSync(path.join(dir, name))) return dir;
  }
  return null;
}

export default function pythonFirstOnPath(): void {
  const onPath = firstOnPath("python3");
  if (onPath === null) return;
  const r = spawnSync("python3", ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" });
  const exe = r.status === 0 ? r.stdout.trim() : "";
  if (!path.isAbsolute(exe) || !existsSync(exe)) return;
  const dir = path.dirname(exe);
  // The interpreter is the one on PATH already (no shim between): nothing to do.
  if (realpathSync(path.join(onPath, "python3")) === realpathSync(exe)) return;
  process.env.PATH = `${dir}${path.delimiter}${process.env.PATH ?? ""}`;
}
