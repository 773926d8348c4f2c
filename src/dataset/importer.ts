import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { GitGoodError } from "../errors.js";
import { formatOf, readRows, type DatasetFormat } from "./formats/rows.js";
import { normalizeRecord, recordId, SAMPLE_COLUMNS, type NormalizeResult } from "./normalize.js";
import type { Sample } from "./sample.js";
import { fsReason } from "../util/errno.js";
import { at } from "../util/at.js";

/** How `readDataset` reads its files. */
export interface ReadDatasetOptions {
  /** Read every file as this format instead of going by the extension. */
  format?: DatasetFormat;
}

/** One file a dataset was read from: its path, the format it was read as, and how many samples it gave. */
export interface DatasetFileInfo {
  file: string;
  format: DatasetFormat;
  samples: number;
}

/** An imported dataset: its samples, the files they came from, and what the import noticed but did not stop for. */
export interface Dataset {
  samples: Sample[];
  files: DatasetFileInfo[];
  /** Things worth telling a person that did not stop the import (columns that were ignored). */
  warnings: string[];
}

/**
 * A reader of dataset rows in a layout of its own (a family's instances): a row it `detects` is read
 * with `normalize`, its columns are the known ones, and `id` names it in errors.
 */
export interface RecordImporter {
  readonly name: string;
  readonly columns: readonly string[];
  /** True when `record` is in this importer's format. */
  detects(record: Record<string, unknown>): boolean;
  /** The record as a gitgood sample, or why it cannot be one. */
  normalize(record: Record<string, unknown>): NormalizeResult;
  /** The record's own id, to name it in errors. */
  id(record: Record<string, unknown>): unknown;
}

/**
 * The readers of layouts of their own, tried before the published layout: the families register theirs
 * (the family registry, at load), the one registered last first.
 */
const IMPORTERS: RecordImporter[] = [];

/** The published (and gitgood's own) layout, for rows no other reader takes. */
const PUBLISHED: RecordImporter = { name: "published", columns: SAMPLE_COLUMNS, detects: () => true, normalize: normalizeRecord, id: (r) => r.id };

/** Adds a reader (a family's layout), tried before the ones registered earlier. */
export function registerImporter(importer: RecordImporter): void {
  if (IMPORTERS.some((i) => i.name === importer.name)) throw new GitGoodError("INTERNAL", `an importer named ${importer.name} is registered already`);
  IMPORTERS.unshift(importer);
}

/** Removes a reader added with `registerImporter`. */
export function unregisterImporter(name: string): void {
  const i = IMPORTERS.findIndex((d) => d.name === name);
  if (i >= 0) IMPORTERS.splice(i, 1);
}

/** Index columns pandas adds when a frame is saved with its index. */
const INDEX_COLUMN = /^(|Unnamed: 0|__index_level_\d+__|index)$/;

/**
 * Reads dataset files (Parquet, CSV or JSONL, published or gitgood's own, or a layout a family registered,
 * such as SWE-bench instances) into samples, in file order.
 * Any malformed row stops the import with a one-line error naming the file and the row's id; an id
 * that appears twice (in one file or across files) is an error too.
 */
export async function readDataset(files: readonly string[], opts: ReadDatasetOptions = {}): Promise<Dataset> {
  const samples: Sample[] = [];
  const infos: DatasetFileInfo[] = [];
  const warnings: string[] = [];
  const seen = new Map<string, string>();
  for (const file of files) {
    const format = formatOf(file, opts.format);
    const rows = await readRows(file, format);
    const ignored = new Set<string>();
    for (const row of rows) {
      const importer = IMPORTERS.find((i) => i.detects(row.record)) ?? PUBLISHED;
      const known = new Set<string>(importer.columns);
      for (const key of Object.keys(row.record)) {
        if (!known.has(key) && !INDEX_COLUMN.test(key)) ignored.add(key);
      }
      const result = importer.normalize(row.record);
      const id = recordId({ id: importer.id(row.record) });
      const label = id === null ? row.where : `row ${id}`;
      if (!result.ok) {
        throw new GitGoodError("BAD_ROW", `${file}: ${label}: ${result.reason}`, { file, row: id ?? row.where });
      }
      const first = seen.get(result.sample.id);
      if (first !== undefined) {
        const where = first === file ? "earlier in the same file" : `first in ${first}`;
        throw new GitGoodError("DUPLICATE_ID", `${file}: ${label}: duplicate id (${where})`, {
          file,
          id: result.sample.id,
        });
      }
      seen.set(result.sample.id, file);
      samples.push(result.sample);
    }
    if (ignored.size > 0) warnings.push(`${file}: ignored columns: ${[...ignored].sort().join(", ")}`);
    infos.push({ file, format, samples: rows.length });
  }
  return { samples, files: infos, warnings };
}

const SPLIT_ORDER = ["lite", "full", "train"];

/**
 * Files to describe, each with a label: files as given, and for a directory the dataset files in it
 * (lite, full, train first, then the others by name). Labels are file names without extension, or the
 * paths as given when two names would be the same.
 */
export function expandDatasetPaths(paths: readonly string[]): { path: string; label: string }[] {
  const files: string[] = [];
  for (const p of paths) {
    let isDir = false;
    try {
      isDir = statSync(p).isDirectory();
    } catch (err) {
      const why = fsReason(err);
      throw new GitGoodError("UNREADABLE_FILE", `${p}: cannot read: ${why}`, { file: p });
    }
    if (!isDir) {
      files.push(p);
      continue;
    }
    const inside = readdirSync(p)
      .filter((f) => /\.(jsonl|ndjson|json|csv|parquet|pq)$/i.test(f))
      .sort((a, b) => {
        const ra = SPLIT_ORDER.indexOf(a.replace(/\..*$/, ""));
        const rb = SPLIT_ORDER.indexOf(b.replace(/\..*$/, ""));
        return (ra < 0 ? 99 : ra) - (rb < 0 ? 99 : rb) || (a < b ? -1 : a > b ? 1 : 0);
      });
    if (inside.length === 0) throw new GitGoodError("NOT_FOUND", `${p}: no dataset files in this directory`, { dir: p });
    files.push(...inside.map((f) => path.join(p, f)));
  }
  const base = (f: string) => path.basename(f).replace(/\.[^.]*$/, "");
  const labels = files.map(base);
  const unique = new Set(labels).size === labels.length;
  return files.map((f, i) => ({ path: f, label: unique ? at(labels, i) : f }));
}
