import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Repo } from "../../src/git/repo.js";
import { initOwnSandboxRepo, openOwnSandboxRepo, type WorkTreeMode } from "../../src/git/shared-clone.js";
import { type Fixture, fixtureEnv } from "./fixture.js";

/** A sandbox's work tree, gitgood's own git directory for it, and a handle on both with a long-lived reader. */
export interface OwnSandbox {
  work: string;
  own: string;
  repo: Repo;
}

/** Makes and removes the sandbox directories of a test file. */
export function ownSandboxes(): { make(from: Fixture, branch: string, workTree?: WorkTreeMode): Promise<OwnSandbox>; cleanup(): void } {
  const dirs: string[] = [];
  return {
    /** A sandbox's work tree and own git directory as `Sandbox.create` makes them, reading `from`'s objects through alternates. */
    async make(from, branch, workTree = "tools") {
      const dir = mkdtempSync(path.join(os.tmpdir(), "gitgood-own-sandbox-"));
      dirs.push(dir);
      const work = path.join(dir, "work");
      const own = path.join(dir, "private", "git");
      initOwnSandboxRepo(work, own, branch, workTree);
      writeFileSync(path.join(own, "objects", "info", "alternates"), `${path.join(from.dir, ".git", "objects")}\n`);
      const repo = (await openOwnSandboxRepo(work, own)).keepReader();
      await repo.reader?.info("HEAD");
      return { work, own, repo };
    },
    cleanup() {
      dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
    },
  };
}

/** Every file and folder (with a trailing slash) below `dir`, sorted as listed. */
export function filesBelow(dir: string, rel = ""): string[] {
  return readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((e) => {
    const child = rel === "" ? e.name : `${rel}/${e.name}`;
    return e.isDirectory() ? [`${child}/`, ...filesBelow(dir, child)] : [child];
  });
}

/** Runs git on a sandbox through its own git directory, with the test's fixed identity. */
export function gitOn(side: OwnSandbox, ...args: string[]): string {
  return execFileSync("git", args, { env: fixtureEnv({ GIT_DIR: side.own, GIT_WORK_TREE: side.work }), cwd: side.work }).toString("utf8");
}

/** A reflog with each line's clock (`seconds zone`) taken out. */
export function clockless(file: string): string {
  return readFileSync(file, "utf8").replace(/> \d+ [+-]\d{4}\t/g, "> <clock>\t");
}
