import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { currentIndex, locate, resolveCurrent, scanConflicts } from "../../src/scenarios/shared/conflicts.js";
import { findRegions } from "../../src/git/markers.js";
import { lineAt, linesBefore } from "../../src/scenarios/shared/lines.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "gitgood-markers-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const region = (ours: string, theirs: string, eol = "\n"): string =>
  `<<<<<<< HEAD${eol}${ours}${eol}=======${eol}${theirs}${eol}>>>>>>> other${eol}`;

describe("conflict regions", () => {
  it("finds regions from the <<<<<<< line through the line break after >>>>>>>", () => {
    const text = `a\n${region("o", "t")}b\n`;
    const [r] = findRegions(Buffer.from(text));
    expect(text.slice(r?.start, r?.end)).toBe(region("o", "t"));
  });

  it("handles CRLF, a region at the very end without a final line break, and longer marker runs", () => {
    const crlf = Buffer.from(`x\r\n${region("o", "t", "\r\n")}`);
    expect(findRegions(crlf)).toEqual([{ start: 3, end: crlf.length }]);
    const noEol = Buffer.from(`<<<<<<< HEAD\no\n=======\nt\n>>>>>>> other`);
    expect(findRegions(noEol)).toEqual([{ start: 0, end: noEol.length }]);
    const inner = Buffer.from("<<<<<<<< not a marker\n>>>>>>>> nor this\n<<<<<<<x\n");
    expect(findRegions(inner)).toEqual([]);
    const unclosed = Buffer.from("<<<<<<< HEAD\no\n=======\n");
    expect(findRegions(unclosed)).toEqual([]);
  });

  it("counts lines and context from byte offsets", () => {
    const buf = Buffer.from("l1\nl2\nl3\nl4\n");
    expect(lineAt(buf, 0)).toBe(1);
    expect(lineAt(buf, 6)).toBe(3);
    expect(linesBefore(buf, 6, 1).text).toBe("l2\n");
    expect(linesBefore(buf, 6, 5).text).toBe("l1\nl2\n");
    expect(linesBefore(buf, 1, 2).text).toBe("l");
    expect(linesBefore(buf, 0, 2).text).toBe("");
  });

  it("resolves adjacent conflicts in order even when a resolution has no final line break", () => {
    const file = "adjacent.py";
    writeFileSync(path.join(dir, file), `${region("a", "b")}${region("c", "d")}${region("e", "f")}tail\n`);
    const state = scanConflicts(dir, [file]);
    expect(state.conflicts).toHaveLength(3);
    expect(resolveCurrent(dir, state, "AB")).toBe(0);
    expect(currentIndex(state)).toBe(1);
    // The next region starts right after the resolution, mid-line, and is still found.
    expect(locate(dir, state, 1).region.start).toBe(2);
    expect(resolveCurrent(dir, state, "")).toBe(1);
    expect(resolveCurrent(dir, state, "EF\n")).toBe(2);
    expect(currentIndex(state)).toBeNull();
    expect(readFileSync(path.join(dir, file), "utf8")).toBe("ABEF\ntail\n");
    expect(locate(dir, state, 0).region).toEqual({ start: 0, end: 2 });
    expect(() => resolveCurrent(dir, state, "x")).toThrow("no unresolved conflict");
  });

  it("treats a conflicted file without markers as one whole-file conflict; empty text deletes it", () => {
    const file = "deleted-on-one-side.py";
    writeFileSync(path.join(dir, file), "kept\n");
    const state = scanConflicts(dir, [file]);
    expect(state.files[0]?.wholeFile).toBe(true);
    expect(locate(dir, state, 0).region).toEqual({ start: 0, end: 5 });
    resolveCurrent(dir, state, "");
    expect(() => readFileSync(path.join(dir, file))).toThrow();
  });

  it("notices markers changed behind its back", () => {
    const file = "tampered.py";
    writeFileSync(path.join(dir, file), region("a", "b"));
    const state = scanConflicts(dir, [file]);
    writeFileSync(path.join(dir, file), "no markers any more\n");
    expect(() => locate(dir, state, 0)).toThrow("changed outside the tools");
  });
});
