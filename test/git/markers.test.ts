import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { countRemovedRegions, findRegions, lineMarker, regionSides } from "../../src/git/markers.js";
import { Remerger } from "../../src/git/mergetree.js";
import { remergeReports } from "../../src/git/remergediff.js";
import { Repo } from "../../src/git/repo.js";
import { Fixture, useFixtures } from "../helpers/fixture.js";

const fixture = useFixtures();
const b = (s: string): Buffer => Buffer.from(s);
const count = (s: string): number => findRegions(b(s)).length;
const texts = (s: string): string[] => findRegions(b(s)).map((r) => s.slice(r.start, r.end));

/**
 * What `git merge-file` makes of three versions: the merged text with markers and the number of
 * conflicts git reports (its exit code).
 */
function mergeFile(f: Fixture, versions: { ours: string; base: string; theirs: string }, ...opts: string[]) {
  const dir = f.scratch("merge-file");
  for (const [name, text] of Object.entries(versions)) writeFileSync(path.join(dir, name), text);
  const r = f.tryGitIn(dir, "merge-file", ...opts, "-L", "ours", "-L", "base", "-L", "theirs", "ours", "base", "theirs");
  return { text: readFileSync(path.join(dir, "ours"), "utf8"), conflicts: r.code };
}

const base = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n";
const ours = "a\nB1\nc\nd\ne\nf\ng\nh\nI1\nj\n";
const theirs = "a\nB2\nc\nd\ne\nf\ng\nh\nI2\nj\n";

describe("marker lines", () => {
  it("are exactly seven marker characters followed by a space, a line break or the end", () => {
    expect(lineMarker("<<<<<<< HEAD")).toBe("open");
    expect(lineMarker("<<<<<<<")).toBe("open");
    expect(lineMarker("<<<<<<<\r")).toBe("open");
    expect(lineMarker("||||||| base\n")).toBe("base");
    expect(lineMarker("=======")).toBe("separator");
    expect(lineMarker("=======\r\n")).toBe("separator");
    expect(lineMarker(">>>>>>> theirs (subject)")).toBe("close");
    for (const text of ["<<<<<<<< inner", "  <<<<<<< x", "<<<<<<<x", "<<<<<<<\tx", "======== ", "<<<<<<é", "", "print('<<<<<<< y')"]) {
      expect(lineMarker(text)).toBeNull();
    }
  });

  it("count regions opened at a line start only, as the old mining counter did", () => {
    expect(count("<<<<<<< ours\na\n=======\nb\n>>>>>>> theirs\n")).toBe(1);
    expect(count("x\n<<<<<<< a\n1\n=======\n2\n>>>>>>> b\ny\n<<<<<<< a\n3\n=======\n4\n>>>>>>> b\n")).toBe(2);
    expect(count("<<<<<<< a\r\n1\r\n=======\r\n2\r\n>>>>>>> b\r\n")).toBe(1);
    expect(count("<<<<<<<\n1\n=======\n2\n>>>>>>>\n")).toBe(1);
    expect(count("<<<<<<<<< inner\n  <<<<<<< x\nprint('<<<<<<< y')\n<<<<<<<x\n")).toBe(0);
    expect(count("")).toBe(0);
  });

  it("need the separator between the opening and the closing line", () => {
    expect(count("<<<<<<< a\nno separator\n>>>>>>> b\n")).toBe(0);
    expect(count("<<<<<<< a\n=======\n")).toBe(0);
  });
});

describe("conflict styles, against git merge-file", () => {
  it("reads merge style regions and their sides", () => {
    const f = fixture();
    const merged = mergeFile(f, { ours, base, theirs });
    expect(merged.conflicts).toBe(2);
    const regions = texts(merged.text);
    expect(regions).toEqual(["<<<<<<< ours\nB1\n=======\nB2\n>>>>>>> theirs\n", "<<<<<<< ours\nI1\n=======\nI2\n>>>>>>> theirs\n"]);
    expect(regionSides(regions[1] ?? "")).toEqual({ ours: "I1\n", base: null, theirs: "I2\n" });
  });

  it("reads the base section of the diff3 and zdiff3 styles", () => {
    const f = fixture();
    for (const style of ["--diff3", "--zdiff3"]) {
      const merged = mergeFile(f, { ours: "a\nx\ny1\nz\n", base: "a\nold\nz\n", theirs: "a\nx\ny2\nz\n" }, style);
      expect(merged.conflicts).toBe(1);
      const [region] = texts(merged.text);
      expect(region).toMatch(/^<<<<<<< ours\n[\s\S]*\n\|\|\|\|\|\|\| base\nold\n=======\n[\s\S]*>>>>>>> theirs\n$/);
      const sides = regionSides(region ?? "");
      expect(sides.base).toBe("old\n");
      // zdiff3 moves the common line out of the region; diff3 keeps it on both sides.
      expect(sides.ours).toBe(style === "--diff3" ? "x\ny1\n" : "y1\n");
      expect(sides.theirs).toBe(style === "--diff3" ? "x\ny2\n" : "y2\n");
      expect(merged.text.replace(region ?? "", "")).toBe(style === "--diff3" ? "a\nz\n" : "a\nx\nz\n");
    }
  });

  it("keeps CRLF line breaks in the sides and ends the region after the CRLF of its last marker", () => {
    const f = fixture();
    const crlf = (s: string) => s.replace(/\n/g, "\r\n");
    const merged = mergeFile(f, { ours: crlf(ours), base: crlf(base), theirs: crlf(theirs) });
    expect(merged.conflicts).toBe(2);
    const regions = texts(merged.text);
    expect(regions).toEqual([
      "<<<<<<< ours\r\nB1\r\n=======\r\nB2\r\n>>>>>>> theirs\r\n",
      "<<<<<<< ours\r\nI1\r\n=======\r\nI2\r\n>>>>>>> theirs\r\n",
    ]);
    expect(regionSides(regions[0] ?? "")).toEqual({ ours: "B1\r\n", base: null, theirs: "B2\r\n" });
  });

  it("ignores the longer markers of an inner merge", () => {
    const f = fixture();
    const inner = mergeFile(f, { ours, base, theirs }, "--marker-size=9");
    expect(inner.conflicts).toBe(2);
    expect(inner.text).toContain("<<<<<<<<< ours\n");
    expect(count(inner.text)).toBe(0);
  });
});

describe("text inside a side that looks like markers", () => {
  const committed = "<<<<<<< HEAD\nold ours\n=======\nold theirs\n>>>>>>> topic\n";

  it("keeps a whole committed region inside a side as the side's text", () => {
    const f = fixture();
    const merged = mergeFile(f, { ours: `a\n${committed}z\n`, base: "a\nq\nz\n", theirs: "a\nnew\nz\n" });
    expect(merged.conflicts).toBe(1);
    const [region] = texts(merged.text);
    expect(region).toBe(`<<<<<<< ours\n${committed}=======\nnew\n>>>>>>> theirs\n`);
    expect(regionSides(region ?? "")).toEqual({ ours: committed, base: null, theirs: "new\n" });
  });

  it("reads a lone marker-like line inside a side as text", () => {
    const lone = "<<<<<<< a\nA\n=======\n<<<<<<< not closed\nB\n>>>>>>> b\ntail\n";
    expect(texts(lone)).toEqual([lone.replace("tail\n", "")]);
    expect(regionSides(lone).theirs).toBe("<<<<<<< not closed\nB\n");
    const closing = "<<<<<<< a\n>>>>>>> looks like a close\n=======\nB\n>>>>>>> b\n";
    expect(texts(closing)).toEqual([closing]);
    expect(regionSides(closing).ours).toBe(">>>>>>> looks like a close\n");
  });

  it("reads an opening line that nothing closes as text", () => {
    const region = "<<<<<<< a\n1\n=======\n2\n>>>>>>> b\n";
    expect(texts(`${region}<<<<<<< stray\nx\n=======\ny\n`)).toEqual([region]);
    // Read without pairs, a stray opening line before a region closes at that region's end.
    expect(texts(`<<<<<<< stray\nx\n${region}`)).toEqual([`<<<<<<< stray\nx\n${region}`]);
    expect(regionSides("no region here\n")).toEqual({ ours: "", base: null, theirs: "" });
  });
});

describe("regions a re-merge made", () => {
  it("count only the marker lines a diff shows removed, pairs inside a side as text", () => {
    expect(countRemovedRegions(["<<<<<<< 1234567 (one)", "=======", ">>>>>>> 89abcde (two)"])).toBe(1);
    // The recorded merge kept the separator and the sides: only the outer markers are removed.
    expect(countRemovedRegions(["<<<<<<< 1234567 (one)\r", ">>>>>>> 89abcde (two)\r", "<<<<<<< 1234567 (one)\r"])).toBe(2);
    expect(countRemovedRegions(["<<<<<<< p1", "m", "=======", "<<<<<<< HEAD", "a", "=======", "b", ">>>>>>> topic", ">>>>>>> p2"])).toBe(1);
    expect(countRemovedRegions(["<<<<<<<< inner", "-- a/x.py", ">>>>>>> stray"])).toBe(0);
  });

  /** Counts per conflicted file from `git log --remerge-diff` and from merge-tree's re-merged blobs. */
  async function bothCounts(f: Fixture, merge: string): Promise<{ log: Record<string, number>; tree: Record<string, number> }> {
    const repo = await Repo.open(f.dir);
    const log: Record<string, number> = {};
    for await (const r of remergeReports(repo, [merge], 1)) Object.assign(log, Object.fromEntries(r.conflicts));
    const tree: Record<string, number> = {};
    const remerger = new Remerger(repo, 1);
    try {
      const parents = f.git("rev-list", "--parents", "-1", merge).split(" ").slice(1) as [string, string];
      for await (const o of remerger.remergeAll([{ commit: merge, parents }])) {
        if (!o.ok) throw new Error(o.error);
        for (const p of o.conflicted) {
          const blob = await remerger.objects().read(`${o.tree}:${p}`);
          tree[p] = blob ? findRegions(blob.content).length : 0;
        }
      }
    } finally {
      await remerger.close();
    }
    return { log, tree };
  }

  it("does not count markers the recorded merge committed", async () => {
    const f = fixture();
    f.commit("base", { "a.py": Fixture.lines("l", 10) });
    f.checkout("side", true);
    f.commit("side", { "a.py": Fixture.lines("l", 10).replace("l4\n", "side\n") });
    f.checkout("main");
    f.commit("main", { "a.py": Fixture.lines("l", 10).replace("l4\n", "main\n") });
    // Committed unresolved: the merge's file holds git's markers (labelled HEAD and side).
    const merge = f.merge("side");
    expect(f.git("show", `${merge}:a.py`)).toContain("<<<<<<< HEAD\nmain\n=======\nside\n>>>>>>> side");
    expect(await bothCounts(f, merge)).toEqual({ log: { "a.py": 1 }, tree: { "a.py": 1 } });
  });

  it("counts a re-merge region whose side holds a committed region once, in both passes", async () => {
    const f = fixture();
    const committed = "<<<<<<< HEAD\nold ours\n=======\nold theirs\n>>>>>>> topic\n";
    f.commit("base", { "a.py": Fixture.lines("l", 10) });
    f.checkout("side", true);
    f.commit("side with committed markers", { "a.py": Fixture.lines("l", 10).replace("l4\n", committed) });
    f.checkout("main");
    f.commit("main", { "a.py": Fixture.lines("l", 10).replace("l4\n", "main\n") });
    const merge = f.merge("side", { "a.py": Fixture.lines("l", 10).replace("l4\n", "resolved\n") });
    expect(await bothCounts(f, merge)).toEqual({ log: { "a.py": 1 }, tree: { "a.py": 1 } });
  });
});
