import { copyFileSync, rmSync } from "node:fs";
import type { Repo } from "./repo.js";

/** Hidden refs that make every object of a store reachable while a bundle is written; removed afterwards. */
const KEEP_PREFIX = "refs/gitgood-bundle";

function nulSplit(out: Buffer): string[] {
  return out
    .toString("utf8")
    .split("\0")
    .filter((p) => p !== "");
}

/**
 * Writes `file`, a git bundle of every object in `repo`'s store and no other: what its refs reach, and
 * also what only the index or a merge or rebase in progress names (MERGE_HEAD, the auto-merged blobs of
 * a conflicted merge). Those are made reachable for the bundle's sake by hidden refs: the commits each by
 * a ref of its own, the trees and blobs by one tree that lists them all, and the refs are deleted
 * afterwards. A shallow store gives a bundle without prerequisites that unbundles into a repository
 * holding the same `shallow` file. The bundle's own ref list is not meant to be used: `git bundle
 * unbundle` writes the objects and no ref.
 */
export async function bundleEveryObject(repo: Repo, file: string): Promise<void> {
  const listed = await repo.text(["cat-file", "--batch-all-objects", "--batch-check=%(objecttype) %(objectname)"]);
  const entries: string[] = [];
  const commits: string[] = [];
  for (const line of listed.split("\n")) {
    const [type, oid] = line.split(" ");
    if (!oid) continue;
    if (type === "blob") entries.push(`100644 blob ${oid}\t${oid}`);
    else if (type === "tree") entries.push(`040000 tree ${oid}\t${oid}`);
    else if (type === "commit") commits.push(oid);
  }
  const reached = new Set((await repo.text(["rev-list", "--all"])).split("\n"));
  const refs: [string, string][] = commits.filter((c) => !reached.has(c)).map((c, i) => [`${KEEP_PREFIX}/commit-${i}`, c]);
  if (entries.length > 0) {
    const keep = (await repo.text(["mktree", "--missing"], { input: `${entries.join("\n")}\n` })).trim();
    refs.push([`${KEEP_PREFIX}/objects`, keep]);
  }
  const update = (verb: "create" | "delete"): string => refs.map(([ref, oid]) => (verb === "create" ? `create ${ref} ${oid}\n` : `delete ${ref}\n`)).join("");
  await repo.run(["update-ref", "--stdin"], { input: update("create") });
  try {
    await repo.run(["bundle", "create", "-q", file, "--all"]);
  } finally {
    await repo.run(["update-ref", "--stdin"], { input: update("delete") });
  }
}

/** The object format of `repo` (`sha1` or `sha256`), which a repository the bundle goes into must share. */
export async function objectFormat(repo: Repo): Promise<string> {
  return (await repo.text(["rev-parse", "--show-object-format"])).trim();
}

/**
 * How the work tree differs from the index: `changed` lists files whose content is not the index's
 * (modified, conflicted, or untracked and not ignored), `deleted` the index's files missing from the
 * work tree. Each path once, sorted.
 */
export async function workTreeDelta(repo: Repo): Promise<{ changed: string[]; deleted: string[] }> {
  const changed = nulSplit((await repo.run(["ls-files", "-z", "--modified", "--others", "--exclude-standard"])).stdout);
  const deleted = new Set(nulSplit((await repo.run(["ls-files", "-z", "--deleted"])).stdout));
  return {
    changed: [...new Set(changed)].filter((p) => !deleted.has(p)).sort(),
    deleted: [...deleted].sort(),
  };
}

/**
 * The tree the work tree would commit as it is (`git add -A` into a copy of the index at `scratchIndex`,
 * then `write-tree`); conflicts count as resolved by the files' content. The index itself is untouched.
 */
export async function workTreeAsTree(repo: Repo, scratchIndex: string): Promise<string> {
  copyFileSync(`${repo.gitDir}/index`, scratchIndex);
  try {
    const env = { GIT_INDEX_FILE: scratchIndex };
    await repo.run(["add", "-A", "--", "."], { env });
    return (await repo.text(["write-tree"], { env })).trim();
  } finally {
    rmSync(scratchIndex, { force: true });
  }
}
