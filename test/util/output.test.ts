import { execFileSync, spawn } from "node:child_process";
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { writeOutputFile } from "../../src/util/output.js";
import { gitgood } from "../helpers/cli.js";
import { Fixture } from "../helpers/fixture.js";

// The CLI case runs the built CLI (npm run build first).

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
  const d = mkdtempSync(path.join(os.tmpdir(), "gitgood-output-"));
  dirs.push(d);
  return d;
}

/** Starts `cat FILE` and resolves with everything it read once the writer closes the FIFO. */
function readFifo(fifo: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn("cat", [fifo]);
    let out = "";
    child.stdout.on("data", (b: Buffer) => (out += b.toString("utf8")));
    child.on("error", reject);
    child.on("close", () => resolve(out));
  });
}

describe("writeOutputFile", () => {
  it("replaces a regular file atomically, keeping its permissions and leaving no temporary file", () => {
    const dir = tmp();
    const file = path.join(dir, "out.jsonl");
    writeFileSync(file, "old\n");
    chmodSync(file, 0o640);
    const inode = statSync(file).ino;
    writeOutputFile(file, "new\n");
    expect(readFileSync(file, "utf8")).toBe("new\n");
    expect(statSync(file).ino).not.toBe(inode);
    expect(statSync(file).mode & 0o777).toBe(0o640);
    writeOutputFile(path.join(dir, "fresh.txt"), "made\n");
    expect(readFileSync(path.join(dir, "fresh.txt"), "utf8")).toBe("made\n");
    expect(readdirSync(dir).sort()).toEqual(["fresh.txt", "out.jsonl"]);
  });

  it("writes through a symbolic link: the target gets the data, the link stays a link", () => {
    const dir = tmp();
    const target = path.join(dir, "elsewhere", "real.html");
    mkdirSync(path.dirname(target));
    writeFileSync(target, "old\n");
    const link = path.join(dir, "report.html");
    symlinkSync(target, link);
    writeOutputFile(link, "<html></html>\n");
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe(target);
    expect(readFileSync(target, "utf8")).toBe("<html></html>\n");
    expect(readdirSync(dir).sort()).toEqual(["elsewhere", "report.html"]);
    expect(readdirSync(path.dirname(target))).toEqual(["real.html"]);
  });

  it("writes through a FIFO to its reader and leaves it a FIFO", async () => {
    const dir = tmp();
    const fifo = path.join(dir, "pipe");
    execFileSync("mkfifo", [fifo]);
    const read = readFifo(fifo);
    const data = `${"x".repeat(200_000)}\nend\n`;
    writeOutputFile(fifo, data);
    expect(await read).toBe(data);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(readdirSync(dir)).toEqual(["pipe"]);
  });

  it("refuses a directory with a one-line error", () => {
    const dir = tmp();
    expect(() => writeOutputFile(dir, "x")).toThrow(new RegExp(`^cannot write ${dir}: it is a directory$`));
  });

  it("gitgood mine -o through a symbolic link and into a FIFO", async () => {
    const fx = new Fixture();
    try {
      fx.commit("add", { "a.py": "a\n" });
      fx.commit("other", { "b.txt": "b\n" });
      for (const n of [1, 2, 3]) fx.commit(`step ${n}`, { "a.py": Fixture.lines("a", n + 1) });
      const dir = tmp();
      const target = path.join(dir, "target.jsonl");
      writeFileSync(target, "stale\n");
      const link = path.join(dir, "samples.jsonl");
      symlinkSync(target, link);
      const r = await gitgood(["mine", fx.dir, "--name", "o/r", "-o", link]);
      expect(r.code).toBe(0);
      expect(lstatSync(link).isSymbolicLink()).toBe(true);
      const samples = readFileSync(target, "utf8");
      expect(samples).toMatch(/^\{"id":"o_r_file_commit_chain_0000",/);
      const fifo = path.join(dir, "pipe");
      execFileSync("mkfifo", [fifo]);
      const read = readFifo(fifo);
      const viaFifo = await gitgood(["mine", fx.dir, "--name", "o/r", "--json", "-o", fifo]);
      expect(viaFifo.code).toBe(0);
      expect(await read).toBe(samples);
      expect(lstatSync(fifo).isFIFO()).toBe(true);
    } finally {
      fx.remove();
    }
  });
});
