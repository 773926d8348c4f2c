import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { GitGoodError } from "../errors.js";
import { headBranch } from "./commit-write.js";
import type { IndexRecord } from "./index-file.js";
import { indexFileBytes, indexOrder, writeIndexFile } from "./index-write.js";
import { writesObjects } from "./object-write.js";
import { absent, isRealDir, knownSettings, makeRealFolders, readWholeTree, treeExtension, unwrittenStat, writeNewFile, writtenCheckout, type CachedTree } from "./own-checkout.js";
import { MERGE_CONFIG, type Repo } from "./repo.js";
import { attributesKeepBytes } from "./stored-bytes.js";

/*
 * `git merge --no-ff --no-commit -q COMMIT` on a tool-only sandbox just checked out (own-checkout.ts),
 * made of one `git merge-tree --write-tree` (the merge itself, by git: the same merge machinery, labels
 * and result tree) and files gitgood writes as `git merge` would leave them when it stops on conflicts:
 * the index (the result's files skip-worktree, each conflicted path's stages, git's cache of trees with
 * the conflicted paths' folders to be written again), the conflicted files in the work tree (the result
 * tree's text, markers included), MERGE_HEAD, MERGE_MSG, MERGE_MODE, AUTO_MERGE and ORIG_HEAD. This
 * spares `git merge` and the `git stash create` it starts. Whatever this cannot write exactly as git would
 * (a clean merge, a conflict of another kind than contents or modify/delete, a link, a submodule or an
 * attributes file, another repository state) is left to `git merge`.
 */

const OID = /^[0-9a-f]{40}$/;
/** The kinds of merge-tree message whose outcome is the result tree's text at the path, written to the work tree. */
const KNOWN_MESSAGES = new Set(["Auto-merging", "CONFLICT (contents)", "CONFLICT (binary)", "CONFLICT (modify/delete)"]);
const FILE_MODES = new Set(["100644", "100755"]);
/** Branches whose name git's merge message leaves out (`merge.suppressDest`'s default). */
const SUPPRESSED_DEST = new Set(["main", "master"]);
/** Files and folders of an operation in progress (or of one just ended) in the git directory. */
const STATE = ["MERGE_HEAD", "MERGE_MSG", "MERGE_MODE", "MERGE_RR", "AUTO_MERGE", "ORIG_HEAD", "SQUASH_MSG", "CHERRY_PICK_HEAD", "REVERT_HEAD", "REBASE_HEAD", "rebase-merge", "rebase-apply", "sequencer", "index.lock"];

/** One line of merge-tree's conflicted file info. */
interface Stage {
  mode: string;
  oid: string;
  stage: number;
  name: Buffer;
}

/** merge-tree's `-z` output: the result tree, the conflicted files' stages and the messages' kinds and paths; null for any other form. */
function parseMergeTree(out: Buffer): { tree: string; stages: Stage[]; kinds: string[]; paths: Buffer[] } | null {
  const fields: Buffer[] = [];
  for (let at = 0; at < out.length; ) {
    const end = out.indexOf(0, at);
    if (end === -1) return null;
    fields.push(out.subarray(at, end));
    at = end + 1;
  }
  const tree = fields.shift()?.toString("latin1") ?? "";
  if (!OID.test(tree)) return null;
  const stages: Stage[] = [];
  for (let field = fields.shift(); field !== undefined && field.length > 0; field = fields.shift()) {
    const tab = field.indexOf(0x09);
    const m = /^(\d{6}) ([0-9a-f]{40}) ([123])$/.exec(field.toString("latin1", 0, Math.max(tab, 0)));
    if (tab === -1 || !m) return null;
    stages.push({ mode: m[1] as string, oid: m[2] as string, stage: Number(m[3]), name: Buffer.from(field.subarray(tab + 1)) });
  }
  const kinds: string[] = [];
  const paths: Buffer[] = [];
  while (fields.length > 0) {
    const count = Number(fields.shift()?.toString("latin1"));
    if (!Number.isInteger(count) || count < 0 || fields.length < count + 2) return null;
    paths.push(...fields.splice(0, count));
    kinds.push(fields.shift()?.toString("latin1") ?? "");
    fields.shift();
  }
  return { tree, stages, kinds, paths };
}

/** Marks the folders on the way to `name` as to be written again and drops a folder at `name` itself (cache-tree.c's invalidate path). */
function invalidate(root: CachedTree, name: Buffer): void {
  const parts = name.toString("latin1").split("/");
  let node: CachedTree | undefined = root;
  for (const [i, part] of parts.entries()) {
    if (node === undefined) return;
    node.entries = -1;
    const bytes = Buffer.from(part, "latin1");
    const at: number = node.folders.findIndex((f) => f.name.equals(bytes));
    if (i === parts.length - 1) {
      if (at !== -1) node.folders.splice(at, 1);
      return;
    }
    node = node.folders[at];
  }
}

/**
 * The commit HEAD is at, when the index is exactly what `checkoutWithoutGit` writes for it (nothing staged,
 * no file written): compared with the bytes it wrote through this handle, or where git checked out, with
 * those it would write; else null.
 */
async function freshCheckout(repo: Repo): Promise<string | null> {
  const reader = repo.reader;
  const head = await reader?.read("HEAD");
  const tree = head?.type === "commit" ? /^tree ([0-9a-f]{40})\n/.exec(head.content.toString("latin1"))?.[1] : undefined;
  if (!head || tree === undefined) return null;
  let index: Buffer;
  try {
    index = readFileSync(path.join(repo.gitDir, "index"));
  } catch {
    return null;
  }
  const mine = writtenCheckout(repo);
  if (mine?.commit === head.oid) return index.equals(mine.index) ? head.oid : null;
  const whole = await readWholeTree(repo, tree);
  return whole !== null && index.equals(indexFileBytes(whole.records, [treeExtension(whole.cache)])) ? head.oid : null;
}

/** Whether a merge may be written here: gitgood's own SHA-1 git directory with known settings, no operation, no pattern, an empty work tree. */
function quiet(repo: Repo, branch: string | null): branch is string {
  const gitDir = repo.gitDir;
  if (!repo.ownGitDir || repo.reader === null || !writesObjects(gitDir) || branch === null || knownSettings(gitDir) === null) return false;
  if (SUPPRESSED_DEST.has(branch.slice("refs/heads/".length)) || !attributesKeepBytes(gitDir)) return false;
  if (STATE.some((name) => !absent(path.join(gitDir, name)))) return false;
  if (!isRealDir(repo.dir) || readdirSync(repo.dir).length > 0) return false;
  try {
    return readFileSync(path.join(gitDir, "info", "sparse-checkout")).length === 0;
  } catch {
    return false;
  }
}

/**
 * Merges `commit` into HEAD as `git merge --no-ff --no-commit -q` does where it stops on conflicts (see
 * the file's comment), with one `git merge-tree` instead of `git merge`: returns false (the merge stopped
 * on conflicts, as `mergeNoCommit` says), or null where `git merge` must be run (nothing written then
 * but the objects merge-tree wrote, which `git merge` writes too).
 */
export async function mergeWithoutGitMerge(repo: Repo, commit: string): Promise<false | null> {
  const gitDir = repo.gitDir;
  const branch = headBranch(gitDir);
  const reader = repo.reader;
  if (!OID.test(commit) || !quiet(repo, branch) || reader === null) return null;
  const ours = await freshCheckout(repo);
  if (ours === null) return null;
  const run = await repo.run([...MERGE_CONFIG, "merge-tree", "--write-tree", "-z", "--messages", "HEAD", commit], { okCodes: [0, 1] });
  const merged = run.code === 1 ? parseMergeTree(run.stdout) : null;
  if (merged === null || merged.stages.length === 0 || !merged.kinds.every((k) => KNOWN_MESSAGES.has(k))) return null;
  if ([...merged.stages.map((s) => s.name), ...merged.paths].some((p) => p.includes(0x0a))) return null;
  if (!merged.stages.every((s) => FILE_MODES.has(s.mode))) return null;
  const whole = await readWholeTree(repo, merged.tree);
  if (whole === null || whole.records.some((r) => /(?:^|\/)\.gitattributes$/.test(r.name.toString("latin1")))) return null;
  const conflicted = [...new Map(merged.stages.map((s) => [s.name.toString("latin1"), s.name])).values()];
  const results = conflicted.map((name) => whole.records.find((r) => r.name.equals(name)));
  if (results.some((r) => r === undefined || !FILE_MODES.has(r.mode))) return null;
  const texts = await Promise.all(results.map((r) => reader.read((r as IndexRecord).oid)));
  if (texts.some((t) => t?.type !== "blob")) return null;

  const records = whole.records.filter((r) => !conflicted.some((c) => c.equals(r.name)));
  for (const s of merged.stages) records.push({ path: s.name.toString("utf8"), name: s.name, mode: s.mode, oid: s.oid, stage: s.stage, stat: unwrittenStat(s.mode), assumeValid: false, extended: 0 });
  for (const name of conflicted) invalidate(whole.cache, name);
  records.sort(indexOrder);

  // From here on the sandbox is written; a folder that turns out not to be one is a fault, not a case for git.
  for (const [i, name] of conflicted.entries()) {
    const folders: Buffer[] = [];
    for (let at = 0, slash = name.indexOf(0x2f); slash !== -1; at = slash + 1, slash = name.indexOf(0x2f, at)) folders.push(name.subarray(at, slash));
    if (!makeRealFolders(repo.dir, folders)) throw new GitGoodError("INTERNAL", `a folder of ${name.toString("utf8")} in the sandbox's work tree is not a folder`);
    const result = results[i] as IndexRecord;
    const file = Buffer.concat([Buffer.from(`${repo.dir}/`), name]);
    writeNewFile(file, texts[i]?.content ?? Buffer.alloc(0), result.mode === "100755" ? 0o777 : 0o666);
  }
  const shortBranch = branch.slice("refs/heads/".length);
  const listed = records.filter((r, i) => r.stage > 0 && !records[i - 1]?.name.equals(r.name)).map((r) => Buffer.concat([Buffer.from("#\t"), r.name, Buffer.from("\n")]));
  writeNewFile(path.join(gitDir, "ORIG_HEAD"), `${ours}\n`);
  writeNewFile(path.join(gitDir, "MERGE_HEAD"), `${commit}\n`);
  writeNewFile(path.join(gitDir, "MERGE_MSG"), Buffer.concat([Buffer.from(`Merge commit '${commit}' into ${shortBranch}\n\n# Conflicts:\n`), ...listed]));
  writeNewFile(path.join(gitDir, "MERGE_MODE"), "no-ff");
  writeNewFile(path.join(gitDir, "AUTO_MERGE"), `${merged.tree}\n`);
  if (!writeIndexFile(gitDir, records, [treeExtension(whole.cache)])) throw new GitGoodError("INTERNAL", "the sandbox's index is locked");
  return false;
}
