import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { fileSetDiff, type FileBytes } from "../../src/git/file-set-diff.js";
import { scratchRoot } from "../../src/util/tempdirs.js";
import { countGitProcesses } from "../helpers/git-count.js";

/*
 * fileSetDiff must print what `git diff --no-index a b` prints for the two sets written out as folders:
 * here git itself, run on folders this test writes, is the oracle, for file sets an agent or a repository
 * could make hostile (binary bytes, modes, names with spaces, line breaks, quotes and bytes that are not
 * UTF-8, folders whose names sort apart from a tree's order, files added or removed).
 */

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function writeSet(root: string, files: readonly FileBytes[]): void {
  mkdirSync(root, { recursive: true });
  for (const f of files) {
    if (f.bytes === null) continue;
    const full = path.join(root, f.path);
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, f.bytes, { mode: f.executable === true ? 0o755 : 0o644 });
  }
}

/** What git's own `diff --no-index` prints for the two sets. */
function oracle(before: readonly FileBytes[], after: readonly FileBytes[]): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "gitgood-fileset-oracle-"));
  dirs.push(dir);
  writeSet(path.join(dir, "a"), before);
  writeSet(path.join(dir, "b"), after);
  const r = spawnSync("git", ["diff", "--no-index", "--no-color", "--no-ext-diff", "--no-textconv", "--no-prefix", "a", "b"], {
    cwd: dir,
    env: { ...process.env, GIT_CONFIG_GLOBAL: os.devNull, GIT_CONFIG_NOSYSTEM: "1", LC_ALL: "C" },
  });
  expect([0, 1]).toContain(r.status);
  return r.stdout.toString("utf8");
}

const text = (s: string): Buffer => Buffer.from(s, "utf8");
const lines = (n: number, change = -1): Buffer => text(Array.from({ length: n }, (_, i) => (i === change ? `changed ${i}\n` : `line ${i}\n`)).join(""));
const f = (p: string, bytes: Buffer | null, executable = false): FileBytes => ({ path: p, bytes, executable });

/** Pairs of sets: what a recorded merge and an agent's result can differ by. */
const CASES: Record<string, [FileBytes[], FileBytes[]]> = {
  "one changed line": [[f("io.py", lines(20))], [f("io.py", lines(20, 7))]],
  "binary bytes": [[f("img.bin", Buffer.from([0, 1, 2, 255, 0]))], [f("img.bin", Buffer.from([0, 1, 3, 254, 0, 9]))]],
  "a mode alone, and a mode with bytes": [
    [f("run.sh", text("echo\n")), f("tool.sh", text("a\n"), true)],
    [f("run.sh", text("echo\n"), true), f("tool.sh", text("b\n"))],
  ],
  "names with spaces, line breaks, quotes, tabs and non-UTF-8 bytes": [
    [f("sp ace.txt", text("a\n")), f("new\nline.txt", text("a\n")), f('q"uote\\.txt', text("a\n")), f("tab\there", text("a\n")), f("caf\u00e9.txt", text("a\n")), f("\udcff-not-utf8", text("a\n"))],
    [f("sp ace.txt", text("b\n")), f("new\nline.txt", text("b\n")), f('q"uote\\.txt', text("b\n")), f("tab\there", text("b\n")), f("caf\u00e9.txt", text("b\n")), f("\udcff-not-utf8", text("b\n"))],
  ],
  "a folder whose name starts a file's name (x/ against x-z, x.y, x z)": [
    [f("x/y", text("1\n")), f("x-z", text("1\n")), f("x.y", text("1\n")), f("x z", text("1\n")), f("x/w/deep", text("1\n")), f("xa", text("1\n"))],
    [f("x/y", text("2\n")), f("x-z", text("2\n")), f("x.y", text("2\n")), f("x z", text("2\n")), f("x/w/deep", text("2\n")), f("xa", text("2\n"))],
  ],
  "files removed (the recorded merge has them, the agent's result not)": [
    [f("keep.txt", lines(5)), f("gone.txt", lines(5)), f("sub/gone", text("x\n"))],
    [f("keep.txt", lines(5, 2)), f("gone.txt", null), f("sub/gone", null)],
  ],
  "files added, an empty one and one without a final line break": [
    [f("keep.txt", lines(5)), f("new.txt", null), f("empty", null), f("nolf", null)],
    [f("keep.txt", lines(5, 1)), f("new.txt", lines(3)), f("empty", Buffer.alloc(0)), f("nolf", text("no break"))],
  ],
  "a file removed and one added with the same bytes (a rename to --no-index)": [
    [f("old.txt", lines(30)), f("new.txt", null)],
    [f("old.txt", null), f("new.txt", lines(30))],
  ],
  "a file becoming a folder": [
    [f("thing", text("file\n")), f("thing/inside", null)],
    [f("thing", null), f("thing/inside", text("now a folder\n"))],
  ],
  "no newline at the end, CRLF lines": [[f("win.txt", text("a\r\nb\r\nc"))], [f("win.txt", text("a\r\nB\r\nc\r\n"))]],
  "the same bytes on both sides": [[f("same.txt", text("s\n"))], [f("same.txt", text("s\n"))]],
  "a diff line that reads like the store's end line": [[f("end.txt", text("gitgood: end of answer\n"))], [f("end.txt", text("x\ngitgood: end of answer\n"))]],
};

describe("fileSetDiff", () => {
  for (const [name, [before, after]] of Object.entries(CASES)) {
    it(`prints what git diff --no-index prints: ${name}`, async () => {
      expect(await fileSetDiff(before, after)).toBe(oracle(before, after));
    });
  }

  it("starts no git process once its store is open, for sets --no-index would not look for renames in", async () => {
    const [before, after] = CASES["one changed line"] as [FileBytes[], FileBytes[]];
    await fileSetDiff(before, after);
    const { processes, result } = await countGitProcesses(() => fileSetDiff(...(CASES["files removed (the recorded merge has them, the agent's result not)"] as [FileBytes[], FileBytes[]])));
    expect(processes).toBe(0);
    expect(result).toContain("deleted file mode");
  });

  it("replaces a full store with a fresh one, and removes the old one with its process", async () => {
    // This process's stores: the folders of the scratch root it marked as its own.
    const stores = (): string[] =>
      readdirSync(scratchRoot()).filter((n) => {
        if (!n.startsWith("gitgood-fileset-")) return false;
        const owner = path.join(scratchRoot(), n, ".gitgood-owner");
        return existsSync(owner) && (JSON.parse(readFileSync(owner, "utf8")) as { pid: number }).pid === process.pid;
      });
    // 250 changed files 40 folders deep write over 20,000 objects (a blob and 41 trees a side, per file).
    const deep = Array.from({ length: 40 }, (_, i) => `d${i}`).join("/");
    const many = Array.from({ length: 250 }, (_, i) => i);
    const before = many.map((i) => f(`${deep}/f${i}`, text(`${i}\n`)));
    const after = many.map((i) => f(`${deep}/f${i}`, text(`${i}!\n`)));
    expect(await fileSetDiff(before, after)).toBe(oracle(before, after));
    const [full] = stores();
    expect(stores()).toHaveLength(1);
    const next = await countGitProcesses(() => fileSetDiff([f("x", text("1\n"))], [f("x", text("2\n"))]));
    expect(next.result).toBe(oracle([f("x", text("1\n"))], [f("x", text("2\n"))]));
    expect(next.commands).toEqual([expect.stringMatching(/^diff-tree --stdin/)]);
    await vi.waitFor(() => expect(stores()).toEqual([expect.not.stringMatching(full as string)]), { timeout: 10_000 });
  }, 120_000);

  it("takes a set larger than its store may hold in (an agent sizes its files) to --no-index, with the same bytes", async () => {
    const big = Buffer.alloc(17 * 1024 * 1024, "a\n");
    const before = [f("big.txt", big), f("small.txt", text("1\n"))];
    const after = [f("big.txt", Buffer.concat([big, text("b\n")])), f("small.txt", text("2\n"))];
    const { commands, result } = await countGitProcesses(() => fileSetDiff(before, after));
    expect(commands).toEqual([expect.stringMatching(/^diff --no-index/)]);
    expect(result).toBe(oracle(before, after));
  }, 60_000);

  it("gives the same bytes for many files at once as one by one", async () => {
    const many = Array.from({ length: 40 }, (_, i) => i);
    const before = many.map((i) => f(`d${i % 3}/f${i}.txt`, lines(10)));
    const after = many.map((i) => f(`d${i % 3}/f${i}.txt`, lines(10, i % 10)));
    expect(await fileSetDiff(before, after)).toBe(oracle(before, after));
  });
});
