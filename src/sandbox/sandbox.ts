import { lstatSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { GitGoodError } from "../errors.js";
import type { RunResult } from "../git/process.js";
import type { Repo, RunOptions } from "../git/repo.js";
import { checkoutDetached } from "../git/apply.js";
import { readIndexFile } from "../git/index-file.js";
import { installStore, type PackCache } from "../git/packs.js";
import { initOwnSandboxRepo, openOwnSandboxRepo, type WorkTreeMode } from "../git/shared-clone.js";
import type { StorePlan } from "../git/store.js";
import { removeAtExit } from "../util/cleanup.js";
import { removeUntracked } from "./clean-tree.js";
import { execDir, execIn, type ExecOptions, type ExecResult } from "./exec.js";
import { publishGitView } from "./git-view.js";
import { SHARED_AT, defaultIsolation, isolates, type Isolation, type LimitName } from "./isolation.js";
import { currentOwner, OWNER_FILE, readOwner, writeOwner } from "./owner.js";
import { ensureSandboxRoot } from "./root.js";
import { sandboxRoot, sweepStale } from "./sweep.js";

/** How a sandbox is made: its name, first branch, whether it outlives the process, and where. */
export interface SandboxOptions {
  /** Short text that starts the directory name (a sample id, say). */
  label: string;
  /** Name of the branch the new repository starts on. */
  branch?: string;
  /**
   * Keep the sandbox after this process ends (for `gitgood env`); it is removed by `remove()` or by a
   * later sweep. Without it the sandbox is removed at process exit at the latest.
   */
  keep?: boolean;
  /** Directory to create the sandbox in (default: `sandboxRoot()`). */
  root?: string;
  /** What the new repository's object store holds (answer-free: only what the scenario's start reaches). */
  store: StorePlan;
  /** Where the store's packs are built once and copied from (without one, each is written into the store). */
  packs?: PackCache | null;
  /**
   * A full work tree (default), or one holding only the files the scenario writes (agents that only use
   * tools). A `tools` sandbox that is not kept also writes the work tree's `.git` only when a program is
   * about to run in it (`exec`), not after set-up and every tool call: nothing but gitgood reads it until then.
   */
  workTree?: WorkTreeMode;
  /**
   * The work tree holds the files exactly as the repository stores them, and git reads them back so:
   * none of the project's attributes converts line endings or anything else (src/git/stored-bytes.ts).
   * For the Git-work scenarios, whose answers are commits and trees; a scenario whose tests run on the
   * project's files as its own checkout writes them leaves it off.
   */
  storedBytes?: boolean;
}

const WORK = "work";
const PRIVATE = "private";
/** gitgood's own git directory of the work tree, in the private area. */
const OWN_GIT = "git";

function isRealDirectory(p: string): boolean {
  try {
    return lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}

function slug(label: string): string {
  const s = label.replace(/[^A-Za-z0-9._-]+/g, "_").replace(/^[.-]+/, "").slice(0, 60);
  return s === "" ? "sandbox" : s;
}

/**
 * An isolated working copy made from a source repository. Layout of its directory:
 * `owner.json` (who made it), `work/` (the repository the agent works in: a fresh repository whose
 * object store holds only what the scenario's starting point reaches, with its history cut at a shallow
 * boundary: no alternates, no remote, no other refs), `private/` (gitgood's own files: scenario state,
 * message files). The source repository is only ever read; everything written goes below the sandbox
 * directory.
 *
 * The repository lives in `private/git` and every git process of gitgood's runs with
 * it as GIT_DIR and `work/` as GIT_WORK_TREE: a program in the work tree can write `work/.git` (config
 * with core.fsmonitor, hooks, a commondir, alternates, links in logs/ or objects/), and none of it is
 * ever read or written through by gitgood. `work/.git` is a copy gitgood refreshes after set-up and
 * after every tool call (`publish`), so the agent's own git sees the same history; in a tool-only sandbox,
 * which no agent reads, only before a program runs in it. One long-lived
 * `git cat-file --batch-command` (`Repo.keepReader`) answers gitgood's object and ref questions about the
 * sandbox for its whole life, and ends with it.
 */
export class Sandbox {
  private removed = false;
  private chosenIsolation: Isolation | null = null;
  private disk: { baseline: number | null } = { baseline: null };
  private firstLimit: LimitName | null = null;
  /** gitgood's repository has moved since `.git` in the work tree was last written (on-demand views only). */
  private viewStale = false;
  private heldAlone = false;

  private constructor(
    readonly dir: string,
    readonly repo: Repo,
    private readonly removeNow: () => void,
    /** gitgood's own git directory: every git process of gitgood's on this sandbox uses it. */
    readonly ownGitDir: string,
    /** `.git` in the work tree is written only before a program runs here (`exec`), not after every change. */
    private readonly viewOnDemand = false,
  ) {}

  /** Creates a sandbox with the store `opts.store` describes, read from `source`. Stale sandboxes of killed runs are swept first. */
  static async create(source: Repo, opts: SandboxOptions): Promise<Sandbox> {
    const root = ensureSandboxRoot(opts.root ?? sandboxRoot());
    sweepStale(root);
    const dir = mkdtempSync(path.join(root, `${slug(opts.label)}-`));
    // Until set-up succeeds the sandbox belongs to this process, so a kill mid-way leaves it sweepable.
    writeOwner(dir, currentOwner(false));
    const removeNow = opts.keep ? () => rmSync(dir, { recursive: true, force: true }) : removeAtExit(dir, { last: OWNER_FILE });
    try {
      const work = path.join(dir, WORK);
      mkdirSync(path.join(dir, PRIVATE));
      const branch = opts.branch ?? "gitgood";
      const workTree = opts.workTree ?? "full";
      const own = path.join(dir, PRIVATE, OWN_GIT);
      initOwnSandboxRepo(work, own, branch, workTree, opts.storedBytes === true);
      await installStore(source, opts.store, own, opts.packs ?? null);
      const onDemand = workTree === "tools" && opts.keep !== true;
      return new Sandbox(dir, (await openOwnSandboxRepo(work, own)).keepReader(), removeNow, own, onDemand);
    } catch (err) {
      removeNow();
      throw err;
    }
  }

  /** Opens a sandbox made earlier (possibly by another process). */
  static async open(dir: string): Promise<Sandbox> {
    const abs = path.resolve(dir);
    const work = path.join(abs, WORK);
    const own = path.join(abs, PRIVATE, OWN_GIT);
    const remove = (): void => rmSync(abs, { recursive: true, force: true });
    if (!readOwner(abs) || !isRealDirectory(own) || !isRealDirectory(work)) {
      throw new GitGoodError("NO_SANDBOX", `not a gitgood sandbox (or already finished): ${dir}`, { dir: abs });
    }
    return new Sandbox(abs, (await openOwnSandboxRepo(work, own)).keepReader(), remove, own);
  }

  /** The work tree the agent sees; tool paths are relative to it. */
  get workDir(): string {
    return this.repo.dir;
  }

  /** A path in the sandbox's private area (outside the work tree). */
  privatePath(name: string): string {
    return path.join(this.dir, PRIVATE, name);
  }

  /**
   * Brings the work tree's `.git` up to date with gitgood's own git directory (a no-op without one):
   * see `publishGitView`. Returns what could not be written because the agent changed `.git` in a way
   * gitgood does not write through (empty when the copy is complete). A sandbox whose view is written on
   * demand (a `tools` work tree) only notes that the view is behind; `exec` writes it before a program runs.
   */
  publish(): string[] {
    if (this.removed) return [];
    if (this.viewOnDemand) {
      this.viewStale = true;
      return [];
    }
    return publishGitView(this.ownGitDir, this.workDir);
  }

  /** Writes the work tree's `.git` now, also where it is written on demand (see `publish`), for a program about to read it. */
  writeView(): string[] {
    if (this.removed) return [];
    this.viewStale = false;
    return publishGitView(this.ownGitDir, this.workDir);
  }

  /** `publish()` for a sandbox gitgood has just set up (no agent has run yet): anything left unwritten is a fault. */
  publishFresh(): void {
    const problems = this.publish();
    if (problems.length > 0) throw new GitGoodError("INTERNAL", `the sandbox's .git could not be written: ${problems[0]}`);
  }

  /**
   * Declares that only this process will ever work in the sandbox (a run's attempt: it is not kept, and
   * no other process is told where it is). Its tool calls then need no lock file between processes and
   * no saved state for a later process to carry on from (see `ScenarioBase.callTool`).
   */
  holdAlone(): void {
    this.heldAlone = true;
  }

  /** Whether `holdAlone` was called: no other process opens this sandbox. */
  get isHeldAlone(): boolean {
    return this.heldAlone;
  }

  /** Marks a kept sandbox as fully set up: from now on only `remove()` or the keep limit removes it. */
  markKept(): void {
    writeOwner(this.dir, currentOwner(true));
  }

  /** Runs git in the work tree with the sandbox's environment (no global config, no editor), which `repo` carries. */
  git(args: readonly string[], opts: RunOptions = {}): Promise<RunResult> {
    return this.repo.run(args, opts);
  }

  /** Runs git in the work tree like `git`, and gives its standard output as text. */
  async text(args: readonly string[], opts: RunOptions = {}): Promise<string> {
    return (await this.git(args, opts)).stdout.toString("utf8");
  }

  /** How programs run here are isolated: as set with `isolate`, else the default isolation (refused where it cannot run). */
  get isolation(): Isolation {
    this.chosenIsolation ??= defaultIsolation();
    return this.chosenIsolation;
  }

  /** Sets the isolation of the programs run here (`chooseIsolation` makes one). */
  isolate(isolation: Isolation): void {
    this.chosenIsolation = isolation;
    // The disk limit counts from the work tree as the next program finds it.
    this.disk = { baseline: null };
  }

  /** The first limit of the isolation a program run here ran into, else null. */
  get limitHit(): LimitName | null {
    return this.firstLimit;
  }

  /** Called once, with the first limit a program run here runs into (the attempt then ends as the agent's failure). */
  onLimit: ((limit: LimitName) => void) | null = null;

  /** Where a program run here with `shared: dir` sees `dir`: at SHARED_AT when isolated, else where it is. */
  seenAt(dir: string): string {
    return isolates(this.isolation) ? SHARED_AT : dir;
  }

  /**
   * Runs a program (no shell) in the work tree, or in `opts.cwd` below it, in the sandbox's isolation.
   * Test runs, builds and the programs of command agents go through here; on a time-out or abort its
   * whole process tree is killed.
   */
  async exec(argv: readonly string[], opts: ExecOptions = {}): Promise<ExecResult> {
    if (this.removed) throw new GitGoodError("NO_SANDBOX", "the sandbox is removed");
    // The program may read `.git`; what cannot be written (a view a program broke) shows in its own output.
    if (this.viewStale) this.writeView();
    const result = await execIn(execDir(this.workDir, opts.cwd), argv, opts, { work: this.workDir, isolation: this.isolation, disk: this.disk });
    if (result.limit !== null && this.firstLimit === null) {
      this.firstLimit = result.limit;
      this.onLimit?.(result.limit);
    }
    return result;
  }

  get isRemoved(): boolean {
    return this.removed;
  }

  /**
   * Makes a sandbox whose programs all ran jailed what `create` with `store` and a checkout of `rev` would
   * make, without making it again (an evaluation sandbox taken for the next instance of its environment).
   * The old object store is set aside (borrowed by the checkout alone, then deleted), `store` installed in
   * a new one; everything the work tree holds that the index does not track is removed (as `git clean
   * -ffdx` would, in this process: untracked and ignored files, nested repositories, the agent's `.git`
   * view), and `rev` is checked out over it with `-f`, so git writes only the files that differ. Returns false, changing nothing, where a fresh sandbox is needed
   * instead: a program ran unjailed here (it could have written gitgood's own git directory), one ran into
   * a limit, `store` changes whether the history is cut (the handle's shallow flag is fixed), or the index
   * cannot be read here.
   */
  async renew(source: Repo, store: StorePlan, packs: PackCache | null, rev: string): Promise<boolean> {
    if (this.removed || this.firstLimit !== null || !isolates(this.isolation) || store.shallow.length > 0 !== this.repo.shallow) return false;
    const own = this.ownGitDir;
    const tracked = readIndexFile(own);
    if (tracked === null) return false;
    const objects = path.join(own, "objects");
    const retired = this.privatePath("retired-objects");
    rmSync(retired, { recursive: true, force: true });
    renameSync(objects, retired);
    mkdirSync(path.join(objects, "pack"), { recursive: true });
    mkdirSync(path.join(objects, "info"));
    const alternates = path.join(objects, "info", "alternates");
    writeFileSync(alternates, `${retired}\n`);
    rmSync(path.join(own, "shallow"), { force: true });
    await this.repo.close();
    this.repo.keepReader();
    try {
      await installStore(source, store, own, packs);
      removeUntracked(this.workDir, tracked.map((e) => e.path));
      rmSync(path.join(this.workDir, ".git"), { recursive: true, force: true });
      await checkoutDetached(this.repo, rev);
    } finally {
      rmSync(alternates, { force: true });
      rmSync(retired, { recursive: true, force: true });
      for (const name of ["logs", "ORIG_HEAD", "FETCH_HEAD", "MERGE_HEAD", "packed-refs"]) rmSync(path.join(own, name), { recursive: true, force: true });
      // The reader may have opened the retired packs: a new one sees the new store alone.
      await this.repo.close();
      this.repo.keepReader();
    }
    this.disk = { baseline: null };
    this.viewStale = false;
    return true;
  }

  /** Removes the sandbox directory and ends its git reader. Safe to call twice. */
  remove(): void {
    if (this.removed) return;
    this.removed = true;
    void this.repo.close();
    this.removeNow();
  }
}
