import { readFileSync } from "node:fs";
import { GitGoodError } from "../errors.js";
import { SampleSchema, type Sample } from "./sample.js";
import { fsReason } from "../util/errno.js";

function parseLine(line: string, file: string, lineNo: number): Sample {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new GitGoodError("BAD_SAMPLES", `${file}:${lineNo}: not valid JSON (${why})`, { file, line: lineNo });
  }
  const parsed = SampleSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` at ${issue.path.join(".")}` : "";
    throw new GitGoodError("BAD_SAMPLES", `${file}:${lineNo}: not a gitgood sample${where}: ${issue?.message ?? "invalid"}`, {
      file,
      line: lineNo,
    });
  }
  return parsed.data;
}

function readText(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (err) {
    const code = fsReason(err);
    throw new GitGoodError("NOT_FOUND", `cannot read samples file ${file}: ${code}`, { file });
  }
}

/** Reads every sample of a JSONL file (blank lines skipped); a bad line fails with its line number. */
export function readSamples(file: string): Sample[] {
  const samples: Sample[] = [];
  readText(file)
    .split("\n")
    .forEach((line, i) => {
      if (line.trim() !== "") samples.push(parseLine(line, file, i + 1));
    });
  return samples;
}

/**
 * Finds one sample by id. Lines are only parsed in full once their id matches, so one bad line
 * elsewhere in a large file does not stop the look-up.
 */
export function findSample(file: string, id: string): Sample {
  const lines = readText(file).split("\n");
  const needle = JSON.stringify(id);
  for (const [i, line] of lines.entries()) {
    if (!line.includes(needle)) continue;
    let probe: unknown;
    try {
      probe = JSON.parse(line);
    } catch {
      continue;
    }
    if (probe && typeof probe === "object" && (probe as { id?: unknown }).id === id) return parseLine(line, file, i + 1);
  }
  throw new GitGoodError("NOT_FOUND", `no sample with id ${id} in ${file}`, { file, id });
}
