import { execFileSync } from "node:child_process";
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach } from "vitest";

/** Environment for git in tests: no user or system config, fixed identity and dates. */
export function fixtureEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    LC_ALL: "C",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    GIT_AUTHOR_NAME: "Ada Fixture",
    GIT_AUTHOR_EMAIL: "ada@example.com",
    GIT_COMMITTER_NAME: "Ada Fixture",
    GIT_COMMITTER_EMAIL: "ada@example.com",
    ...extra,
  };
}

const BASE_TIME = Date.UTC(2024, 0, 1) / 1000;

/** Files to write in a commit: content, or null to delete. */
export type FileSet = Record<string, string | Buffer | null>;

/**
 * A git repository built in code for tests. Every commit gets the next fixed timestamp, so hashes are
 * identical on every machine and every run.
 */
export class Fixture {
  private tick = 0;
  readonly dir: string;
  private readonly tmpRoot: string;

  /** `empty`: a directory without a repository, for Fixture.copyOf to fill. */
  constructor(opts: { bare?: boolean; dir?: string; empty?: boolean } = {}) {
    this.tmpRoot = mkdtempSync(path.join(os.tmpdir(), "gitgood-fixture-"));
    this.dir = opts.dir ?? path.join(this.tmpRoot, "repo");
    mkdirSync(this.dir, { recursive: true });
    if (opts.empty) return;
    this.git("init", "-q", "-b", "main", ...(opts.bare ? ["--bare"] : []));
    // What four `git config` calls would write, at the cost of none.
    appendFileSync(path.join(this.dir, ...(opts.bare ? [] : [".git"]), "config"), "[gc]\n\tauto = 0\n[commit]\n\tgpgsign = false\n[core]\n\tautocrlf = false\n[merge]\n\tconflictStyle = merge\n");
  }

  /**
   * A repository of its own holding what `source` holds (objects, refs, index, work tree, config), its clock
   * going on from the source's: for a test that changes a fixture a template built once gives it, at the cost
   * of a file copy instead of the git processes that built the template. Links are copied as links.
   */
  static copyOf(source: Fixture): Fixture {
    const copy = new Fixture({ empty: true });
    cpSync(source.dir, copy.dir, { recursive: true, verbatimSymlinks: true });
    copy.tick = source.tick;
    return copy;
  }

  /** A scratch directory that is removed with the fixture. */
  scratch(name: string): string {
    const p = path.join(this.tmpRoot, name);
    mkdirSync(p, { recursive: true });
    return p;
  }

  private dates(): Record<string, string> {
    const t = `${BASE_TIME + this.tick * 60} +0000`;
    return { GIT_AUTHOR_DATE: t, GIT_COMMITTER_DATE: t };
  }

  /** Runs git in the repository (or `cwd`) and returns trimmed stdout. */
  git(...args: string[]): string {
    return this.gitIn(this.dir, ...args);
  }

  gitIn(cwd: string, ...args: string[]): string {
    return execFileSync("git", args, {
      cwd,
      env: fixtureEnv(this.dates()),
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      maxBuffer: 64 * 1024 * 1024,
    }).trimEnd();
  }

  /** Like git() but returns the exit code instead of throwing. */
  tryGit(...args: string[]): { code: number; stdout: string; stderr: string } {
    return this.tryGitIn(this.dir, ...args);
  }

  tryGitIn(cwd: string, ...args: string[]): { code: number; stdout: string; stderr: string } {
    try {
      return { code: 0, stdout: this.gitIn(cwd, ...args), stderr: "" };
    } catch (err) {
      const e = err as { status?: number; stdout?: string; stderr?: string };
      return { code: e.status ?? 1, stdout: String(e.stdout ?? ""), stderr: String(e.stderr ?? "") };
    }
  }

  write(files: FileSet): void {
    for (const [file, content] of Object.entries(files)) {
      const full = path.join(this.dir, file);
      if (content === null) {
        unlinkSync(full);
        continue;
      }
      mkdirSync(path.dirname(full), { recursive: true });
      writeFileSync(full, content);
    }
  }

  /** Writes files, stages everything and commits; returns the new commit's hash. */
  commit(message: string, files: FileSet = {}): string {
    this.tick++;
    this.write(files);
    this.git("add", "-A");
    this.git("commit", "-q", "--allow-empty", "-m", message);
    return this.head();
  }

  head(): string {
    return this.git("rev-parse", "HEAD");
  }

  checkout(branch: string, create = false): void {
    this.git("checkout", "-q", ...(create ? ["-b"] : []), branch);
  }

  /**
   * Merges `branch` into the current branch. When it conflicts, `resolution` gives the final content of
   * files; the merge is then committed. Returns the merge commit's hash.
   */
  merge(branch: string, resolution: FileSet = {}, message = `Merge ${branch}`): string {
    this.tick++;
    const r = this.tryGit("merge", "--no-ff", "-q", "-m", message, branch);
    if (r.code !== 0) {
      this.write(resolution);
      this.git("add", "-A");
      this.git("commit", "-q", "--no-edit", "-m", message);
    }
    return this.head();
  }

  /** Lines `prefix0`…`prefix{n-1}`, newline-terminated. */
  static lines(prefix: string, n: number, eol = "\n"): string {
    return Array.from({ length: n }, (_, i) => `${prefix}${i}${eol}`).join("");
  }

  remove(): void {
    rmSync(this.tmpRoot, { recursive: true, force: true });
  }
}

/**
 * For a test file: a function that makes fixtures, each removed after the test that made it. `setup`
 * runs on every new fixture.
 */
export function useFixtures(setup: (f: Fixture) => void = () => undefined): (opts?: { bare?: boolean }) => Fixture {
  const made: Fixture[] = [];
  afterEach(() => {
    for (const f of made.splice(0)) f.remove();
  });
  return (opts = {}) => {
    const f = new Fixture(opts);
    made.push(f);
    setup(f);
    return f;
  };
}
