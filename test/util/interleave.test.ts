import { describe, expect, it } from "vitest";
import { deal, interleave } from "../../src/util/interleave.js";

describe("deal", () => {
  it("deals items into groups like cards, keeping their order within a group, none empty", () => {
    expect(deal([1, 2, 3, 4, 5], 2)).toEqual([
      [1, 3, 5],
      [2, 4],
    ]);
    expect(deal([1, 2], 4)).toEqual([[1], [2]]);
    expect(deal([], 3)).toEqual([]);
    expect(deal([1, 2, 3], 0)).toEqual([[1, 2, 3]]);
  });
});

describe("interleave", () => {
  /** Lets every ready source run on as far as it is allowed to. */
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 20; i++) await new Promise((go) => setImmediate(go));
  };

  it("reads a source on only while few of its items wait for the consumer, and yields them all", async () => {
    let made = 0;
    let stopped = 0;
    const source = (from: number) => async function* () {
      try {
        for (let i = 0; i < 100; i++) {
          made++;
          yield from + i;
        }
      } finally {
        stopped++;
      }
    };
    const seen: number[] = [];
    let ahead = 0;
    for await (const item of interleave([source(0), source(1000)], 2, 3)) {
      seen.push(item);
      await settle();
      ahead = Math.max(ahead, made - seen.length);
    }
    expect(seen.sort((a, b) => a - b)).toEqual([...Array.from({ length: 100 }, (_, i) => i), ...Array.from({ length: 100 }, (_, i) => 1000 + i)]);
    // Three wait in the queue; each source may hold one more it has made but not yet queued.
    expect(ahead).toBeLessThanOrEqual(3 + 2);
    expect(stopped).toBe(2);
  });

  it("stops the running sources when the consumer stops early", async () => {
    let made = 0;
    let stopped = 0;
    const long = async function* () {
      try {
        for (let i = 0; i < 10_000; i++) {
          made++;
          yield i;
        }
      } finally {
        stopped++;
      }
    };
    for await (const item of interleave([long, long], 2, 2)) if (item > 5) break;
    await settle();
    expect(stopped).toBe(2);
    expect(made).toBeLessThan(30);
  });
});
