import { readFileSync } from "node:fs";
import { GitGoodError } from "../errors.js";
import { fsReason } from "../util/errno.js";

/** One prediction of the SWE-bench predictions format. */
export interface Prediction {
  instance_id: string;
  model_name_or_path: string;
  model_patch: string;
}

function bad(file: string, where: string, why: string): never {
  throw new GitGoodError("BAD_PREDICTIONS", `${file}: ${where}: ${why}`, { file, where });
}

function prediction(file: string, where: string, value: unknown, id?: string): Prediction {
  if (value === null || typeof value !== "object" || Array.isArray(value)) bad(file, where, "a prediction must be a JSON object");
  const v = value as Record<string, unknown>;
  const instance = v.instance_id ?? id;
  if (typeof instance !== "string" || instance === "") bad(file, where, "instance_id is missing");
  if (id !== undefined && v.instance_id !== undefined && v.instance_id !== id) {
    bad(file, where, `instance_id ${JSON.stringify(v.instance_id)} differs from its key ${JSON.stringify(id)}`);
  }
  const patch = v.model_patch ?? "";
  if (typeof patch !== "string") bad(file, where, "model_patch must be text");
  const model = v.model_name_or_path ?? "";
  if (typeof model !== "string") bad(file, where, "model_name_or_path must be text");
  return { instance_id: instance, model_name_or_path: model, model_patch: patch };
}

/**
 * Reads a SWE-bench predictions file: JSONL (one `{instance_id, model_name_or_path, model_patch}` per
 * line), a JSON list of them, or a JSON object keyed by instance id. A null patch is an empty one. An
 * instance predicted twice, or a malformed entry, is an error naming the file and the entry.
 */
export function readPredictions(file: string): Map<string, Prediction> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new GitGoodError("NOT_FOUND", `cannot read predictions file ${file}: ${fsReason(err)}`, { file });
  }
  const entries: Prediction[] = [];
  const whole = wholeJson(text);
  if (Array.isArray(whole)) whole.forEach((v, i) => entries.push(prediction(file, `entry ${i + 1}`, v)));
  else if (whole !== null && typeof whole === "object" && !("instance_id" in whole)) {
    for (const [id, v] of Object.entries(whole)) entries.push(prediction(file, `entry ${id}`, v, id));
  } else {
    text.split("\n").forEach((line, i) => {
      if (line.trim() === "") return;
      let v: unknown;
      try {
        v = JSON.parse(line);
      } catch (err) {
        bad(file, `line ${i + 1}`, `invalid JSON: ${(err as Error).message}`);
      }
      entries.push(prediction(file, `line ${i + 1}`, v));
    });
  }
  return byInstance(file, entries);
}

/**
 * Predictions given as a JSON list (as a run's agent options carry them to another process), checked as a
 * file's entries are; `source` names them in an error.
 */
export function predictionsFrom(list: unknown, source: string): Map<string, Prediction> {
  if (!Array.isArray(list)) bad(source, "(top)", "predictions must be a JSON list");
  return byInstance(
    source,
    list.map((v, i) => prediction(source, `entry ${i + 1}`, v)),
  );
}

/** The predictions by instance id; an instance predicted twice is an error naming `file`. */
function byInstance(file: string, entries: readonly Prediction[]): Map<string, Prediction> {
  const byId = new Map<string, Prediction>();
  for (const p of entries) {
    if (byId.has(p.instance_id)) bad(file, p.instance_id, "predicted twice");
    byId.set(p.instance_id, p);
  }
  return byId;
}

/** The file as one JSON value (a list or an object keyed by instance id), or undefined for JSONL. */
function wholeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Predictions as SWE-bench's JSONL, one line per prediction, in the order given. */
export function predictionsJsonl(predictions: readonly Prediction[]): string {
  return predictions
    .map((p) => `${JSON.stringify({ instance_id: p.instance_id, model_name_or_path: p.model_name_or_path, model_patch: p.model_patch })}\n`)
    .join("");
}
