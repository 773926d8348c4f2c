import { mkdirSync } from "node:fs";
import path from "node:path";
import { GitGoodError } from "../errors.js";
import { runGit } from "./process.js";
import { Repo } from "./repo.js";

/*
 * Scratch copies of a source repository: a bare repository of gitgood's own holding one pinned commit's
 * history, which gitgood may write (a planted commit) while the source is only ever read.
 */

/** The branch a scratch copy holds its pinned commit on. */
export const SCRATCH_BRANCH = "main";

/**
 * Makes a bare repository at `dest` (which must not exist) holding `commit` of `source` and its history on
 * the branch `main`, and nothing else: no other ref, no remote, no alternates. `source` is a local path or a
 * `file://` URL; it is read through git's local transport without hard links (`fetch` from a path), so
 * nothing written to the copy ever reaches it.
 */
export async function copyAtCommit(source: string, commit: string, dest: string): Promise<Repo> {
  mkdirSync(path.dirname(dest), { recursive: true });
  await runGit(["init", "--quiet", "--bare", "--initial-branch", SCRATCH_BRANCH, "--", dest], { cwd: path.dirname(dest) });
  const repo = await Repo.open(dest);
  const fetched = await repo.run(
    ["-c", "protocol.version=2", "fetch", "--no-tags", "--no-write-fetch-head", "--quiet", "--", source, `+${commit}:refs/heads/${SCRATCH_BRANCH}`],
    { okCodes: [0, 1, 128] },
  );
  if (fetched.code !== 0) {
    const why = fetched.stderr.split("\n").find((l) => l.trim() !== "") ?? `git fetch exited with ${fetched.code}`;
    throw new GitGoodError("CLONE_FAILED", `cannot copy commit ${commit} of ${source}: ${why.trim()}`, { source, commit });
  }
  return repo;
}

/** The newest committer time, seconds since the epoch, of the commits `rev` reaches. */
export async function newestCommitTime(repo: Repo, rev: string): Promise<number> {
  const out = await repo.text(["log", "--format=%ct", rev, "--"]);
  return Math.max(0, ...out.split("\n").filter((l) => l !== "").map(Number));
}

/** A commit written with a fixed identity and date, so that the same input gives the same id. */
export interface PlantedCommit {
  commit: string;
  tree: string;
  blob: string;
}

/**
 * Writes a commit on top of `parent` that adds the file `file` holding `content`, authored and committed
 * by `who` at `seconds` (UTC), and points `ref` at it. The parent's tree is kept; the file is added at
 * its top level. Deterministic: the same arguments give the same ids.
 */
export async function plantCommit(
  repo: Repo,
  opts: { parent: string; ref: string; file: string; content: string; message: string; seconds: number; who: { name: string; email: string } },
): Promise<PlantedCommit> {
  if (opts.file.includes("/") || opts.file.includes("\t") || opts.file.includes("\n")) {
    throw new GitGoodError("BAD_OPTION", `a planted file is named at the top level: '${opts.file}'`);
  }
  const blob = (await repo.text(["hash-object", "-w", "--stdin"], { input: opts.content })).trim();
  const listing = await repo.text(["ls-tree", "-z", `${opts.parent}^{tree}`]);
  const entries = listing.split("\0").filter((e) => e !== "" && !e.endsWith(`\t${opts.file}`));
  entries.push(`100644 blob ${blob}\t${opts.file}`);
  const tree = (await repo.text(["mktree", "-z"], { input: `${entries.join("\0")}\0` })).trim();
  const date = `${opts.seconds} +0000`;
  const env = {
    GIT_AUTHOR_NAME: opts.who.name,
    GIT_AUTHOR_EMAIL: opts.who.email,
    GIT_AUTHOR_DATE: date,
    GIT_COMMITTER_NAME: opts.who.name,
    GIT_COMMITTER_EMAIL: opts.who.email,
    GIT_COMMITTER_DATE: date,
  };
  const commit = (await repo.text(["commit-tree", tree, "-p", opts.parent, "-F", "-"], { env, input: opts.message })).trim();
  await repo.run(["update-ref", opts.ref, commit]);
  return { commit, tree, blob };
}
