import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { GitGoodError } from "../errors.js";
import type { IndexEntry, IndexRecord } from "./index-file.js";
import { writeIndexFile } from "./index-write.js";
import { writeOwnGitDir } from "./own-git-dir.js";
import { runGit } from "./process.js";
import { attributesKeepBytes } from "./stored-bytes.js";

function attributesFileOf(gitDir: string): string {
  return path.join(gitDir, "info", "attributes");
}

function isAttributesFile(name: Buffer): boolean {
  return /(?:^|\/)\.gitattributes$/.test(name.toString("latin1"));
}

/**
 * Whether a checkout of the base through the git directory `checkoutGitDir` may have written a file other
 * than as its blob holds it: the git directory has an attributes file other than the one that keeps
 * stored bytes, or the base has a `.gitattributes` (`entries`, its index; null where unread: then maybe).
 */
export function checkoutMayConvert(checkoutGitDir: string, entries: readonly IndexEntry[] | null): boolean {
  if (existsSync(attributesFileOf(checkoutGitDir))) return !attributesKeepBytes(checkoutGitDir);
  return entries === null || entries.some((e) => isAttributesFile(e.name));
}

/** A tracked file whose bytes on disk differ from its blob in the base. */
interface ChangedFile {
  mode: string;
  oid: string;
  /** The path's bytes, one latin1 character per byte. */
  path: string;
}

/** The regular files `git diff-index --cached -z` lists as modified (`M`), with their mode and blob in the base. */
function modifiedFiles(raw: Buffer): ChangedFile[] {
  const fields = raw.toString("latin1").split("\0");
  const files: ChangedFile[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const [oldMode = "", , oldOid = ""] = (fields[i] ?? "").slice(1).split(" ");
    if (oldMode === "100644" || oldMode === "100755") files.push({ mode: oldMode, oid: oldOid, path: fields[i + 1] ?? "" });
  }
  return files;
}

/** What `checkoutTree` works with: the scratch git directory that reads the work tree, after `git add -A`. */
export interface CheckoutTreeInput {
  /** The scratch git directory (STORED_BYTES_ATTRIBUTES), its index now the work tree's bytes. */
  scratch: string;
  /** The environment that runs git on the work tree through `scratch`. */
  env: Record<string, string>;
  /** The `-c` settings every git process of the reading takes. */
  config: readonly string[];
  base: string;
  /** The git directory whose checkout of `base` wrote the work tree: its `info/attributes`, if any, applies. */
  checkoutGitDir: string;
  /** The base's index entries where the caller has them, else null (`git read-tree`). */
  baseEntries: readonly IndexRecord[] | null;
}

/**
 * The tree of the files a checkout of `base` wrote, as bytes, for the files whose bytes now differ from
 * `base`'s blobs: `base` where a checkout wrote each of them as its blob holds it (always, in a project
 * whose attributes convert nothing), else a tree with those files' blobs replaced by the bytes the
 * checkout writes for them. A patch against it holds what changed on disk since the checkout, never the
 * difference between a blob and its checked-out form (mockito's `gradlew.bat text eol=crlf` over a blob
 * that holds CRLF reads back as LF: a change nobody made).
 *
 * The checkout is done again for those files only, by `git checkout-index --temp` in a git directory of
 * its own with an empty work tree: attributes come from the base's `.gitattributes` (the index) and
 * `checkoutGitDir`'s `info/attributes`, never from a `.gitattributes` a program wrote into the work tree.
 * A file whose bytes equal its blob counts as unchanged, whatever the checkout wrote.
 */
export async function checkoutTree(input: CheckoutTreeInput): Promise<string> {
  const { scratch, env, config, base } = input;
  const cwd = env.GIT_WORK_TREE ?? scratch;
  const listed = await runGit([...config, "diff-index", "--cached", "-z", "--no-renames", "--diff-filter=M", base], { cwd, env });
  const changed = modifiedFiles(listed.stdout);
  if (changed.length === 0) return base;
  const gitDir = path.join(scratch, "checkout.git");
  const tree = path.join(scratch, "checkout.tree");
  writeOwnGitDir(gitDir, "main", "");
  mkdirSync(tree);
  const own = attributesFileOf(input.checkoutGitDir);
  if (existsSync(own)) copyFileSync(own, attributesFileOf(gitDir));
  // Objects are read from and written to the scratch git directory's, where the patch is made.
  const checkoutEnv = {
    GIT_CONFIG_GLOBAL: os.devNull,
    GIT_DIR: gitDir,
    GIT_WORK_TREE: tree,
    GIT_INDEX_FILE: path.join(gitDir, "index"),
    GIT_OBJECT_DIRECTORY: path.join(scratch, "objects"),
  };
  const run = (args: readonly string[], stdin?: Buffer) => runGit([...config, ...args], { cwd: tree, env: checkoutEnv, ...(stdin ? { input: stdin } : {}) });
  if (input.baseEntries === null || !writeIndexFile(gitDir, input.baseEntries)) await run(["read-tree", base]);
  const nul = (parts: readonly string[]) => Buffer.from(parts.map((p) => `${p}\0`).join(""), "latin1");
  const written = (await run(["checkout-index", "--temp", "-z", "--stdin"], nul(changed.map((f) => f.path)))).stdout.toString("latin1");
  const tempOf = new Map<string, string>();
  for (const record of written.split("\0")) {
    const tab = record.indexOf("\t");
    if (tab > 0) tempOf.set(record.slice(tab + 1), record.slice(0, tab));
  }
  const temps = changed.map((f) => tempOf.get(f.path));
  if (temps.some((t) => t === undefined)) throw new GitGoodError("GIT_FAILED", "git checkout-index wrote no file for a path it was given");
  const oids = (await run(["hash-object", "-w", "--no-filters", "--stdin-paths"], Buffer.from(temps.map((t) => `${t}\n`).join(""), "latin1"))).stdout
    .toString("latin1")
    .trim()
    .split("\n");
  const replaced = changed.flatMap((f, i) => (oids[i] !== undefined && oids[i] !== f.oid ? [`${f.mode} ${oids[i]}\t${f.path}`] : []));
  if (replaced.length === 0) return base;
  await run(["update-index", "-z", "--index-info"], nul(replaced));
  return (await run(["write-tree"])).stdout.toString("latin1").trim();
}
