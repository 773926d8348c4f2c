import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { gitQuotedPath, isUtf8Path, parsePath, showPath } from "../../src/git/paths.js";
import {
  checkRelativePath,
  entryKind,
  projectPath,
  readProjectFile,
  readProjectLink,
  removeProjectEntry,
  writeProjectFile,
  writeProjectLink,
} from "../../src/sandbox/paths.js";
import { Fixture } from "../helpers/fixture.js";

const tmp = mkdtempSync(path.join(os.tmpdir(), "gitgood-paths-"));
const rootDir = path.join(tmp, "root");
const secret = path.join(tmp, "secret");
mkdirSync(path.join(rootDir, "src"), { recursive: true });
writeFileSync(path.join(rootDir, "src", "a.py"), "a\n");
writeFileSync(secret, "s\n");
symlinkSync(secret, path.join(rootDir, "out-link"));
symlinkSync(tmp, path.join(rootDir, "out-dir"));
symlinkSync("src/a.py", path.join(rootDir, "in-link"));
symlinkSync(path.join(tmp, "nowhere"), path.join(rootDir, "dangling"));
symlinkSync(".git", path.join(rootDir, "git-link"));
mkdirSync(path.join(rootDir, ".git"));
writeFileSync(path.join(rootDir, ".git", "config"), "[core]\n");
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const LATIN1 = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x2e, 0x70, 0x79]); // "café.py" in Latin-1

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return (err as { code?: string }).code;
  }
  return undefined;
}

describe("path notation", () => {
  it("shows printable UTF-8 as it is and quotes everything else the way git does", () => {
    expect(showPath(Buffer.from("src/héllo wörld.py"))).toBe("src/héllo wörld.py");
    expect(showPath(LATIN1)).toBe('"caf\\351.py"');
    expect(showPath(Buffer.from('a"b\\c\td\ne'))).toBe('"a\\"b\\\\c\\td\\ne"');
    expect(showPath(Buffer.from("esc\x1b[31m\x7f"))).toBe('"esc\\033[31m\\177"');
    expect(showPath(Buffer.from("c1\u009bx"))).toBe('"c1\\302\\233x"');
    expect(showPath(Buffer.from('"quoted"'))).toBe('"\\"quoted\\""');
    expect(gitQuotedPath(Buffer.from("héllo.py"))).toBe('"h\\303\\251llo.py"');
  });

  it("reads back its own notation, git's quoting and \\x escapes; anything unquoted is literal", () => {
    expect(parsePath('"caf\\351.py"').equals(LATIN1)).toBe(true);
    expect(parsePath('"caf\\xe9.py"').equals(LATIN1)).toBe(true);
    expect(parsePath('"h\\303\\251llo.py"').toString("utf8")).toBe("héllo.py");
    expect(parsePath("caf\\351.py").toString("utf8")).toBe("caf\\351.py");
    expect(parsePath(":(glob)*.py").toString("utf8")).toBe(":(glob)*.py");
    for (const bad of ['"open', '"a"b', '"\\q"', '"\\400"']) expect(codeOf(() => parsePath(bad)), bad).toBe("BAD_PATH");
  });

  it("maps every byte string to one notation and back", () => {
    let seed = 7;
    const next = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % 256;
    const samples = [LATIN1, Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xf4, 0x90, 0x80, 0x80]), Buffer.from([0xc0, 0xaf]), Buffer.from("𝄞✓")];
    for (let n = 0; n < 300; n++) samples.push(Buffer.from(Array.from({ length: 1 + (n % 12) }, next)));
    const seen = new Map<string, string>();
    for (const bytes of samples) {
      const shown = showPath(bytes);
      expect(parsePath(shown).equals(bytes), shown).toBe(true);
      const hex = bytes.toString("hex");
      expect(seen.get(shown) ?? hex).toBe(hex);
      seen.set(shown, hex);
    }
  });

  it("agrees with git on real file names (git is the oracle)", () => {
    const fx = new Fixture();
    try {
      const names = [
        Buffer.from("plain.py"),
        Buffer.from("héllo wörld.py"),
        LATIN1,
        Buffer.from("tab\there.py"),
        Buffer.from('quo"te.py'),
        Buffer.from("back\\slash.py"),
        Buffer.from("new\nline.py"),
        Buffer.from("esc\x1b[31m.py"),
        Buffer.from([0x78, 0xff, 0xfe, 0x2e, 0x70, 0x79]),
      ];
      for (const n of names) writeFileSync(Buffer.concat([Buffer.from(`${fx.dir}/`), n]), "x\n");
      fx.commit("names");
      const bytes = execFileSync("git", ["ls-files", "-z"], { cwd: fx.dir }).toString("latin1").split("\0").filter(Boolean);
      const quoted = fx.git("-c", "core.quotePath=true", "ls-files").split("\n");
      const readable = fx.git("-c", "core.quotePath=false", "ls-files").split("\n");
      expect(bytes).toHaveLength(names.length);
      bytes.forEach((latin, i) => {
        const b = Buffer.from(latin, "latin1");
        expect(gitQuotedPath(b)).toBe(quoted[i]);
        expect(parsePath(quoted[i] as string).equals(b)).toBe(true);
        if (isUtf8Path(b)) expect(showPath(b)).toBe(readable[i]);
        else expect(showPath(b)).toBe(quoted[i]);
      });
    } finally {
      fx.remove();
    }
  });
});

describe("checkRelativePath", () => {
  it.each([
    ["src/a.py", "src/a.py"],
    ["./src//a.py", "src/a.py"],
    ["src\\a.py", "src/a.py"],
    ["src/new-file.py", "src/new-file.py"],
    ['"src/a.py"', "src/a.py"],
    ["in-link", "in-link"],
    ["out-link", "out-link"],
    [":(glob)*", ":(glob)*"],
    ['"caf\\351.py"', '"caf\\351.py"'],
  ])("accepts %s as %s (the last component may be a link: each operation decides)", (given, shown) => {
    expect(checkRelativePath(rootDir, given).shown).toBe(shown);
  });

  it("keeps bytes that are not UTF-8", () => {
    expect(checkRelativePath(rootDir, '"src/caf\\351.py"').bytes.equals(Buffer.concat([Buffer.from("src/"), LATIN1]))).toBe(true);
  });

  it.each([
    ["", "PATH_OUTSIDE", "empty"],
    ["../secret", "PATH_OUTSIDE", "'..'"],
    ["src/../../secret", "PATH_OUTSIDE", "'..'"],
    ['"src/../../secret"', "PATH_OUTSIDE", "'..'"],
    ["/etc/passwd", "PATH_OUTSIDE", "absolute"],
    ['"/etc/passwd"', "PATH_OUTSIDE", "absolute"],
    ["C:\\Windows", "PATH_OUTSIDE", "absolute"],
    [".git/config", "PATH_OUTSIDE", ".git"],
    [".GIT/HEAD", "PATH_OUTSIDE", ".git"],
    ["src/.git/config", "PATH_OUTSIDE", ".git"],
    [".", "PATH_OUTSIDE", "project root itself"],
    ["a\0b", "PATH_OUTSIDE", "NUL"],
    ['"a\\000b"', "PATH_OUTSIDE", "NUL"],
    ['"open', "BAD_PATH", "closing quote"],
    ["out-dir/secret", "SYMLINK_REFUSED", "'out-dir' is a symbolic link"],
    ["git-link/config", "SYMLINK_REFUSED", "'git-link' is a symbolic link"],
  ])("refuses %j with %s", (given, code, why) => {
    expect(() => checkRelativePath(rootDir, given)).toThrow(why);
    expect(codeOf(() => checkRelativePath(rootDir, given))).toBe(code);
  });
});

describe("work-tree access without following links", () => {
  const p = (given: string) => checkRelativePath(rootDir, given);

  it("tells entries apart by lstat and reads a link's target, never what it points to", () => {
    expect(entryKind(rootDir, p("src/a.py"))).toBe("file");
    expect(entryKind(rootDir, p("out-link"))).toBe("link");
    expect(entryKind(rootDir, p("dangling"))).toBe("link");
    expect(entryKind(rootDir, p("src"))).toBe("directory");
    expect(entryKind(rootDir, p("nope.py"))).toBe("missing");
    expect(readProjectLink(rootDir, p("out-link")).toString()).toBe(secret);
    expect(readProjectFile(rootDir, p("src/a.py")).toString()).toBe("a\n");
    for (const link of ["out-link", "in-link", "dangling", "git-link"]) {
      expect(codeOf(() => readProjectFile(rootDir, p(link))), link).toBe("SYMLINK_REFUSED");
    }
    expect(codeOf(() => readProjectFile(rootDir, p("src")))).toBe("NOT_A_FILE");
    expect(codeOf(() => readProjectFile(rootDir, p("nope.py")))).toBe("NOT_FOUND");
  });

  it("refuses a FIFO without blocking on it", () => {
    execFileSync("mkfifo", [path.join(rootDir, "pipe")]);
    try {
      expect(codeOf(() => readProjectFile(rootDir, p("pipe")))).toBe("NOT_A_FILE");
    } finally {
      rmSync(path.join(rootDir, "pipe"));
    }
  });

  it("never writes through a link, and replaces or removes links themselves", () => {
    expect(codeOf(() => writeProjectFile(rootDir, p("out-link"), Buffer.from("pwned")))).toBe("SYMLINK_REFUSED");
    expect(codeOf(() => writeProjectFile(rootDir, p("dangling"), Buffer.from("pwned")))).toBe("SYMLINK_REFUSED");
    expect(codeOf(() => writeProjectFile(rootDir, projectPath("out-dir/new.txt"), Buffer.from("pwned")))).toBe("SYMLINK_REFUSED");
    expect(codeOf(() => writeProjectLink(rootDir, projectPath("out-dir/new.txt"), Buffer.from("x")))).toBe("SYMLINK_REFUSED");
    expect(codeOf(() => removeProjectEntry(rootDir, projectPath("out-dir/secret")))).toBe("SYMLINK_REFUSED");
    expect(readFileSync(secret, "utf8")).toBe("s\n");
    expect(existsSync(path.join(tmp, "nowhere"))).toBe(false);
    expect(existsSync(path.join(tmp, "new.txt"))).toBe(false);

    const link = p("relink");
    writeProjectLink(rootDir, link, Buffer.from(secret));
    writeProjectLink(rootDir, link, Buffer.from("../elsewhere"));
    expect(readlinkSync(path.join(rootDir, "relink"))).toBe("../elsewhere");
    writeProjectFile(rootDir, p("made.txt"), Buffer.from("m"));
    writeProjectLink(rootDir, p("made.txt"), Buffer.from("target"));
    expect(lstatSync(path.join(rootDir, "made.txt")).isSymbolicLink()).toBe(true);
    removeProjectEntry(rootDir, p("relink"));
    removeProjectEntry(rootDir, p("made.txt"));
    removeProjectEntry(rootDir, p("made.txt"));
    expect(readFileSync(secret, "utf8")).toBe("s\n");
    expect(readdirSync(tmp).sort()).toEqual(["root", "secret"]);
    expect(codeOf(() => writeProjectLink(rootDir, p("bad-link"), Buffer.from("a\0b")))).toBe("BAD_ARGUMENTS");
  });

  it("overwrites a file in place (its mode kept) and creates a missing one with the mode asked for", () => {
    const script = path.join(rootDir, "run.sh");
    writeFileSync(script, "old, longer content\n");
    chmodSync(script, 0o755);
    writeProjectFile(rootDir, p("run.sh"), Buffer.from("new\n"));
    expect(readFileSync(script, "utf8")).toBe("new\n");
    expect(statSync(script).mode & 0o777).toBe(0o755);
    writeProjectFile(rootDir, p("src/tool.sh"), Buffer.from("t\n"), 0o755);
    expect(statSync(path.join(rootDir, "src", "tool.sh")).mode & 0o111).not.toBe(0);
    writeProjectFile(rootDir, p('"src/caf\\351.py"'), Buffer.from("latin\n"));
    expect(readFileSync(Buffer.concat([Buffer.from(`${rootDir}/src/`), LATIN1]), "utf8")).toBe("latin\n");
  });
});

describe("tool call lock", () => {
  it("refuses a second holder while the first lives, and takes over a dead holder's lock", async () => {
    const { acquireLock } = await import("../../src/sandbox/call-lock.js");
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
