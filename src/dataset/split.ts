import { GitGoodError } from "../errors.js";
import { seededRandom, shuffled } from "./random.js";
import type { Sample } from "./sample.js";
import { at } from "../util/at.js";

type SampleType = Sample["sample_type"];

/** How many samples the Lite and full splits take per language and scenario type, the seed of the draw, and the languages. */
export interface SplitOptions {
  /** Samples in Lite per language and scenario type (published: 20). */
  lite: number;
  /** Samples in the full split per language and scenario type (published: 150). */
  full: number;
  seed: number;
  /** Languages to draw Lite and full from (case-insensitive); default every language in the data. */
  languages?: readonly string[];
}

export const PUBLISHED_SPLIT = { lite: 20, full: 150 } as const;

/** One sample type × language group of a split: the samples available, its strata, and how many went to Lite, full and train. */
export interface SplitGroup {
  sample_type: SampleType;
  language: string;
  available: number;
  strata: number;
  lite: number;
  full: number;
  train: number;
  /** Strata with at least one sample in Lite / in full. */
  lite_strata: number;
  full_strata: number;
}

/** A dataset split into Lite, full and train, with the groups the draw was made in. */
export interface SplitResult {
  lite: Sample[];
  full: Sample[];
  train: Sample[];
  groups: SplitGroup[];
  /** Samples outside every group (no language, or a language not asked for): all in train. */
  outside_groups: number;
}

/** The stratum of a sample inside its (type, language) group: repository, project size, difficulty. */
export function stratumOf(s: Sample): string {
  return `${s.name}\u0000${s.project_size ?? "unknown"}\u0000${s.difficulty}`;
}

function byId(a: Sample, b: Sample): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * Largest-remainder apportionment of `total` seats by `weights`, in exact integer arithmetic; ties of
 * the remainder go by `tieRank` (lower first). The sum of weights must be at least `total`.
 */
export function apportion(total: number, weights: readonly number[], tieRank: readonly number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  if (total === 0 || sum === 0) return weights.map(() => 0);
  const seats = weights.map((w) => Math.floor((total * w) / sum));
  const rest = weights.map((w) => (total * w) % sum);
  let left = total - seats.reduce((a, b) => a + b, 0);
  const order = weights
    .map((_, i) => i)
    .sort((a, b) => at(rest, b) - at(rest, a) || at(tieRank, a) - at(tieRank, b));
  for (const i of order) {
    if (left === 0) break;
    seats[i] = at(seats, i) + 1;
    left--;
  }
  return seats;
}

/**
 * Draws `count` samples from `pool`, stratified: every stratum gets one sample first (when there are
 * more strata than places, strata are drawn with probability proportional to their size), then the
 * remaining places are shared in proportion to what each stratum has left. Which samples of a stratum
 * are taken is random too. The pool must hold at least `count` samples.
 */
export function drawStratified(pool: readonly Sample[], count: number, random: () => number): Sample[] {
  if (count === 0) return [];
  const strata = new Map<string, Sample[]>();
  for (const s of [...pool].sort(byId)) {
    const key = stratumOf(s);
    const list = strata.get(key);
    if (list) list.push(s);
    else strata.set(key, [s]);
  }
  const keys = [...strata.keys()].sort();
  const members = keys.map((k) => shuffled(strata.get(k) as Sample[], random));
  const sizes = members.map((m) => m.length);
  let take: number[];
  if (keys.length >= count) {
    // Weighted sampling without replacement: the `count` strata with the smallest Exp(1)/size keys.
    const drawKey = sizes.map((n) => -Math.log(1 - random()) / n);
    const chosen = new Set(
      sizes
        .map((_, i) => i)
        .sort((a, b) => at(drawKey, a) - at(drawKey, b) || a - b)
        .slice(0, count),
    );
    take = sizes.map((_, i) => (chosen.has(i) ? 1 : 0));
  } else {
    const tieRank = shuffled(
      sizes.map((_, i) => i),
      random,
    );
    const rank: number[] = [];
    tieRank.forEach((stratum, position) => (rank[stratum] = position));
    const extra = apportion(
      count - keys.length,
      sizes.map((n) => n - 1),
      rank,
    );
    take = extra.map((e) => e + 1);
  }
  return members.flatMap((m, i) => m.slice(0, take[i]));
}

/**
 * Splits samples into disjoint Lite, full and Train sets as GitGoodBench did: per scenario type and
 * language, Lite and then full are drawn stratified by repository, project size and difficulty; all
 * other samples are Train. The same samples and seed always give the same split, whatever their order.
 */
export function splitSamples(samples: readonly Sample[], opts: SplitOptions): SplitResult {
  for (const [name, n] of [
    ["lite", opts.lite],
    ["full", opts.full],
  ] as const) {
    if (!Number.isSafeInteger(n) || n < 0) throw new GitGoodError("BAD_OPTION", `--${name} must be a whole number`);
  }
  const wanted = opts.languages?.map((l) => l.toLowerCase());
  const groups = new Map<string, { type: SampleType; language: string; samples: Sample[] }>();
  let outside = 0;
  for (const s of samples) {
    const language = s.programming_language;
    if (language === null || (wanted && !wanted.includes(language.toLowerCase()))) {
      outside++;
      continue;
    }
    const key = `${s.sample_type}\u0000${language}`;
    const group = groups.get(key);
    if (group) group.samples.push(s);
    else groups.set(key, { type: s.sample_type, language, samples: [s] });
  }
  if (wanted) {
    const present = new Set([...groups.values()].map((g) => g.language.toLowerCase()));
    const absent = wanted.filter((l) => !present.has(l));
    if (absent.length > 0) {
      throw new GitGoodError("SPLIT_TOO_SMALL", `no samples in language ${absent.join(", ")}`, { languages: absent });
    }
  }
  const lite: Sample[] = [];
  const full: Sample[] = [];
  const chosen = new Set<string>();
  const summaries: SplitGroup[] = [];
  for (const key of [...groups.keys()].sort()) {
    const g = groups.get(key) as { type: SampleType; language: string; samples: Sample[] };
    const need = opts.lite + opts.full;
    if (g.samples.length < need) {
      throw new GitGoodError(
        "SPLIT_TOO_SMALL",
        `${g.type} samples in ${g.language}: only ${g.samples.length}, but --lite ${opts.lite} + --full ${opts.full} need ${need}`,
        { sample_type: g.type, language: g.language, available: g.samples.length, needed: need },
      );
    }
    const random = seededRandom(opts.seed, `split\u0000${key}`);
    const pool = [...g.samples].sort(byId);
    const liteDraw = drawStratified(pool, opts.lite, random);
    const liteIds = new Set(liteDraw.map((s) => s.id));
    const fullDraw = drawStratified(
      pool.filter((s) => !liteIds.has(s.id)),
      opts.full,
      random,
    );
    lite.push(...liteDraw);
    full.push(...fullDraw);
    for (const s of [...liteDraw, ...fullDraw]) chosen.add(s.id);
    summaries.push({
      sample_type: g.type,
      language: g.language,
      available: pool.length,
      strata: new Set(pool.map(stratumOf)).size,
      lite: liteDraw.length,
      full: fullDraw.length,
      train: pool.length - liteDraw.length - fullDraw.length,
      lite_strata: new Set(liteDraw.map(stratumOf)).size,
      full_strata: new Set(fullDraw.map(stratumOf)).size,
    });
  }
  const train = samples.filter((s) => !chosen.has(s.id));
  return {
    lite: lite.sort(byId),
    full: full.sort(byId),
    train: [...train].sort(byId),
    groups: summaries,
    outside_groups: outside,
  };
}
