import { createHash } from "node:crypto";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { GitGoodError } from "../errors.js";
import { escapeHtml } from "../report/html-client.js";
import { fsReason } from "../util/errno.js";
import { writeOutputFile } from "../util/output.js";
import { LEADERBOARD_SCRIPT, LEADERBOARD_STYLE } from "./client.js";
import type { Leaderboard } from "./schema.js";

/** The files a leaderboard site has. */
const SITE_PAGE = "index.html";
const SITE_JSON = "leaderboard.json";

const sha256 = (text: string): string => createHash("sha256").update(text, "utf8").digest("base64");

/** JSON that can sit inside a script element: no `<`, `>` or `&` in it can end the element or start markup. */
const inertJson = (value: unknown): string => JSON.stringify(value).replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026");

/**
 * The leaderboard's page: one self-contained file that works opened from disk. It holds its data as JSON,
 * and a Content-Security-Policy that lets only its own script and style run (by their hashes) and loads
 * nothing from anywhere; without script it says where the numbers are.
 */
export function renderLeaderboardPage(board: Leaderboard): string {
  const csp = `default-src 'none'; script-src 'sha256-${sha256(LEADERBOARD_SCRIPT)}'; style-src 'sha256-${sha256(LEADERBOARD_STYLE)}'; base-uri 'none'; form-action 'none'`;
  return (
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${csp}">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>${escapeHtml(board.title)}</title>\n<style>${LEADERBOARD_STYLE}</style></head>\n<body>\n` +
    `<header><h1>${escapeHtml(board.title)}</h1></header>\n<main>\n` +
    `<noscript><p>This page draws its tables with its script; every number is in ${SITE_JSON} beside it.</p></noscript>\n` +
    `<div id="mixed" class="warn"></div>\n<div id="controls" class="controls"></div>\n<div id="view"></div>\n` +
    `<h2>Runs</h2><div id="runs"></div>\n<h2>Training cut-offs (models.yaml)</h2><div id="cutoffs"><p class="muted">Tasks dated on or before a model's cut-off are marked possibly contaminated for it; an agent that asks no model cannot be.</p></div>\n` +
    `</main>\n<script type="application/json" id="lb-data">${inertJson(board)}</script>\n<script>${LEADERBOARD_SCRIPT}</script>\n</body></html>\n`
  );
}

/** Writes the site into `dir`: the page and the leaderboard's JSON. */
export function writeLeaderboardSite(dir: string, board: Leaderboard): string[] {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (err) {
    throw new GitGoodError("BAD_OPTION", `cannot make the site directory ${dir} (${fsReason(err)})`);
  }
  const page = path.join(dir, SITE_PAGE);
  const json = path.join(dir, SITE_JSON);
  writeOutputFile(page, renderLeaderboardPage(board));
  writeOutputFile(json, `${JSON.stringify(board, null, 2)}\n`);
  return [page, json];
}
