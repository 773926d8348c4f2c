import { GitGoodError } from "../../errors.js";

/** One CSV field: its text, or null for an empty field that was not quoted (how pandas writes a missing value). */
export type CsvField = string | null;

interface CsvRecord {
  /** 1-based line on which the record starts. */
  line: number;
  fields: CsvField[];
}

function csvError(message: string, line: number): never {
  throw new GitGoodError("BAD_CSV", `${message} (line ${line})`, { line });
}

/**
 * Reads RFC 4180 CSV: comma separated, records ended by LF or CRLF, fields optionally in double quotes
 * with `""` for a quote, quoted fields may span lines. A leading byte-order mark is skipped. Quoted and
 * unquoted empty fields differ: `""` is an empty string, nothing at all is null.
 */
export function parseCsv(text: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  let pos = text.startsWith("\uFEFF") ? 1 : 0;
  let line = 1;
  while (pos < text.length) {
    const startLine = line;
    const fields: CsvField[] = [];
    for (;;) {
      let field: CsvField;
      if (text[pos] === '"') {
        const openLine = line;
        pos++;
        let value = "";
        for (;;) {
          const q = text.indexOf('"', pos);
          if (q === -1) csvError("unterminated quoted field", openLine);
          const chunk = text.slice(pos, q);
          value += chunk;
          line += countLines(chunk);
          if (text[q + 1] === '"') {
            value += '"';
            pos = q + 2;
            continue;
          }
          pos = q + 1;
          break;
        }
        field = value;
        const after = text[pos];
        if (after !== undefined && after !== "," && after !== "\n" && !(after === "\r" && text[pos + 1] === "\n")) {
          csvError("unexpected text after a closing quote", line);
        }
      } else {
        let end = pos;
        while (end < text.length && text[end] !== "," && text[end] !== "\n" && !(text[end] === "\r" && text[end + 1] === "\n")) {
          if (text[end] === '"') csvError("quote inside an unquoted field", line);
          end++;
        }
        field = end === pos ? null : text.slice(pos, end);
        pos = end;
      }
      fields.push(field);
      if (text[pos] === ",") {
        pos++;
        continue;
      }
      if (text[pos] === "\r") pos++;
      if (text[pos] === "\n") {
        pos++;
        line++;
      }
      break;
    }
    // A blank line is no record.
    if (!(fields.length === 1 && fields[0] === null)) records.push({ line: startLine, fields });
  }
  return records;
}

function countLines(s: string): number {
  let n = 0;
  for (let i = s.indexOf("\n"); i !== -1; i = s.indexOf("\n", i + 1)) n++;
  return n;
}

/** Writes one CSV field: null as nothing, an empty string as `""`, quoting only when needed. */
function formatCsvField(field: CsvField): string {
  if (field === null) return "";
  if (field === "" || /[",\r\n]/.test(field)) return `"${field.replace(/"/g, '""')}"`;
  return field;
}

/** Writes records as CSV with LF line ends. */
export function formatCsv(rows: readonly (readonly CsvField[])[]): string {
  return rows.map((row) => `${row.map(formatCsvField).join(",")}\n`).join("");
}
