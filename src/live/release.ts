import { createHash } from "node:crypto";
import { lstatSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { sampleToJson, type Sample } from "../dataset/sample.js";
import { splitSamples } from "../dataset/split.js";
import { GitGoodError } from "../errors.js";
import { writeOutputFile } from "../util/output.js";
import type { Pins } from "./pins.js";

/*
 * The files of a release directory: `samples.jsonl`, `splits/{lite,full,train}.jsonl` (what `gitgood dataset
 * split` writes) and `manifest.json`, which names the pins and the digest of every other file. Nothing in
 * them depends on the clock or the machine, so the same pins and window give the same bytes.
 */

const MANIFEST_FILE = "manifest.json";
const SAMPLES_FILE = "samples.jsonl";
const SPLITS_DIR = "splits";
const SPLIT_NAMES = ["lite", "full", "train"] as const;
/** What a manifest says it is; a directory whose manifest says otherwise is not a release. */
export const RELEASE_KIND = "gitgood-live-release";

/**
 * The digest of the pins a release was built from: the repositories and their commits, in name order, and
 * for a pin with an env_spec or its own types, those too (a pin with neither digests as it always did).
 */
export function pinsDigest(pins: Pins): string {
  const canonical = pins.repositories.map((p) => (p.env === null && p.types.join() === "merge,file_commit_chain" ? [p.name, p.commit] : [p.name, p.commit, p.types, p.env]));
  return createHash("sha256").update(JSON.stringify(canonical)).digest("hex");
}

/**
 * Checks that `dir` may receive the release of `digest`: it is missing, empty, or holds a release of the
 * same pins (whose files are then replaced). Anything else is a one-line RELEASE_EXISTS.
 */
export function checkReleaseDir(dir: string, digest: string): void {
  const st = lstatSync(dir, { throwIfNoEntry: false });
  if (!st) return;
  if (!st.isDirectory()) throw new GitGoodError("RELEASE_EXISTS", `--out ${dir} exists and is not a directory`);
  const names = readdirSync(dir);
  if (names.length === 0) return;
  let previous: unknown = null;
  try {
    previous = JSON.parse(readFileSync(path.join(dir, MANIFEST_FILE), "utf8"));
  } catch {
    previous = null;
  }
  const p = previous as { kind?: unknown; pins_digest?: unknown } | null;
  if (p?.kind !== RELEASE_KIND || p.pins_digest !== digest) {
    throw new GitGoodError("RELEASE_EXISTS", `--out ${dir} is not empty and is not a release of these pins; give an empty or new directory`);
  }
  const extra = names.filter((n) => ![MANIFEST_FILE, SAMPLES_FILE, SPLITS_DIR].includes(n));
  if (extra.length > 0) {
    throw new GitGoodError("RELEASE_EXISTS", `--out ${dir} holds files a release does not write (${extra.slice(0, 3).join(", ")}); give an empty or new directory`);
  }
}

const jsonl = (samples: readonly Sample[]): string => samples.map((s) => `${sampleToJson(s)}\n`).join("");

/** The sizes the split draws: the asked ones, scaled down to what the smallest language × type group holds. */
export function splitSizes(samples: readonly Sample[], asked: { lite: number; full: number }): { lite: number; full: number } {
  const groups = new Map<string, number>();
  for (const s of samples) {
    if (s.programming_language === null) continue;
    const key = `${s.sample_type}\u0000${s.programming_language}`;
    groups.set(key, (groups.get(key) ?? 0) + 1);
  }
  const smallest = Math.min(Infinity, ...groups.values());
  const need = asked.lite + asked.full;
  if (smallest >= need || need === 0) return asked;
  const lite = Math.floor((smallest * asked.lite) / need);
  return { lite, full: Math.min(asked.full, smallest - lite) };
}

/** The release's data files, by path relative to the directory. */
export function releaseFiles(samples: readonly Sample[], split: { lite: number; full: number; seed: number }): Map<string, string> {
  const files = new Map<string, string>();
  files.set(SAMPLES_FILE, jsonl(samples));
  const parts = splitSamples(samples, split);
  for (const name of SPLIT_NAMES) files.set(`${SPLITS_DIR}/${name}.jsonl`, jsonl(parts[name]));
  return files;
}

/** The sha256 of each file's bytes, by name in sorted order. */
export function fileDigests(files: ReadonlyMap<string, string>): Record<string, string> {
  return Object.fromEntries(
    [...files.keys()].sort().map((name) => [name, createHash("sha256").update(files.get(name) ?? "").digest("hex")]),
  );
}

/** Writes the release: its files, then the manifest, replacing a previous release of the same pins. */
export function writeRelease(dir: string, files: ReadonlyMap<string, string>, manifest: unknown): void {
  try {
    mkdirSync(path.join(dir, SPLITS_DIR), { recursive: true });
  } catch (err) {
    throw new GitGoodError("WRITE_FAILED", `cannot create ${dir}: ${(err as NodeJS.ErrnoException).code ?? "error"}`);
  }
  for (const name of readdirSync(path.join(dir, SPLITS_DIR))) {
    if (!files.has(`${SPLITS_DIR}/${name}`)) rmSync(path.join(dir, SPLITS_DIR, name), { force: true });
  }
  for (const [name, text] of files) writeOutputFile(path.join(dir, name), text);
  writeOutputFile(path.join(dir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
}

