import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { GitGoodError } from "../errors.js";
import { CatFile } from "./catfile.js";
import type { LongLivedGit, Waiting } from "./long-lived.js";
import { runGit, streamGit, type RunResult, type SpawnOptions } from "./process.js";
import { gitVersion, type GitVersion } from "./version.js";
import { noAttributes } from "./no-attributes.js";

/** Settings that make re-merges identical to what a plain `git merge` shows, whatever the user's config. */
export const MERGE_CONFIG: readonly string[] = [
  "-c", "merge.conflictStyle=merge",
  "-c", "merge.renormalize=false",
  "-c", "merge.renames=true",
  "-c", "core.autocrlf=false",
];

/** Environment that makes git take every pathspec as a literal path (no `*`, `:(glob)`, `:!`, `:/`). */
export const LITERAL_PATHS: Readonly<Record<string, string>> = { GIT_LITERAL_PATHSPECS: "1" };

/** How `Repo.run` runs git: standard input, the exit codes that are not failures, extra environment. */
export interface RunOptions {
  input?: string | Buffer;
  okCodes?: readonly number[];
  env?: Record<string, string | undefined>;
  /** Run so that no attributes file of the project, the work tree or the user decides the output (no-attributes.ts). */
  noAttributes?: boolean;
}

/**
 * A handle on one repository. All git processes of gitgood start here (or in the other modules of
 * src/git), with the repository's directory as working directory and a deterministic environment.
 */
export class Repo {
  private readonly helpers = new Map<string, LongLivedGit<Waiting>>();
  private readerWanted = false;

  private constructor(
    /** Directory git runs in: the work tree root, or the git dir of a bare repository. */
    readonly dir: string,
    /** Absolute path of the git directory. */
    readonly gitDir: string,
    /** Absolute path of the object database. */
    readonly objectsDir: string,
    readonly bare: boolean,
    readonly shallow: boolean,
    readonly partial: boolean,
    readonly version: GitVersion,
    /** Extra environment for every git process run in the repository (a sandbox's, say). */
    private readonly env: Readonly<Record<string, string>>,
    /**
     * The git directory is gitgood's own (a sandbox's private one, which no agent writes): its files, the
     * index say, may be read without a git process.
     */
    readonly ownGitDir = false,
  ) {}

  /**
   * Opens a repository, with clear errors for a missing path, a non-repository and a git too old.
   * `env` is added to the environment of every git process run through the handle.
   */
  static async open(location: string, opts: { env?: Readonly<Record<string, string>> } = {}): Promise<Repo> {
    const env = opts.env ?? {};
    const version = await gitVersion();
    const abs = path.resolve(location);
    if (!existsSync(abs)) throw new GitGoodError("NOT_FOUND", `no such directory: ${location}`, { path: abs });
    if (!statSync(abs).isDirectory()) {
      throw new GitGoodError("NOT_A_REPOSITORY", `not a directory: ${location}`, { path: abs });
    }
    const probe = await runGit(
      [
        "rev-parse",
        "--is-bare-repository",
        "--is-shallow-repository",
        "--absolute-git-dir",
        "--git-path",
        "objects",
        "--show-toplevel",
      ],
      { cwd: abs, okCodes: [0, 128] },
    );
    if (probe.code !== 0) {
      if (/dubious ownership/.test(probe.stderr)) {
        throw new GitGoodError(
          "UNSAFE_REPOSITORY",
          `git refuses ${location}: it is owned by another user (see 'git config --global safe.directory')`,
          { path: abs },
        );
      }
      // A bare repository has no top level; rev-parse then fails only on --show-toplevel.
      const bareProbe = await runGit(
        ["rev-parse", "--is-bare-repository", "--is-shallow-repository", "--absolute-git-dir", "--git-path", "objects"],
        { cwd: abs, okCodes: [0, 128] },
      );
      if (bareProbe.code !== 0) {
        throw new GitGoodError("NOT_A_REPOSITORY", `not a git repository: ${location}`, { path: abs });
      }
      return Repo.fromProbe(abs, bareProbe, version, env);
    }
    return Repo.fromProbe(abs, probe, version, env);
  }

  /**
   * A handle on the work tree `workDir` through the git directory `gitDir` that `env` names (GIT_DIR and
   * GIT_WORK_TREE): nothing is probed, so nothing in the work tree is looked at to make it.
   */
  static own(workDir: string, gitDir: string, env: Readonly<Record<string, string>>, version: GitVersion): Repo {
    const shallow = existsSync(path.join(gitDir, "shallow"));
    return new Repo(workDir, gitDir, path.join(gitDir, "objects"), false, shallow, false, version, env, true);
  }

  private static async fromProbe(
    abs: string,
    probe: RunResult,
    version: GitVersion,
    env: Readonly<Record<string, string>>,
  ): Promise<Repo> {
    const lines = probe.stdout.toString("utf8").split("\n");
    const bare = lines[0] === "true";
    const shallow = lines[1] === "true";
    const gitDir = lines[2] ?? abs;
    const objects = path.resolve(abs, lines[3] ?? path.join(gitDir, "objects"));
    const top = lines[4];
    const dir = bare || !top ? abs : top;
    const promisor = await runGit(
      ["config", "--get-regexp", "^(extensions\\.partialclone|remote\\..*\\.promisor)$"],
      { cwd: dir, okCodes: [0, 1] },
    );
    const partial = promisor.stdout
      .toString("utf8")
      .split("\n")
      .some((l) => /^extensions\.partialclone \S/.test(l) || /\.promisor true$/.test(l));
    return new Repo(dir, gitDir, objects, bare, shallow, partial, version, env);
  }

  private spawnOptions(opts: RunOptions): SpawnOptions {
    const plain = opts.noAttributes === true ? null : { cwd: this.dir, env: this.env };
    const { cwd, env } = plain ?? noAttributes(this.gitDir, this.env);
    return {
      cwd,
      input: opts.input,
      okCodes: opts.okCodes,
      // Never fetch missing objects of a partial clone behind the user's back (honoured by git >= 2.44).
      env: { GIT_NO_LAZY_FETCH: "1", ...env, ...opts.env },
    };
  }

  /**
   * Keeps long-lived git processes for this handle from now on: one `git cat-file --batch-command`
   * (`reader`), whose answers to object, commit, tree and ref questions (clone.ts, commits.ts, trees.ts,
   * refs.ts) replace a process each, and those asked for by name with `helper` (diff.ts's `diff-tree
   * --stdin`). Each starts with its first question. Whoever calls this closes the handle (`close`) when
   * done with it.
   */
  keepReader(): this {
    this.readerWanted = true;
    return this;
  }

  /** The long-lived reader after `keepReader` (started now if need be), or null. */
  get reader(): CatFile | null {
    return this.helper("cat-file", (cwd, env) => new CatFile(cwd, env));
  }

  /**
   * The long-lived process `name` of this handle after `keepReader`: the one `start` made on an earlier
   * call (even if it has failed since: the caller then does without) unless `still` says it no longer
   * answers as a new one would (it is then closed), or one `start` makes now, in the repository's
   * directory with its environment; null without `keepReader`. `close` ends it.
   */
  helper<T extends LongLivedGit<Waiting>>(name: string, start: (cwd: string, env: Record<string, string>) => T, still?: (kept: T) => boolean): T | null {
    if (!this.readerWanted) return null;
    let kept = this.helpers.get(name) as T | undefined;
    if (kept && still && !still(kept)) {
      void kept.close();
      kept = undefined;
    }
    if (!kept) this.helpers.set(name, (kept = start(this.dir, { ...this.env })));
    return kept;
  }

  /** Ends the long-lived processes, if any; the handle runs a process per question again afterwards. */
  async close(): Promise<void> {
    const kept = [...this.helpers.values()];
    this.readerWanted = false;
    this.helpers.clear();
    await Promise.all(kept.map((h) => h.close()));
  }

  /** Runs git and returns stdout as a Buffer. */
  async run(args: readonly string[], opts: RunOptions = {}): Promise<RunResult> {
    return runGit(args, this.spawnOptions(opts));
  }

  /** Runs git and returns stdout as text. */
  async text(args: readonly string[], opts: RunOptions = {}): Promise<string> {
    return (await this.run(args, opts)).stdout.toString("utf8");
  }

  /** Streams git's output split on NUL (or another separator byte). */
  stream(args: readonly string[], opts: RunOptions & { separator?: number } = {}): AsyncGenerator<string> {
    return streamGit(args, { ...this.spawnOptions(opts), separator: opts.separator });
  }

  /** Resolves a revision to a full object id, or null when it does not exist. */
  async resolve(rev: string): Promise<string | null> {
    const r = await this.run(["rev-parse", "--verify", "--quiet", "--end-of-options", `${rev}^{object}`], {
      okCodes: [0, 1, 128],
    });
    return r.code === 0 ? r.stdout.toString("utf8").trim() : null;
  }
}
