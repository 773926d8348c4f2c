import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { parquetWriteBuffer, type ColumnSource } from "hyparquet-writer";
import { formatCsv, type CsvField } from "../../src/dataset/formats/csv.js";
import { SAMPLE_COLUMNS } from "../../src/dataset/normalize.js";
import { formatPythonLiteral } from "../../src/dataset/pyliteral.js";
import {
  sampleId,
  type ChainSample,
  type Difficulty,
  type MergeSample,
  type ProjectSize,
  type Sample,
} from "../../src/dataset/sample.js";

/** A fake but well-formed 40-hex commit id derived from a label. */
export function fakeOid(label: string): string {
  return createHash("sha1").update(label).digest("hex");
}

export interface SampleSpec {
  name: string;
  index: number;
  language?: string | null;
  difficulty?: Difficulty;
  projectSize?: ProjectSize | null;
}

function repoFields(spec: SampleSpec) {
  return {
    name: spec.name,
    default_branch: "main",
    license: "MIT",
    stargazers: 1200 + spec.index,
    created_at: "2015-03-04T05:06:07Z",
    topics: "git;testing",
    programming_language: spec.language === undefined ? "Python" : spec.language,
    project_size: spec.projectSize === undefined ? "medium" : spec.projectSize,
  };
}

export function mergeSample(spec: SampleSpec, commits?: { merge: string; parents: [string, string] }): MergeSample {
  const id = sampleId(spec.name, "merge", spec.index);
  return {
    id,
    ...repoFields(spec),
    sample_type: "merge",
    difficulty: spec.difficulty ?? "easy",
    scenario: {
      merge_commit_hash: commits?.merge ?? fakeOid(`${id}/merge`),
      parents: commits?.parents ?? [fakeOid(`${id}/p1`), fakeOid(`${id}/p2`)],
      number_of_files_with_merge_conflict: 1,
      total_number_of_merge_conflicts: 2,
      files_in_merge_conflict: ["src/app/main.py"],
    },
  };
}

export function chainSample(spec: SampleSpec, commits?: { newest: string; oldest: string }): ChainSample {
  const id = sampleId(spec.name, "file_commit_chain", spec.index);
  return {
    id,
    ...repoFields(spec),
    sample_type: "file_commit_chain",
    difficulty: spec.difficulty ?? "medium",
    scenario: {
      file: "src/It's \"quoted\"\\path\n.py",
      branch: "feature/x",
      times_seen_consecutively: 4,
      purity: 0.83,
      newest_commit: commits?.newest ?? fakeOid(`${id}/new`),
      oldest_commit: commits?.oldest ?? fakeOid(`${id}/old`),
      contains_non_pl_files: true,
      non_pl_files: ["README.md", "naïve ünïcödé.txt"],
    },
  };
}

/** A varied set of samples exercising nulls, quotes, newlines and non-ASCII text. */
export function variedSamples(): Sample[] {
  const a = mergeSample({ name: "mockito/mockito", index: 2, difficulty: "hard", language: "Java" });
  const b = chainSample({ name: "psf/requests", index: 0, difficulty: "easy" });
  const c: Sample = {
    ...mergeSample({ name: "kotlin/kotlinx.coroutines", index: 17, language: "Kotlin", projectSize: null }),
    default_branch: null,
    license: null,
    stargazers: null,
    created_at: null,
    topics: null,
  };
  const d: ChainSample = { ...chainSample({ name: "psf/requests", index: 1 }), difficulty: "hard" };
  d.scenario = { ...d.scenario, contains_non_pl_files: false, purity: 1 };
  delete d.scenario.non_pl_files;
  return [a, b, c, d];
}

/** A row as the published files hold it: the scenario as a Python-literal dict string. */
export function publishedRecord(s: Sample): Record<string, unknown> {
  return { ...s, scenario: formatPythonLiteral(s.scenario) };
}

export function writePublishedJsonl(file: string, samples: readonly Sample[]): void {
  writeFileSync(file, samples.map((s) => `${JSON.stringify(publishedRecord(s))}\n`).join(""));
}

/** CSV as pandas writes it: missing values as empty fields, an unnamed index column first. */
export function writePublishedCsv(file: string, samples: readonly Sample[]): void {
  const header: CsvField[] = [null, ...SAMPLE_COLUMNS];
  const rows = samples.map((s, i) => {
    const rec = publishedRecord(s);
    return [String(i), ...SAMPLE_COLUMNS.map((c) => (rec[c] === null ? null : String(rec[c])))];
  });
  writeFileSync(file, formatCsv([header, ...rows]));
}

/**
 * Parquet with the column types the published files use: text columns, stargazers as INT64, the scenario
 * as a string, snappy-compressed. `loose` writes stargazers as DOUBLE and created_at as a TIMESTAMP
 * instead; `gzip` compresses with gzip (which hyparquet reads only through hyparquet-compressors).
 */
export function writePublishedParquet(
  file: string,
  samples: readonly Sample[],
  opts: { loose?: boolean; gzip?: boolean } = {},
): void {
  const loose = opts.loose ?? false;
  const recs = samples.map(publishedRecord);
  const text = (name: string): ColumnSource => ({
    name,
    type: "STRING",
    data: recs.map((r) => (r[name] === null ? null : String(r[name]))),
  });
  const columnData: ColumnSource[] = SAMPLE_COLUMNS.map((name) => {
    if (name === "stargazers") {
      return loose
        ? { name, type: "DOUBLE", data: samples.map((s) => s.stargazers) }
        : { name, type: "INT64", data: samples.map((s) => (s.stargazers === null ? null : BigInt(s.stargazers))) };
    }
    if (name === "created_at" && loose) {
      return { name, type: "TIMESTAMP", data: samples.map((s) => (s.created_at === null ? null : new Date(s.created_at))) };
    }
    return text(name);
  });
  const compression = opts.gzip
    ? { codec: "GZIP" as const, compressors: { GZIP: (input: Uint8Array) => new Uint8Array(gzipSync(input)) } }
    : {};
  writeFileSync(file, Buffer.from(parquetWriteBuffer({ columnData, ...compression })));
}

/**
 * Many samples over several languages, types, repositories, sizes and difficulties, for split tests:
 * `perGroup` samples for each (language, type), spread over `repos` repositories per language.
 */
export function syntheticDataset(perGroup: number, languages = ["Python", "Java", "Kotlin"], repos = 9): Sample[] {
  const out: Sample[] = [];
  const sizes: ProjectSize[] = ["small", "medium", "large"];
  const difficulties: Difficulty[] = ["easy", "medium", "hard"];
  for (const language of languages) {
    const counters = new Map<string, number>();
    for (const type of ["merge", "file_commit_chain"] as const) {
      for (let i = 0; i < perGroup; i++) {
        // Uneven repository sizes: repository r gets a share that grows with r.
        const r = Math.floor(Math.sqrt((i * 7919) % (repos * repos)));
        const name = `${language.toLowerCase()}-org/repo${r}`;
        const key = `${name}/${type}`;
        const index = counters.get(key) ?? 0;
        counters.set(key, index + 1);
        const spec: SampleSpec = {
          name,
          index,
          language,
          projectSize: sizes[r % sizes.length] as ProjectSize,
          difficulty: difficulties[(i * 31 + r) % 3] as Difficulty,
        };
        out.push(type === "merge" ? mergeSample(spec) : chainSample(spec));
      }
    }
  }
  return out;
}
