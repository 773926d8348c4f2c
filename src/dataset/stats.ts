import { DIFFICULTIES, SAMPLE_TYPES, type Difficulty, type Sample, type SampleType } from "./sample.js";
import { at } from "../util/at.js";

/** Summary of a list of counts, as pandas `describe` gives it (sample standard deviation, linear quartiles). */
export interface Distribution {
  count: number;
  mean: number;
  /** null for a single value. */
  std: number | null;
  min: number;
  q1: number;
  median: number;
  q3: number;
  max: number;
}

/** Samples of one language, per sample type and in total. */
export interface LanguageCount {
  language: string;
  merge: number;
  file_commit_chain: number;
  total: number;
}

/** Statistics of one dataset (or split): samples by type, per repository, by difficulty and by language. */
export interface DatasetStats {
  label: string;
  samples: number;
  by_type: Record<SampleType, number>;
  /** Samples per repository: over all samples, and per scenario type (null when there is none of that type). */
  per_repository: { all: Distribution | null } & Record<SampleType, Distribution | null>;
  difficulty: Record<SampleType, Record<Difficulty, number>>;
  languages: LanguageCount[];
}

/** A dataset's statistics, one entry per split. */
export interface StatsReport {
  splits: DatasetStats[];
  /** Ids found in more than one of the files (0 for disjoint splits). */
  shared_ids: number;
}

function quantile(sorted: readonly number[], p: number): number {
  const pos = (sorted.length - 1) * p;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  const a = at(sorted, lo);
  const b = at(sorted, hi);
  return a + (b - a) * (pos - lo);
}

export function describe(values: readonly number[]): Distribution | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  const mean = sorted.reduce((a, b) => a + b, 0) / n;
  const std = n < 2 ? null : Math.sqrt(sorted.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1));
  return {
    count: n,
    mean,
    std,
    min: at(sorted, 0),
    q1: quantile(sorted, 0.25),
    median: quantile(sorted, 0.5),
    q3: quantile(sorted, 0.75),
    max: at(sorted, n - 1),
  };
}

function perRepository(samples: readonly Sample[]): Distribution | null {
  const counts = new Map<string, number>();
  for (const s of samples) counts.set(s.name, (counts.get(s.name) ?? 0) + 1);
  return describe([...counts.values()]);
}

/** The statistics tables of the GitGoodBench paper for one set of samples. */
export function datasetStats(label: string, samples: readonly Sample[]): DatasetStats {
  const ofType = (t: SampleType) => samples.filter((s) => s.sample_type === t);
  const difficulty = {} as Record<SampleType, Record<Difficulty, number>>;
  for (const t of SAMPLE_TYPES) {
    difficulty[t] = { easy: 0, medium: 0, hard: 0 };
    for (const s of ofType(t)) difficulty[t][s.difficulty]++;
  }
  const languages = new Map<string, LanguageCount>();
  for (const s of samples) {
    const language = s.programming_language ?? "(none)";
    const row = languages.get(language) ?? { language, merge: 0, file_commit_chain: 0, total: 0 };
    if (s.sample_type === "merge" || s.sample_type === "file_commit_chain") row[s.sample_type]++;
    row.total++;
    languages.set(language, row);
  }
  return {
    label,
    samples: samples.length,
    by_type: { merge: ofType("merge").length, file_commit_chain: ofType("file_commit_chain").length },
    per_repository: {
      all: perRepository(samples),
      merge: perRepository(ofType("merge")),
      file_commit_chain: perRepository(ofType("file_commit_chain")),
    },
    difficulty,
    languages: [...languages.values()].sort((a, b) => (a.language < b.language ? -1 : a.language > b.language ? 1 : 0)),
  };
}

/** Statistics for several labelled sets (typically the lite, full and train files). */
export function statsReport(sets: readonly { label: string; samples: readonly Sample[] }[]): StatsReport {
  const seen = new Map<string, number>();
  for (const set of sets) {
    for (const id of new Set(set.samples.map((s) => s.id))) seen.set(id, (seen.get(id) ?? 0) + 1);
  }
  return {
    splits: sets.map((s) => datasetStats(s.label, s.samples)),
    shared_ids: [...seen.values()].filter((n) => n > 1).length,
  };
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i < 2 ? c.padEnd(at(widths, i)) : c.padStart(at(widths, i))))
      .join("  ")
      .trimEnd();
  return [line(header), ...rows.map(line)];
}

function fixed(n: number | null): string {
  return n === null ? "-" : n.toFixed(2);
}

/** The report as plain-text tables. */
export function formatStats(report: StatsReport): string {
  const out: string[] = [];
  const repoRows: string[][] = [];
  const diffRows: string[][] = [];
  const langRows: string[][] = [];
  for (const s of report.splits) {
    for (const t of ["all", ...SAMPLE_TYPES] as const) {
      const d = s.per_repository[t];
      if (!d) continue;
      repoRows.push([
        s.label,
        t,
        String(d.count),
        ...[d.mean, d.std].map(fixed),
        String(d.min),
        ...[d.q1, d.median, d.q3].map(fixed),
        String(d.max),
      ]);
    }
    for (const t of SAMPLE_TYPES) {
      const d = s.difficulty[t];
      diffRows.push([s.label, t, ...DIFFICULTIES.map((k) => String(d[k])), String(s.by_type[t])]);
    }
    for (const l of s.languages) {
      langRows.push([s.label, l.language, String(l.merge), String(l.file_commit_chain), String(l.total)]);
    }
    langRows.push([s.label, "total", String(s.by_type.merge), String(s.by_type.file_commit_chain), String(s.samples)]);
  }
  out.push("Samples per repository");
  out.push(...table(["split", "type", "repos", "mean", "std", "min", "25%", "50%", "75%", "max"], repoRows));
  out.push("", "Difficulty");
  out.push(...table(["split", "type", "easy", "medium", "hard", "total"], diffRows));
  out.push("", "Samples per language and type");
  out.push(...table(["split", "language", "merge", "file_commit_chain", "total"], langRows));
  if (report.splits.length > 1) out.push("", `ids in more than one file: ${report.shared_ids}`);
  return `${out.join("\n")}\n`;
}
