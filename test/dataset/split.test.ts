import { describe, expect, it } from "vitest";
import { hash32, mulberry32, seededRandom, shuffled } from "../../src/dataset/random.js";
import type { Sample } from "../../src/dataset/sample.js";
import { apportion, drawStratified, PUBLISHED_SPLIT, splitSamples, stratumOf } from "../../src/dataset/split.js";
import { mergeSample, syntheticDataset } from "../helpers/dataset.js";

function countBy(samples: readonly Sample[], key: (s: Sample) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of samples) out[key(s)] = (out[key(s)] ?? 0) + 1;
  return out;
}

const group = (s: Sample) => `${s.sample_type}/${s.programming_language}`;

describe("seeded randomness", () => {
  it("mulberry32 is deterministic, in [0, 1), and differs by seed", () => {
    const a = mulberry32(1);
    const b = mulberry32(1);
    const xs = Array.from({ length: 1000 }, () => a());
    expect(Array.from({ length: 1000 }, () => b())).toEqual(xs);
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(new Set(xs).size).toBe(1000);
    expect(mulberry32(2)()).not.toBe(xs[0]);
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
    expect(Math.abs(mean - 0.5)).toBeLessThan(0.05);
  });

  it("hash32 is FNV-1a over UTF-8", () => {
    expect(hash32("")).toBe(0x811c9dc5);
    expect(hash32("a")).toBe(0xe40c292c);
    expect(hash32("foobar")).toBe(0xbf9cf968);
  });

  it("shuffled is a permutation and does not touch its input", () => {
    const items = Array.from({ length: 50 }, (_, i) => i);
    const out = shuffled(items, seededRandom(7, "t"));
    expect([...out].sort((x, y) => x - y)).toEqual(items);
    expect(out).not.toEqual(items);
    expect(items[0]).toBe(0);
  });
});

describe("apportion", () => {
  it("gives exactly the total by largest remainder, ties by rank", () => {
    expect(apportion(10, [5, 3, 2], [0, 1, 2])).toEqual([5, 3, 2]);
    expect(apportion(3, [1, 1, 1, 1], [3, 2, 1, 0])).toEqual([0, 1, 1, 1]);
    expect(apportion(7, [10, 5, 1], [0, 1, 2])).toEqual([4, 2, 1]);
    expect(apportion(0, [4, 4], [0, 1])).toEqual([0, 0]);
    expect(apportion(5, [5, 0], [0, 1])).toEqual([5, 0]);
  });
});

describe("drawStratified", () => {
  function pool(sizes: readonly number[]): Sample[] {
    return sizes.flatMap((n, r) => Array.from({ length: n }, (_, i) => mergeSample({ name: `o/r${r}`, index: i })));
  }

  it("represents every stratum before filling in proportion", () => {
    const samples = pool([100, 50, 10, 2, 1]);
    const drawn = drawStratified(samples, 20, seededRandom(1, "x"));
    expect(drawn).toHaveLength(20);
    const per = countBy(drawn, (s) => s.name);
    // One each first, then 15 more shared by what is left: 99, 49, 9, 1, 0 of 158.
    expect(per).toEqual({ "o/r0": 1 + 9, "o/r1": 1 + 5, "o/r2": 1 + 1, "o/r3": 1, "o/r4": 1 });
    expect(new Set(drawn.map((s) => s.id)).size).toBe(20);
  });

  it("draws distinct strata, favouring large ones, when there are more strata than places", () => {
    const samples = pool([40, 40, 40, 1, 1, 1, 1, 1, 1, 1]);
    let bigFirst = 0;
    for (let seed = 0; seed < 200; seed++) {
      const drawn = drawStratified(samples, 3, seededRandom(seed, "x"));
      expect(new Set(drawn.map(stratumOf)).size).toBe(3);
      bigFirst += drawn.filter((s) => ["o/r0", "o/r1", "o/r2"].includes(s.name)).length;
    }
    // Size-proportional choice puts most places in the three big strata (about 2.7 of 3).
    expect(bigFirst / 200).toBeGreaterThan(2.4);
  });

  it("uses repository, project size and difficulty as the stratum", () => {
    const a = mergeSample({ name: "o/r", index: 1, difficulty: "easy", projectSize: "small" });
    const b = mergeSample({ name: "o/r", index: 2, difficulty: "hard", projectSize: "small" });
    const c = mergeSample({ name: "o/r", index: 3, difficulty: "easy", projectSize: null });
    expect(new Set([a, b, c].map(stratumOf)).size).toBe(3);
  });
});

describe("splitSamples", () => {
  const data = syntheticDataset(400);

  it("with the published sizes gives exactly 20 and 150 per language and type, disjoint, covering all", () => {
    const r = splitSamples(data, { ...PUBLISHED_SPLIT, seed: 0 });
    expect(r.lite).toHaveLength(120);
    expect(r.full).toHaveLength(900);
    expect(r.train).toHaveLength(data.length - 1020);
    const groups = ["Java", "Kotlin", "Python"].flatMap((l) => [`file_commit_chain/${l}`, `merge/${l}`]);
    expect(countBy(r.lite, group)).toEqual(Object.fromEntries(groups.map((g) => [g, 20])));
    expect(countBy(r.full, group)).toEqual(Object.fromEntries(groups.map((g) => [g, 150])));
    const ids = [...r.lite, ...r.full, ...r.train].map((s) => s.id);
    expect(new Set(ids).size).toBe(data.length);
    expect(r.groups.map((g) => [g.sample_type, g.language, g.lite, g.full, g.train])).toEqual(
      groups.map((g) => [g.split("/")[0], g.split("/")[1], 20, 150, 230]).sort(),
    );
  });

  it("puts every stratum into Lite when Lite has room for all, and every remaining one into full", () => {
    const few = syntheticDataset(300, ["Python", "Java"], 5);
    const r = splitSamples(few, { ...PUBLISHED_SPLIT, seed: 3 });
    const liteIds = new Set(r.lite.map((s) => s.id));
    for (const g of r.groups) {
      const inGroup = few.filter((s) => group(s) === `${g.sample_type}/${g.language}`);
      expect(g.strata).toBe(new Set(inGroup.map(stratumOf)).size);
      expect(g.strata).toBeLessThanOrEqual(20);
      expect(g.lite_strata).toBe(g.strata);
      const left = new Set(inGroup.filter((s) => !liteIds.has(s.id)).map(stratumOf));
      expect(g.full_strata).toBe(left.size);
    }
    expect(r.groups).toHaveLength(4);
  });

  it("is deterministic for a seed, whatever the input order, and changes with the seed", () => {
    const a = splitSamples(data, { lite: 5, full: 30, seed: 11 });
    const b = splitSamples([...data].reverse(), { lite: 5, full: 30, seed: 11 });
    const c = splitSamples(data, { lite: 5, full: 30, seed: 12 });
    const ids = (xs: Sample[]) => xs.map((s) => s.id);
    expect(ids(b.lite)).toEqual(ids(a.lite));
    expect(ids(b.full)).toEqual(ids(a.full));
    expect(ids(b.train)).toEqual(ids(a.train));
    expect(ids(c.lite)).not.toEqual(ids(a.lite));
    expect(ids(a.lite)).toEqual([...ids(a.lite)].sort());
  });

  it("keeps groups independent: dropping one language leaves the others' draw unchanged", () => {
    const all = splitSamples(data, { lite: 5, full: 10, seed: 4 });
    const some = splitSamples(
      data.filter((s) => s.programming_language !== "Kotlin"),
      { lite: 5, full: 10, seed: 4 },
    );
    const notKotlin = (xs: Sample[]) => xs.filter((s) => s.programming_language !== "Kotlin").map((s) => s.id);
    expect(some.lite.map((s) => s.id)).toEqual(notKotlin(all.lite));
  });

  it("sends samples outside the chosen languages, or without a language, to train", () => {
    const extra = mergeSample({ name: "x/y", index: 0, language: null });
    const r = splitSamples([...data, extra], { lite: 2, full: 3, seed: 0, languages: ["python"] });
    expect(new Set(r.lite.map((s) => s.programming_language))).toEqual(new Set(["Python"]));
    expect(r.outside_groups).toBe(800 * 2 + 1);
    expect(r.train.some((s) => s.id === extra.id)).toBe(true);
  });

  it("fails clearly when a group is too small", () => {
    const small = syntheticDataset(100, ["Kotlin"]);
    expect(() => splitSamples(small, { ...PUBLISHED_SPLIT, seed: 0 })).toThrow(
      "file_commit_chain samples in Kotlin: only 100, but --lite 20 + --full 150 need 170",
    );
    expect(() => splitSamples(small, { lite: 1, full: 1, seed: 0, languages: ["rust"] })).toThrow(
      "no samples in language rust",
    );
  });
});
