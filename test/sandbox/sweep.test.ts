import { spawnSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Repo } from "../../src/git/repo.js";
import { currentOwner, OWNER_FILE, readOwner, writeOwner } from "../../src/sandbox/owner.js";
import { ROOT_MARK_FILE } from "../../src/sandbox/root.js";
import { Sandbox } from "../../src/sandbox/sandbox.js";
import { sweepStale } from "../../src/sandbox/sweep.js";
import { Fixture } from "../helpers/fixture.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tmp(name: string): string {
  const d = mkdtempSync(path.join(os.tmpdir(), `gitgood-${name}-`));
  dirs.push(d);
  return d;
}

/** The id of a process that has exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
  return Number(r.stdout);
}

/** Makes `dir` (with a file in it) look an hour old, as the old sweeper's ten-minute rule wanted. */
function oldFolder(dir: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "keep.txt"), "the user's\n");
  const old = new Date(Date.now() - 3600_000);
  utimesSync(dir, old, old);
  return dir;
}

describe("the stale-sandbox sweeper removes only what gitgood made and marked", () => {
  it("removes a sandbox whose removal in the background its process's death cut short, not one a live process is removing", () => {
    const root = tmp("trash");
    writeFileSync(path.join(root, ROOT_MARK_FILE), "");
    const orphan = path.join(root, `merge_0000-zKSqrI.removing-${deadPid()}-48c316fe`);
    const busy = path.join(root, `merge_0001-aBcDeF.removing-${process.pid}-0123abcd`);
    const user = path.join(root, `notes.removing-${deadPid()}-48c316fe`);
    for (const d of [orphan, busy, user]) {
      mkdirSync(path.join(d, "work"), { recursive: true });
      writeFileSync(path.join(d, "work", "f.txt"), "x\n");
    }
    expect(sweepStale(root)).toEqual([orphan]);
    expect([existsSync(orphan), existsSync(busy), existsSync(user)]).toEqual([false, true, true]);
    const elsewhere = tmp("trash-unmarked");
    const unmarked = path.join(elsewhere, `merge_0000-zKSqrI.removing-${deadPid()}-48c316fe`);
    mkdirSync(unmarked);
    expect(sweepStale(elsewhere)).toEqual([]);
  });

  it("in a root the user named, a cut removal goes while it still holds gitgood's owner record of a dead process (removed last for this)", () => {
    const root = tmp("trash-named");
    const dead = deadPid();
    const owned = path.join(root, `merge_0000-zKSqrI.removing-${dead}-48c316fe`);
    const livePid = path.join(root, `merge_0001-zKSqrI.removing-${dead}-48c316ff`);
    const bare = path.join(root, `merge_0002-zKSqrI.removing-${dead}-48c31700`);
    for (const d of [owned, livePid, bare]) mkdirSync(path.join(d, "work"), { recursive: true });
    writeOwner(owned, { ...currentOwner(false), pid: dead });
    // A record naming a live process (this one): its owner is alive.
    writeOwner(livePid, currentOwner(false));
    expect(sweepStale(root)).toEqual([owned]);
    expect([existsSync(owned), existsSync(livePid), existsSync(bare)]).toEqual([false, true, true]);
  });

  it("with GITGOOD_SANDBOX_ROOT=$HOME, the user's folders survive and only a marked dead sandbox goes", async () => {
    const home = tmp("home");
    const projects = oldFolder(path.join(home, "projects"));
    // A folder with an owner.json of its own (not gitgood's), and one that imitates gitgood's without the mark.
    const foreign = oldFolder(path.join(home, "service"));
    writeFileSync(path.join(foreign, OWNER_FILE), `${JSON.stringify({ pid: deadPid(), created: 0, host: os.hostname() })}\n`);
    const broken = oldFolder(path.join(home, "broken"));
    writeFileSync(path.join(broken, OWNER_FILE), "{not json");
    // A link in the root to a marked, dead sandbox elsewhere, and a marked record that is itself a link.
    const elsewhere = tmp("elsewhere");
    const target = path.join(elsewhere, "sandbox");
    mkdirSync(target);
    writeOwner(target, { ...currentOwner(false), pid: deadPid() });
    symlinkSync(target, path.join(home, "link-to-sandbox"));
    const linkedRecord = oldFolder(path.join(home, "linked-record"));
    symlinkSync(path.join(target, OWNER_FILE), path.join(linkedRecord, OWNER_FILE));
    // A real stale sandbox made by gitgood and left by a killed process.
    const fx = new Fixture();
    dirs.push(path.dirname(fx.dir));
    fx.commit("base", { "a.txt": "a\n" });
    const sb = await Sandbox.create(await Repo.open(fx.dir), { label: "killed", root: home, keep: true, store: { packs: [], shallow: [] } });
    writeOwner(sb.dir, { ...currentOwner(false), pid: deadPid() });

    expect(readOwner(foreign)).toBeNull();
    expect(readOwner(linkedRecord)).toBeNull();
    expect(readOwner(path.join(home, "link-to-sandbox"))).toBeNull();
    expect(sweepStale(home)).toEqual([sb.dir]);
    for (const d of [projects, foreign, broken, linkedRecord]) {
      expect(readFileSync(path.join(d, "keep.txt"), "utf8")).toBe("the user's\n");
    }
    expect(lstatSync(path.join(home, "link-to-sandbox")).isSymbolicLink()).toBe(true);
    expect(existsSync(path.join(target, OWNER_FILE))).toBe(true);
    expect(existsSync(sb.dir)).toBe(false);
  });

  it("marks every sandbox it makes, and a live one is kept", async () => {
    const root = tmp("sandboxes");
    const fx = new Fixture();
    dirs.push(path.dirname(fx.dir));
    fx.commit("base", { "a.txt": "a\n" });
    const sb = await Sandbox.create(await Repo.open(fx.dir), { label: "live", root, store: { packs: [], shallow: [] } });
    try {
      expect(JSON.parse(readFileSync(path.join(sb.dir, OWNER_FILE), "utf8"))).toMatchObject({ mark: "gitgood-sandbox/1", pid: process.pid });
      expect(sweepStale(root)).toEqual([]);
      expect(existsSync(sb.workDir)).toBe(true);
    } finally {
      sb.remove();
    }
  });
});
