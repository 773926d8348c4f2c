import { at } from "../util/at.js";

/**
 * A small seeded pseudo-random generator (mulberry32): 32 bits of state, uniform floats in [0, 1).
 * Splits use it instead of Math.random so the same seed always gives the same split.
 */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a over the UTF-8 bytes of a string: a stable 32-bit number to seed a generator with. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(text, "utf8")) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** A generator for one named purpose under a seed: independent streams for independent groups. */
export function seededRandom(seed: number, purpose: string): () => number {
  return mulberry32(hash32(`${seed}\u0000${purpose}`));
}

/** Fisher–Yates shuffle into a new array. */
export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    const tmp = at(out, i);
    out[i] = at(out, j);
    out[j] = tmp;
  }
  return out;
}
