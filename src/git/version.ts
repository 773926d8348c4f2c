import { GitGoodError } from "../errors.js";
import { runGit } from "./process.js";

/** The version of the git on PATH, as numbers and as it printed it. */
export interface GitVersion {
  major: number;
  minor: number;
  patch: number;
  text: string;
}

const MIN_GIT: Readonly<GitVersion> = { major: 2, minor: 38, patch: 0, text: "2.38.0" };

export function parseGitVersion(output: string): GitVersion | null {
  const m = /git version (\d+)\.(\d+)(?:\.(\d+))?/.exec(output);
  if (!m) return null;
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3] ?? 0), text: output.trim() };
}

export function atLeast(v: GitVersion, major: number, minor: number): boolean {
  return v.major > major || (v.major === major && v.minor >= minor);
}

let cached: Promise<GitVersion> | undefined;

/** The git on PATH, checked once per process: it must exist and be at least 2.38. */
export function gitVersion(): Promise<GitVersion> {
  cached ??= (async () => {
    const { stdout } = await runGit(["version"], { cwd: process.cwd() });
    const v = parseGitVersion(stdout.toString("utf8"));
    if (!v) throw new GitGoodError("GIT_NOT_FOUND", "could not read the version of git on PATH");
    if (!atLeast(v, MIN_GIT.major, MIN_GIT.minor)) {
      throw new GitGoodError(
        "GIT_TOO_OLD",
        `git ${v.major}.${v.minor}.${v.patch} is too old: gitgood needs git ${MIN_GIT.text} or newer (for merge-tree --write-tree)`,
        { found: v.text },
      );
    }
    return v;
  })();
  return cached;
}
