import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { GitGoodError } from "../errors.js";
import { LITERAL_PATHS, type Repo } from "./repo.js";
import { at } from "../util/at.js";

/** Where gitgood keeps the skeleton commits it writes into a repository (nothing else of the repository is touched). */
export const SKELETON_REF_PREFIX = "refs/gitgood/skeletons/";

/** A file of a tree. */
interface TreeFile {
  path: string;
  /** `100644`, `100755`, `120000` (a link), `160000` (a submodule). */
  mode: string;
  oid: string;
  /** Bytes; null for a submodule. */
  size: number | null;
}

/** Every file of the tree of `rev` with its mode, blob and size, in git's order. */
export async function treeFiles(repo: Repo, rev: string): Promise<TreeFile[]> {
  const out = (await repo.run(["ls-tree", "-r", "-l", "-z", "--full-tree", rev])).stdout.toString("utf8");
  const files: TreeFile[] = [];
  for (const entry of out.split("\0")) {
    const m = /^(\d+) (\w+) ([0-9a-f]+) +(-|\d+)\t([\s\S]+)$/.exec(entry);
    if (!m) continue;
    files.push({ mode: at(m, 1), oid: at(m, 3), size: m[4] === "-" ? null : Number(m[4]), path: at(m, 5) });
  }
  return files;
}

interface CommitReplacing {
  /** The commit whose tree is taken; it becomes the new commit's parent. */
  parent: string;
  /** Files whose content is replaced (each must be a regular file of the parent's tree). */
  files: ReadonlyMap<string, Buffer>;
  message: string;
  /** Author and committer, with a date git reads (`<seconds> <offset>`). */
  identity: { name: string; email: string; date: string };
}

/**
 * Writes a commit whose tree is `parent`'s with `files` replaced, with plumbing alone: the blobs with
 * `hash-object -w`, the tree through a temporary index file of its own (`read-tree`, `update-index`,
 * `write-tree`), the commit with `commit-tree`. HEAD, the branches, the repository's index and its work
 * tree are never touched (only objects are added). Returns the new commit.
 */
export async function commitReplacing(repo: Repo, opts: CommitReplacing): Promise<string> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), "gitgood-skeleton-"));
  const env = { ...LITERAL_PATHS, GIT_INDEX_FILE: path.join(scratch, "index") };
  try {
    const modes = new Map((await treeFiles(repo, opts.parent)).map((f) => [f.path, f.mode]));
    const paths = [...opts.files.keys()].sort();
    for (const p of paths) {
      const mode = modes.get(p);
      if (mode !== "100644" && mode !== "100755") throw new GitGoodError("INTERNAL", `${p} is not a regular file of ${opts.parent}`, { path: p });
    }
    const contents = paths.map((p, i) => {
      const file = path.join(scratch, `blob-${i}`);
      writeFileSync(file, opts.files.get(p) as Buffer);
      return file;
    });
    const hashed = paths.length === 0 ? "" : await repo.text(["hash-object", "-w", "--no-filters", "--stdin-paths"], { input: `${contents.join("\n")}\n` });
    const oids = hashed.split("\n").filter((l) => l !== "");
    if (oids.length !== paths.length) throw new GitGoodError("GIT_FAILED", "git hash-object wrote fewer blobs than it was given");
    await repo.run(["read-tree", opts.parent], { env });
    const info = paths.map((p, i) => `${modes.get(p)} ${oids[i]}\t${p}\0`).join("");
    if (info !== "") await repo.run(["update-index", "-z", "--index-info"], { env, input: info });
    const tree = (await repo.text(["write-tree"], { env })).trim();
    const who = opts.identity;
    const identity = {
      GIT_AUTHOR_NAME: who.name,
      GIT_AUTHOR_EMAIL: who.email,
      GIT_AUTHOR_DATE: who.date,
      GIT_COMMITTER_NAME: who.name,
      GIT_COMMITTER_EMAIL: who.email,
      GIT_COMMITTER_DATE: who.date,
    };
    return (await repo.text(["commit-tree", tree, "-p", opts.parent, "-F", "-"], { env: identity, input: opts.message })).trim();
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Points `ref` (it must lie under refs/gitgood/) at `oid`; no other ref is ever written this way. */
export async function setGitgoodRef(repo: Repo, ref: string, oid: string): Promise<void> {
  if (!ref.startsWith("refs/gitgood/")) throw new GitGoodError("INTERNAL", `${ref} is not a gitgood ref`);
  await repo.run(["update-ref", "--no-deref", ref, oid]);
}

/** Whether `name` is a valid last part of a ref name. */
export async function validRefPart(repo: Repo, name: string): Promise<boolean> {
  const r = await repo.run(["check-ref-format", `${SKELETON_REF_PREFIX}${name}`], { okCodes: [0, 1] });
  return r.code === 0;
}
