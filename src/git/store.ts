import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { GitGoodError } from "../errors.js";
import type { Repo } from "./repo.js";

/**
 * How much history below a scenario's starting point a sandbox holds: that many first-parent commits
 * (the starting point's own boundary commit counts as the first), or all of it.
 */
export type HistoryDepth = number | "full";

/**
 * The default depth. 50 first-parent commits fill a few screens of `git log` and `git blame` context at
 * a set-up cost that stays within a few percent of a store cut at one commit (measured with
 * bench/setup.js; README, "History in a sandbox").
 */
export const DEFAULT_HISTORY: HistoryDepth = 50;

/** Reads `--history` text: a whole number of commits (at least 1) or `full`. */
export function parseHistory(text: string): HistoryDepth {
  const t = text.trim().toLowerCase();
  if (t === "full") return "full";
  if (/^\d+$/.test(t) && Number(t) >= 1 && Number.isSafeInteger(Number(t))) return Number(t);
  throw new GitGoodError("BAD_OPTION", `--history takes a number of commits (1 or more) or 'full', not '${text}'`);
}

/**
 * One pack of a sandbox's store: the objects reachable from `tips` (commits or trees) and not from
 * `exclude`, where the walk treats every `shallow` commit as having no parents.
 */
export interface PackSpec {
  readonly tips: readonly string[];
  readonly exclude: readonly string[];
  readonly shallow: readonly string[];
}

/** What a sandbox's object store holds: its packs, and the commits whose parents it lacks (`.git/shallow`). */
export interface StorePlan {
  readonly packs: readonly PackSpec[];
  readonly shallow: readonly string[];
}

function lines(text: string): string[] {
  return text.split("\n").filter((l) => l !== "");
}

/** The best common ancestors of `a` and a merge of `others` (`git merge-base --all`); none for unrelated histories. */
export async function mergeBases(repo: Repo, a: string, others: readonly string[]): Promise<string[]> {
  const r = await repo.run(["merge-base", "--all", a, ...others], { okCodes: [0, 1] });
  return lines(r.stdout.toString("utf8"));
}

/**
 * The commits below which a merge of `a` into a merge of `others` never looks: their merge base, or,
 * when there are several, what merging those bases needs in turn. Git merges several bases one after
 * the other, each with a merge of the ones before it (merge-ort's recursive step), so the history
 * needed reaches the bases of those merges too.
 */
async function mergeBottoms(repo: Repo, a: string, others: readonly string[], out: Set<string>): Promise<void> {
  const bases = await mergeBases(repo, a, others);
  if (bases.length <= 1) {
    for (const b of bases) out.add(b);
    return;
  }
  const ordered = [...bases].reverse();
  for (let i = 1; i < ordered.length; i++) {
    await mergeBottoms(repo, ordered[i] as string, ordered.slice(0, i), out);
  }
}

/** The source's own shallow boundary (a shallow clone as source), to carry over into the sandbox. */
function sourceShallow(source: Repo): string[] {
  const file = path.join(source.gitDir, "shallow");
  return source.shallow && existsSync(file) ? lines(readFileSync(file, "utf8")) : [];
}

/**
 * The shallow boundary of a store that holds the commits between `tips` and `bottoms` (everything
 * reachable from a tip and not from a bottom) plus `depth` first-parent commits from each bottom on:
 * every such commit with a parent outside that set. With `full` history nothing is cut.
 */
async function cutHistory(source: Repo, tips: readonly string[], bottoms: readonly string[], depth: HistoryDepth): Promise<string[]> {
  const inherited = sourceShallow(source);
  if (depth === "full" || bottoms.length === 0) return inherited;
  const parents = new Map<string, string[]>();
  const read = (text: string): void => {
    for (const line of lines(text)) {
      const [oid, ...rest] = line.split(" ");
      if (oid) parents.set(oid, rest);
    }
  };
  read(await source.text(["rev-list", "--parents", "--stdin"], { input: [...tips, ...bottoms.map((b) => `^${b}`)].join("\n") + "\n" }));
  for (const b of bottoms) read(await source.text(["rev-list", "--parents", "--first-parent", `--max-count=${depth}`, b]));
  const cut = new Set(inherited.filter((c) => parents.has(c)));
  for (const [oid, ps] of parents) if (ps.some((p) => !parents.has(p))) cut.add(oid);
  return [...cut].sort();
}

/**
 * The store of an MCR sandbox: the two parents, every merge base and the commits between them (what
 * `git merge` reads), and `depth` first-parent commits from each base on. Never the merge commit or
 * anything after it.
 */
export async function mergeStore(source: Repo, p1: string, p2: string, depth: HistoryDepth): Promise<StorePlan> {
  const bottoms = new Set<string>();
  await mergeBottoms(source, p1, [p2], bottoms);
  const shallow = await cutHistory(source, [p1, p2], [...bottoms], depth);
  return { packs: [{ tips: [p1, p2], exclude: [], shallow }], shallow };
}

/** The pack of a commit's past: the commit and `depth` first-parent commits (itself the first). */
async function pastPack(source: Repo, base: string, depth: HistoryDepth): Promise<PackSpec> {
  return { tips: [base], exclude: [], shallow: await cutHistory(source, [base], [base], depth) };
}

/**
 * The store of an IR sandbox: the chain from `base` (exclusive) to `tip` and the past of `base`.
 * Nothing after the tip. The past is a pack of its own, shared with the ICC sandbox of the same chain.
 */
export async function chainStore(source: Repo, base: string, tip: string, depth: HistoryDepth): Promise<StorePlan> {
  const past = await pastPack(source, base, depth);
  return { packs: [past, { tips: [tip], exclude: [base], shallow: [] }], shallow: past.shallow };
}

/**
 * The store of an ICC sandbox: the past of `base` and the objects of one more tree (the chain tip's,
 * which the work tree holds anyway), but no commit after `base`: neither the chain's commits nor the
 * trees and blobs of their intermediate versions.
 */
export async function treeStore(source: Repo, base: string, baseTree: string, tree: string, depth: HistoryDepth): Promise<StorePlan> {
  const past = await pastPack(source, base, depth);
  return { packs: [past, { tips: [tree], exclude: [baseTree], shallow: [] }], shallow: past.shallow };
}
