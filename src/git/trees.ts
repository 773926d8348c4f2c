import type { Repo } from "./repo.js";

/** The tree of a revision. */
export async function treeOf(repo: Repo, rev: string): Promise<string> {
  return (await repo.text(["rev-parse", `${rev}^{tree}`])).trim();
}

/** The bytes of `file` at `rev`, or null when the revision has no such file. */
export async function readBlob(repo: Repo, rev: string, file: string): Promise<Buffer | null> {
  const r = await repo.run(["cat-file", "blob", `${rev}:${file}`], { okCodes: [0, 128] });
  return r.code === 0 ? r.stdout : null;
}

/** Every file path of the tree of `rev`, in git's order. */
export async function listFiles(repo: Repo, rev: string): Promise<string[]> {
  const out = await repo.run(["ls-tree", "-r", "-z", "--name-only", rev]);
  return out.stdout.toString("utf8").split("\0").filter(Boolean);
}

/**
 * The number of lines at `rev` that match `pattern` (a regular expression as `git grep -e` reads it),
 * over the text files the pathspecs select, in one `git grep`.
 */
export async function countMatchingLines(repo: Repo, rev: string, pattern: string, pathspecs: readonly string[]): Promise<number> {
  const r = await repo.run(["grep", "--count", "-I", "-z", "-e", pattern, rev, "--", ...pathspecs], { okCodes: [0, 1] });
  let total = 0;
  for (const line of r.stdout.toString("utf8").split("\n")) {
    const nul = line.lastIndexOf("\0");
    if (nul !== -1) total += Number(line.slice(nul + 1)) || 0;
  }
  return total;
}
