import { readFileSync } from "node:fs";
import path from "node:path";
import { GitGoodError } from "../../errors.js";
import { parseCsv } from "./csv.js";
import { fsReason } from "../../util/errno.js";

export const DATASET_FORMATS = ["parquet", "csv", "jsonl"] as const;
export type DatasetFormat = (typeof DATASET_FORMATS)[number];

/** One row of a dataset file, before any interpretation. */
interface RawRow {
  /** How to find the row when it has no usable id: `row 12` or `row 12 (line 40)`. */
  where: string;
  record: Record<string, unknown>;
}

const EXTENSIONS: Record<string, DatasetFormat> = {
  ".parquet": "parquet",
  ".pq": "parquet",
  ".csv": "csv",
  ".jsonl": "jsonl",
  ".ndjson": "jsonl",
  ".json": "jsonl",
};

/** The format of a file from its extension, or the override; unknown extensions are an error. */
export function formatOf(file: string, override?: DatasetFormat): DatasetFormat {
  if (override) return override;
  const format = EXTENSIONS[path.extname(file).toLowerCase()];
  if (!format) {
    throw new GitGoodError(
      "UNKNOWN_FORMAT",
      `${file}: unknown dataset format (expected .parquet, .csv or .jsonl, or pass --format)`,
      { file },
    );
  }
  return format;
}

function readBytes(file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    const why = fsReason(err);
    throw new GitGoodError("UNREADABLE_FILE", `${file}: cannot read: ${why}`, { file });
  }
}

/** Reads every row of a dataset file as a plain record keyed by column name. */
export async function readRows(file: string, format: DatasetFormat): Promise<RawRow[]> {
  const bytes = readBytes(file);
  if (format === "parquet") {
    // The Parquet reader (hyparquet and its codecs) is loaded by the runs that read Parquet alone.
    const { readParquetRows } = await import("./parquet.js");
    return (await readParquetRows(file, bytes)).map((record, i) => ({ where: `row ${i + 1}`, record }));
  }
  const text = bytes.toString("utf8");
  return format === "csv" ? csvRows(file, text) : jsonRows(file, text);
}

function csvRows(file: string, text: string): RawRow[] {
  let records;
  try {
    records = parseCsv(text);
  } catch (err) {
    throw new GitGoodError("BAD_CSV", `${file}: ${(err as Error).message}`, { file });
  }
  const [header, ...body] = records;
  if (!header) throw new GitGoodError("BAD_CSV", `${file}: empty CSV file (no header)`, { file });
  const names = header.fields.map((f) => f ?? "");
  const dup = names.find((n, i) => n !== "" && names.indexOf(n) !== i);
  if (dup !== undefined) throw new GitGoodError("BAD_CSV", `${file}: column '${dup}' appears twice in the header`, { file });
  return body.map((rec, i) => {
    const where = `row ${i + 1} (line ${rec.line})`;
    if (rec.fields.length !== names.length) {
      const idAt = names.indexOf("id");
      const id = idAt >= 0 ? rec.fields[idAt] : null;
      const label = id ? `row ${id}` : where;
      throw new GitGoodError(
        "BAD_CSV",
        `${file}: ${label}: ${rec.fields.length} fields where the header has ${names.length}`,
        { file, where },
      );
    }
    const record: Record<string, unknown> = {};
    names.forEach((name, j) => {
      record[name] = rec.fields[j] ?? null;
    });
    return { where, record };
  });
}

function jsonRows(file: string, text: string): RawRow[] {
  if (text.trimStart().startsWith("[")) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      throw new GitGoodError("BAD_JSON", `${file}: invalid JSON: ${(err as Error).message}`, { file });
    }
    return (parsed as unknown[]).map((record, i) => asRow(file, record, `row ${i + 1}`));
  }
  const rows: RawRow[] = [];
  const lines = text.split("\n");
  lines.forEach((line, i) => {
    if (line.trim() === "") return;
    const where = `row ${rows.length + 1} (line ${i + 1})`;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch (err) {
      throw new GitGoodError("BAD_JSON", `${file}: ${where}: invalid JSON: ${(err as Error).message}`, { file, where });
    }
    rows.push(asRow(file, parsed, where));
  });
  return rows;
}

function asRow(file: string, value: unknown, where: string): RawRow {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new GitGoodError("BAD_JSON", `${file}: ${where}: a row must be a JSON object`, { file, where });
  }
  return { where, record: value as Record<string, unknown> };
}
