import { spawnSync } from "node:child_process";
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, rmSync, statfsSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { privateObjectStore } from "../../src/git/objects.js";
import { Repo } from "../../src/git/repo.js";
import { privateTempDir, scratchRoot } from "../../src/util/tempdirs.js";

let work: string;
let savedTmpdir: string | undefined;
beforeEach(() => {
  work = mkdtempSync(path.join(os.tmpdir(), "gitgood-tempdirs-"));
  savedTmpdir = process.env.TMPDIR;
});
afterEach(() => {
  if (savedTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmpdir;
  rmSync(work, { recursive: true, force: true });
});

/** Whether this machine has a memory folder scratchRoot may take: a tmpfs at /dev/shm with 1 GiB free. */
function memoryFolderHere(): boolean {
  try {
    const fs = statfsSync("/dev/shm");
    accessSync("/dev/shm", constants.W_OK);
    return fs.type === 0x01021994 && fs.bavail * fs.bsize >= 1 << 30;
  } catch {
    return false;
  }
}

describe("scratchRoot", () => {
  it("is the folder TMPDIR names when it names one", () => {
    process.env.TMPDIR = work;
    expect(scratchRoot()).toBe(work);
  });

  it("without TMPDIR, is the memory folder when it is a tmpfs with room, else the system's temporary folder", () => {
    delete process.env.TMPDIR;
    expect(scratchRoot()).toBe(memoryFolderHere() ? "/dev/shm" : os.tmpdir());
  });

  it("holds the private object stores git writes re-merges into, which are removed on request", async () => {
    process.env.TMPDIR = work;
    const repo = path.join(work, "repo");
    spawnSync("git", ["init", "-q", repo]);
    const store = privateObjectStore(await Repo.open(repo));
    const dir = store.env.GIT_OBJECT_DIRECTORY as string;
    expect(path.dirname(dir)).toBe(work);
    store.remove();
    expect(existsSync(dir)).toBe(false);
  });
});

describe("privateTempDir in a given folder", () => {
  it("is made there and sweeps the folders a dead process of this machine left there, not a live one's nor an unmarked one", () => {
    const root = path.join(work, "root");
    mkdirSync(root);
    const dead = spawnSync(process.execPath, ["-e", "process.pid"]).pid as number;
    const leave = (name: string, pid: number | null) => {
      const dir = path.join(root, name);
      mkdirSync(dir);
      if (pid !== null) writeFileSync(path.join(dir, ".gitgood-owner"), `${JSON.stringify({ mark: "gitgood-temp/1", pid, host: os.hostname() })}\n`);
      return dir;
    };
    const gone = leave("gitgood-probe-dead", dead);
    const alive = leave("gitgood-probe-alive", process.pid);
    const unmarked = leave("gitgood-probe-unmarked", null);
    const made = privateTempDir("gitgood-probe-", root);
    expect(path.dirname(made.dir)).toBe(root);
    expect(existsSync(gone)).toBe(false);
    expect(existsSync(alive)).toBe(true);
    expect(existsSync(unmarked)).toBe(true);
    made.remove();
    expect(existsSync(made.dir)).toBe(false);
  });
});
