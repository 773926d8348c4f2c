import path from "node:path";
import { GitGoodError } from "../errors.js";
import { MemoryGit } from "../git/memory-git.js";
import { exists, refuseLinks } from "./files.js";

/** Name of the memory folder inside a workspace unless configured otherwise. */
export const DEFAULT_MEMORY_DIR = ".GCC";
/** Largest CONTEXT answer, in characters, unless configured otherwise. */
export const DEFAULT_CONTEXT_LIMIT = 6000;

/** Where a memory workspace keeps its memory, how much CONTEXT answers, and the environment of its git processes. */
export interface WorkspaceOptions {
  /** Memory folder name relative to the work tree root (default `.GCC`). */
  memoryDir?: string;
  /** Largest CONTEXT answer in characters. */
  contextLimit?: number;
  /** Extra environment for every git process (identity, dates). */
  env?: Record<string, string | undefined>;
  /** Clock for timestamps in memory files (tests pin it). */
  now?: () => Date;
}

/**
 * A git work tree with an agent memory folder in it. Memory branches are git branches: the memory
 * branch being written is always the checked-out git branch.
 */
export class MemoryWorkspace {
  private constructor(
    readonly git: MemoryGit,
    /** Memory folder, relative to the root, with forward slashes. */
    readonly memoryDir: string,
    readonly contextLimit: number,
    /** The clock memory files' timestamps are read from. */
    readonly now: () => Date,
  ) {}

  /**
   * Opens the work tree whose top is `location` (it need not hold memory yet). Throws `BAD_OPTION` for a memory folder
   * that is not a plain relative path or a context limit under 400 characters, `NOT_A_WORKSPACE` for a bare
   * repository or a folder below a work tree's top, and `NOT_FOUND` or `NOT_A_REPOSITORY` when `location` is no repository.
   */
  static async open(location: string, opts: WorkspaceOptions = {}): Promise<MemoryWorkspace> {
    const memoryDir = normalizeMemoryDir(opts.memoryDir ?? DEFAULT_MEMORY_DIR);
    const limit = opts.contextLimit ?? DEFAULT_CONTEXT_LIMIT;
    if (!Number.isInteger(limit) || limit < 400) {
      throw new GitGoodError("BAD_OPTION", `the context limit must be a whole number of at least 400 characters, not ${limit}`);
    }
    const git = await MemoryGit.open(location, opts.env ?? {});
    return new MemoryWorkspace(git, memoryDir, limit, opts.now ?? (() => new Date()));
  }

  get root(): string {
    return this.git.root;
  }

  /** Repository-relative path of a memory file (forward slashes, as git wants them). */
  rel(...parts: string[]): string {
    return [this.memoryDir, ...parts].join("/");
  }

  /** Absolute path of a memory file in the work tree. */
  abs(...parts: string[]): string {
    return path.join(this.root, ...this.rel(...parts).split("/"));
  }

  /** Repository-relative path of one file of a memory branch (`branch` may hold slashes). */
  branchRel(branch: string, file: BranchFile): string {
    return this.rel("branches", ...branch.split("/"), file);
  }

  /** Absolute path of one file of a memory branch. */
  branchAbs(branch: string, file: BranchFile): string {
    return this.abs("branches", ...branch.split("/"), file);
  }

  /** True once `gitgood memory init` wrote the memory's main file in this work tree. */
  isInitialized(): boolean {
    return exists(this.root, this.abs(MAIN_FILE));
  }

  /** ISO timestamp to the second, UTC. */
  timestamp(): string {
    return this.now().toISOString().replace(/\.\d{3}Z$/, "Z");
  }

  /** The checked-out branch; memory cannot be written on a detached HEAD. */
  async currentBranch(): Promise<string> {
    const b = await this.git.currentBranch();
    if (!b) {
      throw new GitGoodError("DETACHED_HEAD", "HEAD is detached; check out a branch before using memory", {
        root: this.root,
      });
    }
    return b;
  }

  /** Throws `NOT_INITIALIZED` unless the memory is initialized. */
  requireInitialized(): void {
    if (!this.isInitialized()) {
      throw new GitGoodError(
        "NOT_INITIALIZED",
        `no memory in ${this.root} (missing ${this.rel(MAIN_FILE)}); run 'gitgood memory init' first`,
        { root: this.root },
      );
    }
  }

  /**
   * The current branch, checked to have a memory branch in the work tree whose files are no symbolic
   * links: an operation on a branch refuses a linked memory file even when it would not touch it.
   */
  async currentMemoryBranch(): Promise<string> {
    this.requireInitialized();
    const b = await this.currentBranch();
    if (!exists(this.root, this.branchAbs(b, "commit.md"))) {
      throw new GitGoodError(
        "NO_MEMORY_BRANCH",
        `git branch '${b}' has no memory branch (${this.branchRel(b, "commit.md")} is missing); switch to a branch made with 'gitgood memory branch'`,
        { branch: b },
      );
    }
    for (const file of BRANCH_FILES) refuseLinks(this.root, this.branchAbs(b, file));
    return b;
  }
}

export const MAIN_FILE = "main.md";
/** The files of one memory branch's folder. */
export type BranchFile = "commit.md" | "log.md" | "metadata.yaml";
const BRANCH_FILES: readonly BranchFile[] = ["commit.md", "log.md", "metadata.yaml"];

function normalizeMemoryDir(dir: string): string {
  const d = dir.replace(/\\/g, "/").replace(/\/+$/, "");
  const parts = d.split("/");
  if (d === "" || path.isAbsolute(dir) || parts.some((p) => p === "" || p === "." || p === ".." || p === ".git")) {
    throw new GitGoodError("BAD_OPTION", `the memory folder must be a plain relative path inside the workspace, not '${dir}'`);
  }
  return d;
}
