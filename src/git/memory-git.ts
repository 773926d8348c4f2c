import { existsSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { GitGoodError } from "../errors.js";
import { MERGE_CONFIG, Repo } from "./repo.js";

/** Used for commits when neither the environment nor git's configuration names a person. */
const FALLBACK_IDENTITY = { name: "gitgood-memory", email: "memory@gitgood.local" } as const;

/** One line of `git status --porcelain=v1`: index state, work-tree state, path. */
export interface StatusEntry {
  index: string;
  worktree: string;
  path: string;
}

/** How `startMerge` left the work tree, and the paths still unmerged. */
export interface MergeAttempt {
  /** clean: merged without conflicts, not yet committed; conflict: stopped with unmerged paths; up-to-date: nothing to merge. */
  state: "clean" | "conflict" | "up-to-date";
  unmerged: string[];
}

const MARKER_SIZE = 23;

/**
 * The git operations behind versioned agent memory, on one work tree. Every call runs with the
 * workspace's extra environment (identity, dates), so tests and embedding programs control it.
 */
export class MemoryGit {
  private constructor(
    readonly repo: Repo,
    private readonly env: Record<string, string | undefined>,
  ) {}

  static async open(location: string, env: Record<string, string | undefined> = {}): Promise<MemoryGit> {
    const repo = await Repo.open(location);
    if (repo.bare) {
      throw new GitGoodError("NOT_A_WORKSPACE", `${location} is a bare repository; memory needs a work tree`, {
        path: repo.dir,
      });
    }
    // Memory belongs to a whole work tree: a sub-folder would silently work on (and commit in) its root.
    if (realpathSync(path.resolve(location)) !== realpathSync(repo.dir)) {
      throw new GitGoodError(
        "NOT_A_WORKSPACE",
        `${location} is a folder inside the repository at ${repo.dir}, not its top; memory works on a whole work tree: use ${repo.dir}`,
        { path: path.resolve(location), root: repo.dir },
      );
    }
    return new MemoryGit(repo, env);
  }

  get root(): string {
    return this.repo.dir;
  }

  private opts(okCodes?: readonly number[], input?: string) {
    return { env: this.env, okCodes, input };
  }

  private async git(args: readonly string[], okCodes?: readonly number[], input?: string) {
    return this.repo.run(args, this.opts(okCodes, input));
  }

  private async out(args: readonly string[], okCodes?: readonly number[]): Promise<string> {
    return (await this.git(args, okCodes)).stdout.toString("utf8");
  }

  /** The checked-out branch's short name, or null on a detached HEAD. */
  async currentBranch(): Promise<string | null> {
    const r = await this.git(["symbolic-ref", "-q", "--short", "HEAD"], [0, 1]);
    return r.code === 0 ? r.stdout.toString("utf8").trim() : null;
  }

  /** True when HEAD points at a commit (false in a repository without commits yet). */
  async hasCommits(): Promise<boolean> {
    return (await this.repo.resolve("HEAD")) !== null;
  }

  /** True when the branch `name` exists. */
  async branchExists(name: string): Promise<boolean> {
    const r = await this.git(["show-ref", "--verify", "--quiet", `refs/heads/${name}`], [0, 1, 128]);
    return r.code === 0;
  }

  /** Local branch names, sorted. */
  async branches(): Promise<string[]> {
    const text = await this.out(["for-each-ref", "--format=%(refname:short)", "refs/heads"]);
    return text.split("\n").filter(Boolean).sort();
  }

  /** True when git accepts `name` as a new branch name. */
  async validBranchName(name: string): Promise<boolean> {
    if (name.startsWith("-")) return false;
    const r = await this.git(["check-ref-format", "--branch", name], [0, 1, 128]);
    return r.code === 0;
  }

  /** The commit `rev` names, or null when it names none. */
  async resolve(rev: string): Promise<string | null> {
    return this.repo.resolve(rev);
  }

  /** A file's content at a revision, or null when it is not there. */
  async readAt(rev: string, file: string): Promise<string | null> {
    const r = await this.git(["cat-file", "blob", `${rev}:${file}`], [0, 128]);
    return r.code === 0 ? r.stdout.toString("utf8") : null;
  }

  /** Tracked changes (untracked files are not listed). */
  async status(): Promise<StatusEntry[]> {
    const text = await this.out(["status", "--porcelain=v1", "-z", "--untracked-files=no", "--no-renames"]);
    const entries: StatusEntry[] = [];
    for (const rec of text.split("\0")) {
      if (rec.length < 4) continue;
      entries.push({ index: rec[0] ?? " ", worktree: rec[1] ?? " ", path: rec.slice(3) });
    }
    return entries;
  }

  /** Which unfinished operation (merge, rebase, cherry-pick, revert) the work tree is in, if any. */
  async operationInProgress(): Promise<string | null> {
    const names = ["MERGE_HEAD", "rebase-merge", "rebase-apply", "CHERRY_PICK_HEAD", "REVERT_HEAD"];
    const text = await this.out(["rev-parse", ...names.flatMap((n) => ["--git-path", n])]);
    const paths = text.split("\n");
    for (let i = 0; i < names.length; i++) {
      const p = paths[i];
      if (p && existsSync(path.resolve(this.root, p))) {
        const n = names[i] ?? "";
        return n.startsWith("rebase") ? "rebase" : n.replace("_HEAD", "").toLowerCase().replace("_", "-");
      }
    }
    return null;
  }

  /** Environment entries that supply a commit identity where neither env nor config has one. */
  async identityEnv(): Promise<Record<string, string>> {
    const configured = async (key: string): Promise<string | null> => {
      const r = await this.git(["config", "--get", key], [0, 1]);
      const v = r.stdout.toString("utf8").trim();
      return r.code === 0 && v !== "" ? v : null;
    };
    const configName = await configured("user.name");
    const configEmail = await configured("user.email");
    const out: Record<string, string> = {};
    const env = { ...process.env, ...this.env };
    // An identity variable that is set but empty would make git fail, so it counts as missing.
    for (const role of ["AUTHOR", "COMMITTER"] as const) {
      if (!env[`GIT_${role}_NAME`]) out[`GIT_${role}_NAME`] = configName ?? FALLBACK_IDENTITY.name;
      if (!env[`GIT_${role}_EMAIL`]) out[`GIT_${role}_EMAIL`] = configEmail ?? FALLBACK_IDENTITY.email;
    }
    return out;
  }

  /** Stages every change under the given paths (the whole work tree when none are given). */
  async addAll(paths: readonly string[] = []): Promise<void> {
    await this.git(["add", "-A", ...(paths.length > 0 ? ["--", ...paths] : [])]);
  }

  /** Stages a path even when an ignore rule covers it. */
  async addForce(paths: readonly string[]): Promise<void> {
    await this.git(["add", "-A", "-f", "--", ...paths]);
  }

  /**
   * Commits. With `only`, just those paths are committed (from the work tree) and anything else staged
   * stays staged; without it, the index is committed as it is. Returns the new commit's id.
   */
  async commit(message: string, only?: readonly string[]): Promise<string> {
    const identity = await this.identityEnv();
    const args = ["-c", "commit.gpgsign=false", "commit", "-q", "--allow-empty", "--no-verify", "-F", "-"];
    if (only) args.push("--only", "--", ...only);
    await this.repo.run(args, { env: { ...this.env, ...identity }, input: message });
    const head = await this.resolve("HEAD");
    if (!head) throw new GitGoodError("INTERNAL", "git commit left no HEAD");
    return head;
  }

  /** Creates a branch at HEAD and checks it out; uncommitted changes and the index come along. */
  async switchCreate(name: string): Promise<void> {
    await this.git(["switch", "-q", "-c", name]);
  }

  /** Starts `git merge --no-ff --no-commit`; a refusal by git (nothing changed) throws. */
  async startMerge(branch: string): Promise<MergeAttempt> {
    const before = await this.resolve("HEAD");
    const r = await this.git(
      [...MERGE_CONFIG, "merge", "--no-ff", "--no-commit", "--no-edit", "--no-verify", "-q", `refs/heads/${branch}`],
      [0, 1, 2, 128],
    );
    const merging = (await this.operationInProgress()) === "merge";
    if (r.code === 0 && !merging) {
      if ((await this.resolve("HEAD")) !== before) throw new GitGoodError("INTERNAL", "git merge moved HEAD unexpectedly");
      return { state: "up-to-date", unmerged: [] };
    }
    if (r.code === 0) return { state: "clean", unmerged: [] };
    const unmerged = merging ? await this.unmergedPaths() : [];
    if (unmerged.length === 0) {
      if (merging) await this.abortMerge();
      const why = r.stderr.split("\n").find((l) => l.trim() !== "")?.trim() ?? `exit code ${r.code}`;
      throw new GitGoodError("MERGE_REFUSED", `git refused to merge '${branch}': ${why}`, { branch, stderr: r.stderr });
    }
    return { state: "conflict", unmerged };
  }

  /** Abandons a merge in progress (`git merge --abort`). */
  async abortMerge(): Promise<void> {
    await this.git(["merge", "--abort"]);
  }

  /** The paths left unmerged by a merge in progress, sorted. */
  async unmergedPaths(): Promise<string[]> {
    const text = await this.out(["diff", "--name-only", "-z", "--diff-filter=U"]);
    return [...new Set(text.split("\0").filter(Boolean))].sort();
  }

  /** The blob at one stage (1 base, 2 ours, 3 theirs) of an unmerged path, or null when absent. */
  async stage(stage: 1 | 2 | 3, file: string): Promise<string | null> {
    const r = await this.git(["cat-file", "blob", `:${stage}:${file}`], [0, 128]);
    return r.code === 0 ? r.stdout.toString("utf8") : null;
  }

  /**
   * Three-way merge of texts with `git merge-file`. Conflicting regions are framed by markers of
   * MARKER_SIZE characters carrying the given labels. Returns the merged text and the conflict count.
   */
  async mergeTexts(
    ours: string,
    base: string,
    theirs: string,
    labels: { ours: string; theirs: string },
  ): Promise<{ text: string; conflicts: number }> {
    const dir = mkdtempSync(path.join(os.tmpdir(), "gitgood-memory-merge-"));
    try {
      const files = ["ours", "base", "theirs"].map((n) => path.join(dir, n));
      writeFileSync(files[0] ?? "", ours);
      writeFileSync(files[1] ?? "", base);
      writeFileSync(files[2] ?? "", theirs);
      const okCodes = Array.from({ length: 128 }, (_, i) => i);
      const r = await this.git(
        ["merge-file", "-p", `--marker-size=${MARKER_SIZE}`, "-L", labels.ours, "-L", "base", "-L", labels.theirs, ...files],
        okCodes,
      );
      return { text: r.stdout.toString("utf8"), conflicts: r.code };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  /** Common ancestor of two revisions, or null. */
  async mergeBase(a: string, b: string): Promise<string | null> {
    const r = await this.git(["merge-base", a, b], [0, 1]);
    return r.code === 0 ? r.stdout.toString("utf8").trim() : null;
  }

  /** Tracked files of the index, sorted (as git sorts them). */
  async trackedFiles(): Promise<string[]> {
    return (await this.out(["ls-files", "-z"])).split("\0").filter(Boolean);
  }

  /** Puts `dir` in the index and work tree exactly as it is at `rev` (files missing there are removed). */
  async restoreDir(rev: string, dir: string): Promise<void> {
    await this.git(["restore", `--source=${rev}`, "--staged", "--worktree", "--", dir]);
  }

  /** Unified diff of one folder between two revisions, or between a revision and the work tree. */
  async diff(from: string, to: string | null, dir: string, stat = false): Promise<string> {
    const args = ["diff", "--no-color", "--no-ext-diff", ...(stat ? ["--stat"] : []), from, ...(to ? [to] : []), "--", dir];
    return this.out(args);
  }

  /** The value of one trailer (last occurrence) in a commit's message. */
  async trailer(rev: string, key: string): Promise<string | null> {
    const text = await this.out(["log", "-1", `--format=%(trailers:key=${key},valueonly,separator=%x00)`, rev, "--"]);
    const values = text.split("\0").map((v) => v.trim()).filter(Boolean);
    return values[values.length - 1] ?? null;
  }

  /** Recent commits that touched `dir`: short id and subject, newest first. */
  async recentCommits(dir: string, count: number): Promise<{ id: string; subject: string }[]> {
    if (!(await this.hasCommits())) return [];
    const text = await this.out(["log", `-n${count}`, "--format=%h%x09%s", "HEAD", "--", dir]);
    return text
      .split("\n")
      .filter(Boolean)
      .map((l) => {
        const tab = l.indexOf("\t");
        return { id: l.slice(0, tab), subject: l.slice(tab + 1) };
      });
  }

  /**
   * A copy of the index file, taken before an operation that stages files, to put the index back
   * exactly (staged entries, intent-to-add marks) when the operation fails half-way.
   */
  async saveIndex(): Promise<{
    /** Puts the saved index back as it was. */
    restore: () => void;
  }> {
    const file = await this.gitPath("index");
    const saved = existsSync(file) ? readFileSync(file) : null;
    return {
      restore: () => {
        if (saved === null) {
          rmSync(file, { force: true });
          return;
        }
        const tmp = `${file}.gitgood-restore-${process.pid}`;
        writeFileSync(tmp, saved);
        renameSync(tmp, file);
      },
    };
  }

  /** The path of a file inside the git directory (for the lock file). */
  async gitPath(name: string): Promise<string> {
    return path.resolve(this.root, (await this.out(["rev-parse", "--git-path", name])).trim());
  }
}
