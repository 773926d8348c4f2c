import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ROOT_MARK_FILE, ensureSandboxRoot, sandboxRoot } from "../../src/sandbox/root.js";
import { sweepStale } from "../../src/sandbox/sweep.js";
import { sampleToJson } from "../../src/dataset/sample.js";
import { gitgood, setEnv } from "../helpers/cli.js";
import { buildRunFixture } from "../helpers/runs.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tmp(name: string): string {
  const d = mkdtempSync(path.join(os.tmpdir(), `gitgood-${name}-`));
  dirs.push(d);
  return d;
}

/** A folder named as Sandbox.create names them, untouched for `ageMs`. */
function folder(root: string, name: string, ageMs: number): string {
  const dir = path.join(root, name);
  mkdirSync(dir);
  const when = new Date(Date.now() - ageMs);
  utimesSync(dir, when, when);
  return dir;
}

const uid = process.getuid?.() ?? -1;

describe("the sandbox root", () => {
  it("is the user's own: $XDG_RUNTIME_DIR/gitgood, else <tmp>/gitgood-<uid>, never a folder every user shares", () => {
    const runtime = tmp("runtime");
    let restore = setEnv({ GITGOOD_SANDBOX_ROOT: "", XDG_RUNTIME_DIR: runtime });
    try {
      expect(sandboxRoot()).toBe(path.join(runtime, "gitgood"));
    } finally {
      restore();
    }
    restore = setEnv({ GITGOOD_SANDBOX_ROOT: "", XDG_RUNTIME_DIR: "" });
    try {
      expect(sandboxRoot()).toBe(path.join(os.tmpdir(), `gitgood-${uid}`));
    } finally {
      restore();
    }
  });

  it("is made 0700 and marked as gitgood's; a root of the user's own is taken as it is", () => {
    const parent = tmp("parent");
    const root = path.join(parent, "gitgood");
    expect(ensureSandboxRoot(root)).toBe(root);
    expect(lstatSync(root).mode & 0o777).toBe(0o700);
    expect(existsSync(path.join(root, ROOT_MARK_FILE))).toBe(true);
    const own = tmp("own");
    expect(ensureSandboxRoot(own)).toBe(own);
    expect(existsSync(path.join(own, ROOT_MARK_FILE))).toBe(false);
  });

  it("refuses, in one line, a root that is a symbolic link, that others may write, or that belongs to someone else", () => {
    const parent = tmp("parent");
    const elsewhere = tmp("elsewhere");
    const link = path.join(parent, "gitgood");
    symlinkSync(elsewhere, link);
    expect(() => ensureSandboxRoot(link)).toThrow(`the sandbox root ${link} is refused: it is a symbolic link; remove it, or set GITGOOD_SANDBOX_ROOT`);
    const open = path.join(parent, "open");
    mkdirSync(open);
    chmodSync(open, 0o777);
    expect(() => ensureSandboxRoot(open)).toThrow(`the sandbox root ${open} is refused: others may write in it (mode 0777)`);
    if (uid === 0) {
      // A root squatted by another user (pre-created, then handed to them).
      const squatted = path.join(parent, "squatted");
      mkdirSync(squatted, { mode: 0o700 });
      chownSync(squatted, 65534, 65534);
      expect(() => ensureSandboxRoot(squatted)).toThrow(`the sandbox root ${squatted} is refused: it belongs to uid 65534, not to you (uid 0)`);
    }
  });

  it("a run with a squatted root stops in one line (exit 2) and puts nothing where the link points", async () => {
    const { fx, samples } = await buildRunFixture();
    try {
      const parent = tmp("parent");
      const canary = tmp("canary");
      const link = path.join(parent, "sandboxes");
      symlinkSync(canary, link);
      const file = path.join(parent, "samples.jsonl");
      writeFileSync(file, samples.map((x) => `${sampleToJson(x)}\n`).join(""));
      const out = path.join(parent, "run");
      const args = ["run", file, "--repo", fx.dir, "--agent", "command", "--command", "cat > /dev/null", "--isolation", "none", "--out", out];
      const r = await gitgood(args, { env: { GITGOOD_SANDBOX_ROOT: link } });
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split("\n").filter((l) => l.startsWith("gitgood:"))).toEqual([`gitgood: the sandbox root ${link} is refused: it is a symbolic link; remove it, or set GITGOOD_SANDBOX_ROOT to a directory of your own`]);
      expect(readdirSync(canary)).toEqual([]);
    } finally {
      fx.remove();
    }
  }, 120_000);
});

describe("sweeping the sandbox root", () => {
  it("removes sandbox folders left unmarked for an hour in a root gitgood made, and nothing else", () => {
    const root = ensureSandboxRoot(path.join(tmp("parent"), "gitgood"));
    const killed = folder(root, "acme_calc_merge_0001-AbC123", 2 * 3600_000);
    const young = folder(root, "acme_calc_merge_0002-XyZ789", 60_000);
    const other = folder(root, "notes", 2 * 3600_000);
    expect(sweepStale(root)).toEqual([killed]);
    expect(existsSync(young)).toBe(true);
    expect(existsSync(other)).toBe(true);
  });

  it("leaves unmarked folders alone in a root the user named (it may hold folders of their own)", () => {
    const root = tmp("named");
    const theirs = folder(root, "project-backup", 2 * 3600_000);
    const lookalike = folder(root, "thesis-Draft1", 2 * 3600_000);
    expect(sweepStale(root)).toEqual([]);
    expect(existsSync(theirs)).toBe(true);
    expect(existsSync(lookalike)).toBe(true);
  });
});
