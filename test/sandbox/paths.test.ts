import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkRelativePath } from "../../src/sandbox/paths.js";

const tmp = mkdtempSync(path.join(os.tmpdir(), "gitgood-paths-"));
const rootDir = path.join(tmp, "root");
mkdirSync(path.join(rootDir, "src"), { recursive: true });
writeFileSync(path.join(rootDir, "src", "a.py"), "a\n");
writeFileSync(path.join(tmp, "secret"), "s\n");
symlinkSync(path.join(tmp, "secret"), path.join(rootDir, "out-link"));
symlinkSync(tmp, path.join(rootDir, "out-dir"));
symlinkSync("src/a.py", path.join(rootDir, "in-link"));
symlinkSync(path.join(tmp, "nowhere"), path.join(rootDir, "dangling"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("checkRelativePath", () => {
  it.each([
    ["src/a.py", "src/a.py"],
    ["./src//a.py", "src/a.py"],
    ["src\\a.py", "src/a.py"],
    ["src/new-file.py", "src/new-file.py"],
    ["in-link", "in-link"],
  ])("accepts %s", (given, expected) => {
    expect(checkRelativePath(rootDir, given)).toBe(expected);
  });

  it.each([
    ["", "empty"],
    ["../secret", "'..'"],
    ["src/../../secret", "'..'"],
    ["/etc/passwd", "absolute"],
    ["C:\\Windows", "absolute"],
    [".git/config", ".git"],
    [".GIT/HEAD", ".git"],
    ["out-link", "outside the project root"],
    ["out-dir/secret", "outside the project root"],
    ["dangling", "points nowhere"],
    [".", "project root itself"],
    ["a\0b", "NUL"],
  ])("refuses %j", (given, why) => {
    expect(() => checkRelativePath(rootDir, given)).toThrow(why);
    try {
      checkRelativePath(rootDir, given);
    } catch (err) {
      expect((err as { code: string }).code).toBe("PATH_OUTSIDE");
    }
  });
});

describe("tool call lock", () => {
  it("refuses a second holder while the first lives, and takes over a dead holder's lock", async () => {
    const { acquireLock } = await import("../../src/sandbox/lock.js");
    const { spawnSync, spawn } = await import("node:child_process");
    const lock = path.join(tmp, "call.lock");
    const release = acquireLock(lock);
    release();
    const sleeper = spawn(process.execPath, ["-e", "setTimeout(() => {}, 20000)"]);
    try {
      writeFileSync(lock, String(sleeper.pid));
      expect(() => acquireLock(lock)).toThrow(`process ${sleeper.pid}`);
    } finally {
      sleeper.kill();
    }
    const dead = Number(spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" }).stdout);
    writeFileSync(lock, String(dead));
    const again = acquireLock(lock);
    again();
  });
});
