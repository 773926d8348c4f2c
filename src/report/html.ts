import { createHash } from "node:crypto";
import path from "node:path";
import { gzipSync } from "node:zlib";
import type { FormatRun } from "../families/definition.js";
import type { ResultRecord } from "../runs/record.js";
import { RunStore } from "../runs/store.js";
import { TrajectorySchema, type Trajectory } from "../runs/trajectory.js";
import { escapeHtml, pageBody, SCRIPT, STYLE } from "./html-client.js";
import { attemptViewOf, indexOfRun, type IndexRow, type IndexRun } from "./html-data.js";
import { buildReport } from "./summary.js";
import { formatReport } from "./text.js";

/**
 * `gitgood report --html`: the viewer's page as one static, self-contained file, written as a stream.
 *
 * What the page keeps, so that a 5,000-attempt run stays a page a browser opens:
 * - the index (every attempt's row, every run's summary and its families' tables) as gzip'd JSON;
 * - every attempt in full (transcript, the family's view of its outcome, scores, timings) in chunks of
 *   a few dozen attempts, each gzip'd JSON, decoded by the page only when one of its attempts is opened;
 * - a tool's output longer than OUTPUT_LIMIT characters, and any other text (the task, a message, a file,
 *   a diff) longer than TEXT_LIMIT, cut to its first and last part, with a line saying how many
 *   characters were left out and that the trajectory file, linked from the attempt, holds them all;
 * - the llm agent's system prompt once per distinct prompt, not once per attempt.
 * Without script, the page shows the text report. A Content-Security-Policy lets only its own script
 * and style run (by their hashes), and nothing loads from the network.
 */

/** Longest text kept whole in the page: a tool's output, and any other text (a task, a message, a file, a diff). */
export const OUTPUT_LIMIT = 2000;
const TEXT_LIMIT = 4000;
/** An attempt chunk is closed once its JSON is this long or holds this many attempts. */
const CHUNK_BYTES = 256 * 1024;
const CHUNK_ATTEMPTS = 64;

/** Where the page's text goes, piece by piece. */
export interface TextSink {
  /** Adds `text` to the page. */
  write(text: string): void;
}

/** A text longer than `limit` cut to its first three quarters and its last fifth, saying how much was left out. */
function cutText(text: string, limit = TEXT_LIMIT): string {
  if (text.length <= limit) return text;
  const head = Math.floor(limit * 0.75);
  const tail = Math.floor(limit * 0.2);
  return `${text.slice(0, head)}\n[… ${text.length - head - tail} of ${text.length} characters cut here; the trajectory file holds the whole text …]\n${text.slice(-tail)}`;
}

const cutLong = (key: string, value: unknown): unknown => (typeof value === "string" ? cutText(value, key === "output" ? OUTPUT_LIMIT : TEXT_LIMIT) : value);

/** gzip'd, then base64: text that can sit in the page as it is. */
const packed = (json: string): string => gzipSync(Buffer.from(json, "utf8"), { level: 9 }).toString("base64");

const sha256 = (text: string): string => createHash("sha256").update(text, "utf8").digest("base64");

/** A link from a page in `pageDir` to a file, relative, each path segment URL-encoded. */
function relativeLink(pageDir: string, file: string): string {
  return path.relative(pageDir, file).split(path.sep).map(encodeURIComponent).join("/");
}

/** The trajectory of a record, or why there is none to show (null, null: the record has none). */
function trajectoryOf(store: RunStore | null, record: ResultRecord): { trajectory: Trajectory | null; problem: string | null } {
  if (!record.trajectory) return { trajectory: null, problem: null };
  if (!store) return { trajectory: null, problem: "the run directory cannot be read" };
  try {
    const parsed = TrajectorySchema.safeParse(store.readTrajectory(record.trajectory));
    return parsed.success ? { trajectory: parsed.data, problem: null } : { trajectory: null, problem: "the trajectory file is not in the expected format" };
  } catch (err) {
    return { trajectory: null, problem: `the trajectory file cannot be read (${err instanceof Error ? err.message : String(err)})` };
  }
}

/** The title of a run's static HTML page and the directory it is written in. */
export interface StaticPageOptions {
  title: string;
  /** The directory the page is written in: each attempt links its trajectory file relative to it. */
  pageDir?: string;
}

/**
 * Writes the static page of one or more runs to `out`: head, then the attempts chunk by chunk as their
 * trajectories are read (one at a time), then the index and the script.
 */
export function writeStaticPage(runs: readonly FormatRun[], opts: StaticPageOptions, out: TextSink): void {
  const csp = `default-src 'none'; script-src 'sha256-${sha256(SCRIPT)}'; style-src 'sha256-${sha256(STYLE)}'; img-src data:; base-uri 'none'; form-action 'none'`;
  out.write(
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${csp}">` +
      `<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>${escapeHtml(opts.title)}</title>\n<style>${STYLE}</style></head>\n<body>\n`,
  );
  out.write(pageBody(opts.title, false));
  // Without script: the text report's tables (its per-sample list is left to the script's views, to keep the page small).
  const text = runs.map((run) => `${runs.length > 1 ? `== ${run.label}\n` : ""}${formatReport({ ...buildReport({ records: run.records }), samples: [] })}`).join("\n\n");
  out.write(`<noscript><p>This page shows its views with its script; here are the text report's tables.</p><pre>${escapeHtml(text)}</pre></noscript>\n`);

  const indexRuns: IndexRun[] = [];
  const rows: IndexRow[] = [];
  const systems: string[] = [];
  const systemIds = new Map<string, number>();
  let chunk: string[] = [];
  let chunkBytes = 0;
  let chunkNo = 0;
  const flush = (): void => {
    if (chunk.length === 0) return;
    out.write(`<script type="text/plain" id="gg-chunk-${chunkNo}">${packed(`[${chunk.join(",")}]`)}</script>\n`);
    chunkNo++;
    chunk = [];
    chunkBytes = 0;
  };
  runs.forEach((run, i) => {
    // Records handed over without their run directory (a library caller's) are shown without trajectories.
    let store: RunStore | null = null;
    let config: ReturnType<typeof RunStore.readConfig> | null = null;
    try {
      store = RunStore.openExisting(run.dir);
      config = RunStore.readConfig(run.dir);
    } catch {
      store = null;
    }
    const { run: indexRun, rows: runRows } = indexOfRun(
      run.records,
      {
        label: run.label,
        dir: path.resolve(run.dir),
        agent: run.agent,
        model: config?.identity.model?.name ?? null,
        created_at: config?.created_at ?? "",
        ...(run.isolation ? { isolation: run.isolation } : {}),
      },
      i,
    );
    indexRuns.push(indexRun);
    const byKey = new Map(run.records.map((r) => [r.key, r]));
    for (const row of runRows) {
      const record = byKey.get(row.key);
      if (!record) continue;
      const { trajectory, problem } = trajectoryOf(store, record);
      const view = attemptViewOf(record, trajectory, problem);
      let systemId: number | null = null;
      if (view.system !== null) {
        systemId = systemIds.get(view.system) ?? systems.length;
        if (systemId === systems.length) {
          systems.push(view.system);
          systemIds.set(view.system, systemId);
        }
      }
      const href = opts.pageDir !== undefined && record.trajectory ? relativeLink(opts.pageDir, path.resolve(run.dir, record.trajectory)) : undefined;
      const json = JSON.stringify({ ...view, system: null, system_id: systemId, run: i, ...(href ? { href } : {}) }, cutLong);
      chunk.push(json);
      chunkBytes += json.length;
      rows.push({ ...row, chunk: chunkNo });
      if (chunkBytes >= CHUNK_BYTES || chunk.length >= CHUNK_ATTEMPTS) flush();
    }
  });
  flush();
  out.write(`<script type="text/plain" id="gg-index">${packed(JSON.stringify({ runs: indexRuns, rows, systems }))}</script>\n`);
  out.write(`<script>${SCRIPT}</script>\n</body></html>\n`);
}

/** The static page as one string (for callers that want it in memory; `gitgood report --html` streams it to its file). */
export function renderStaticPage(runs: readonly FormatRun[], opts: StaticPageOptions): string {
  const parts: string[] = [];
  writeStaticPage(runs, opts, { write: (t) => parts.push(t) });
  return parts.join("");
}
