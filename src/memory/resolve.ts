import { isMap, parseDocument, type Document } from "yaml";
import type { MemoryGit } from "../git/memory-git.js";

/**
 * Deterministic resolution of conflicts in memory files during MERGE: both sides are kept and
 * tagged with the branch they came from. Markdown gets HTML-comment tags around each conflicting
 * region; metadata.yaml keeps our segments and adds theirs (a differing segment of theirs under a
 * key suffixed with their branch name), so it stays valid YAML.
 */

const OPEN = /^<{23} (.*)$/;
const MID = /^={23}$/;
const CLOSE = /^>{23} (.*)$/;

export function tagConflicts(merged: string, ours: string, theirs: string): string {
  const out: string[] = [];
  for (const line of merged.split("\n")) {
    if (OPEN.test(line)) out.push(`<!-- memory merge kept both sides; from \`${ours}\`: -->`);
    else if (MID.test(line)) out.push(`<!-- from \`${theirs}\`: -->`);
    else if (CLOSE.test(line)) out.push(`<!-- end of both sides -->`);
    else out.push(line);
  }
  return out.join("\n");
}

function loadMap(text: string): Document | null {
  const doc = parseDocument(text);
  if (doc.errors.length > 0 || (doc.contents !== null && !isMap(doc.contents))) return null;
  return doc;
}

function mergeYaml(ours: string, theirs: string, theirBranch: string): string | null {
  const a = loadMap(ours);
  const b = loadMap(theirs);
  if (!a || !b) return null;
  const theirsJs = (b.toJS() ?? {}) as Record<string, unknown>;
  const oursJs = (a.toJS() ?? {}) as Record<string, unknown>;
  if (a.contents === null) a.contents = a.createNode({});
  const suffix = theirBranch.replace(/[^A-Za-z0-9_]+/g, "_");
  for (const [key, value] of Object.entries(theirsJs)) {
    if (!(key in oursJs)) a.set(key, a.createNode(value));
    else if (JSON.stringify(oursJs[key]) !== JSON.stringify(value)) a.set(`${key}_from_${suffix}`, a.createNode(value));
  }
  return a.toString();
}

/** The resolved text of one conflicted memory file. */
export async function resolveMemoryConflict(
  git: MemoryGit,
  file: string,
  labels: { ours: string; theirs: string },
): Promise<string> {
  const ours = await git.stage(2, file);
  const theirs = await git.stage(3, file);
  if (ours === null) return theirs ?? "";
  if (theirs === null) return ours;
  if (file.endsWith(".yaml") || file.endsWith(".yml")) {
    const y = mergeYaml(ours, theirs, labels.theirs);
    if (y !== null) return y;
  }
  const base = (await git.stage(1, file)) ?? "";
  const merged = await git.mergeTexts(ours, base, theirs, labels);
  return merged.conflicts === 0 ? merged.text : tagConflicts(merged.text, labels.ours, labels.theirs);
}
