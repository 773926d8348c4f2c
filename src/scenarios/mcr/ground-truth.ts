import type { MergeSample } from "../../dataset/sample.js";
import { fileSetDiff, type FileBytes } from "../../git/file-set-diff.js";
import { parsePath } from "../../git/paths.js";
import type { Repo } from "../../git/repo.js";
import { differingFiles, readBlob, stagedEntries, treeEntries, treeOf, type TreeEntry } from "../../git/trees.js";
import { unmergedPaths } from "../../git/worktree.js";
import type { Sandbox } from "../../sandbox/sandbox.js";
import { fileContent } from "../shared/files.js";
import type { McrFinalState } from "./state.js";

/** Each side's files where they may differ: the differing paths of the two trees, or (no commit, or no reader) every file. */
async function comparedFiles(source: Repo, merge: string, sandbox: Sandbox, final: McrFinalState): Promise<{ recorded: Map<string, Entry>; agent: Map<string, Entry> }> {
  const differing = final.tree === null ? null : await differingFiles({ repo: source, tree: await treeOf(source, merge) }, { repo: sandbox.repo, tree: final.tree });
  if (!differing || final.tree === null) return { recorded: await treeFiles(source, merge), agent: await agentFiles(sandbox, final) };
  return { recorded: withReads(source, merge, differing.a), agent: withReads(sandbox.repo, final.tree, differing.b) };
}

/** Tree entries of `rev`, each read from `repo` on demand. */
function withReads(repo: Repo, rev: string, entries: Map<string, TreeEntry>): Map<string, Entry> {
  const out = new Map<string, Entry>();
  for (const [file, e] of entries) out.set(file, { ...e, read: () => readBlob(repo, rev, parsePath(file)) });
  return out;
}

/** A file of one side: its mode and blob id where git has them, and how to read its bytes. */
interface Entry {
  /** Git's mode, or null when the file was read from the work tree. */
  mode: string | null;
  oid: string | null;
  read: () => Promise<Buffer | null>;
}

const EXECUTABLE = "100755";

/** The files of a tree, by path notation, read from `repo` on demand. */
async function treeFiles(repo: Repo, rev: string): Promise<Map<string, Entry>> {
  return withReads(repo, rev, await treeEntries(repo, rev));
}

function bytesOf(f: McrFinalState["files"][number]): Buffer | null {
  return f.content === null ? null : Buffer.from(f.content, f.encoding === "base64" ? "base64" : "utf8");
}

/**
 * The agent's result as a whole tree: the merge it committed; or, when it never committed, what the
 * commit would hold: the index's merged files, with the conflicted and edited files as the final state
 * recorded them (other unmerged files as the work tree has them).
 */
async function agentFiles(sandbox: Sandbox, final: McrFinalState): Promise<Map<string, Entry>> {
  if (final.tree !== null) return treeFiles(sandbox.repo, final.tree);
  const out = new Map<string, Entry>();
  for (const [file, e] of await stagedEntries(sandbox.repo)) out.set(file, { ...e, read: () => readBlob(sandbox.repo, ":0", parsePath(file)) });
  for (const file of await unmergedPaths(sandbox.repo)) {
    const bytes = bytesOf(fileContent(sandbox.workDir, file));
    out.set(file, { mode: null, oid: null, read: () => Promise.resolve(bytes) });
  }
  for (const f of final.files) {
    const bytes = bytesOf(f);
    out.set(f.path, { mode: out.get(f.path)?.mode ?? null, oid: null, read: () => Promise.resolve(bytes) });
  }
  return out;
}

function side(file: string, bytes: Buffer | null, mode: string | null): FileBytes {
  return { path: file, bytes, executable: mode === EXECUTABLE };
}

/**
 * The recorded merge's whole tree against the agent's final tree, as a diff for people: every file that
 * differs, conflicted or not (edits the recorded merge made outside the conflicts show too). The recorded
 * tree is read from the source, the agent's from the sandbox: no answer ever enters the sandbox.
 */
export async function mergeGroundTruth(sample: MergeSample, sandbox: Sandbox, final: McrFinalState, source: Repo): Promise<string> {
  const merge = sample.scenario.merge_commit_hash;
  const { recorded, agent } = await comparedFiles(source, merge, sandbox, final);
  const before: FileBytes[] = [];
  const after: FileBytes[] = [];
  for (const file of [...new Set([...recorded.keys(), ...agent.keys()])].sort()) {
    const r = recorded.get(file);
    const a = agent.get(file);
    if (r && a && a.oid !== null && r.oid === a.oid && r.mode === a.mode) continue;
    const [rb, ab] = await Promise.all([r ? r.read() : null, a ? a.read() : null]);
    const mode = a?.mode ?? r?.mode ?? null;
    const sameBytes = rb !== null && ab !== null ? rb.equals(ab) : rb === ab;
    if (sameBytes && (r?.mode ?? null) === mode) continue;
    before.push(side(file, rb, r?.mode ?? null));
    after.push(side(file, ab, mode));
  }
  return before.length === 0 ? "" : fileSetDiff(before, after);
}
