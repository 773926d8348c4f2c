import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { GitGoodError } from "../errors.js";
import type { Repo } from "./repo.js";
import { at } from "../util/at.js";

/**
 * How much history below a scenario's starting point a sandbox holds: that many first-parent commits
 * (the starting point's own boundary commit counts as the first), or all of it.
 */
export type HistoryDepth = number | "full";

/**
 * The default depth, chosen by measurement (bench/setup.js; docs/benchmarks.md, "History cut and set-up time"): 50 first-parent
 * commits fill a few screens of `git log` at no measurable set-up time over a cut at one commit and at
 * most a tenth more space, where `full` costs up to four times the time on a real repository.
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
  /**
   * One pack holding exactly the objects of all of `packs` together, for a set-up that has to build
   * every one of them: one git process instead of one per pack (see `unionOfPast`).
   */
  readonly union?: PackSpec;
}

/**
 * The one pack holding the objects of `past` (a commit's past, cut at its shallow boundary) and of
 * `rest`, whose objects are reachable from its tips and not from `past`'s commit (`rest.exclude`,
 * the commit or its tree): walking `rest`'s tips and the past's commit with the past's boundary reaches
 * both sets and nothing more, because the tips reach below `past`'s commit only through it (a chain
 * holds no merge) or not at all (a tree). Anything the excluded commit or tree reaches is in the past.
 * None for the full history: a past that large is better packed once and shared (the IR and ICC
 * stores of a chain) than packed again in each store to save a process.
 */
function unionOfPast(past: PackSpec, rest: PackSpec, depth: HistoryDepth): { union?: PackSpec } {
  return depth === "full" ? {} : { union: { tips: [...rest.tips, ...past.tips], exclude: [], shallow: past.shallow } };
}

function lines(text: string): string[] {
  return text.split("\n").filter((l) => l !== "");
}

/** Commits with their parents, as `git rev-list --parents` prints them. */
type Parents = Map<string, string[]>;

async function readParents(source: Repo, args: readonly string[], into: Parents, input?: string): Promise<void> {
  for (const line of lines(await source.text(["rev-list", "--parents", ...args], input === undefined ? {} : { input }))) {
    const [oid, ...parents] = line.split(" ");
    if (oid) into.set(oid, parents);
  }
}

/** The best common ancestors of `a` and a merge of `others` (`git merge-base --all`); none for unrelated histories. */
async function mergeBases(repo: Repo, a: string, others: readonly string[], env?: Record<string, string>): Promise<string[]> {
  const r = await repo.run(["merge-base", "--all", a, ...others], { okCodes: [0, 1], env });
  return lines(r.stdout.toString("utf8")).sort();
}

/**
 * The merge base of `p1` and `p2` and the commits between them and it, with their parents, from one
 * `git rev-list --parents --boundary p1...p2`, where the merge has one merge base; else null (the caller
 * asks `git merge-base --all`). The walk lists the commits reachable from one parent and not the other
 * (`between`) and, as boundary, their parents that both reach. Every best common ancestor is among those
 * parents (the commit above it on a path from a parent that reaches it is not common, or it would not be
 * best), and every common ancestor is below a best one: so a boundary of one commit is the one merge
 * base, every common ancestor is below it, and `between` is exactly what `p1 p2 ^base` lists.
 */
async function oneBaseWalk(source: Repo, p1: string, p2: string): Promise<{ base: string; between: Parents } | null> {
  const between: Parents = new Map();
  const boundary: string[] = [];
  for (const line of lines(await source.text(["rev-list", "--parents", "--boundary", `${p1}...${p2}`]))) {
    const [first = "", ...parents] = line.split(" ");
    if (first.startsWith("-")) boundary.push(first.slice(1));
    else between.set(first, parents);
  }
  const [base] = boundary;
  return boundary.length === 1 && base !== undefined ? { base, between } : null;
}

/** One merge-base question a merge asks, with the answer in the whole history. */
interface BaseQuery {
  a: string;
  others: readonly string[];
  bases: readonly string[];
}

/**
 * The merge-base questions a merge of `a` into a merge of `others` asks (`out`), and the commits below
 * which it never looks (`bottoms`): their merge base, or, when there are several, what merging those
 * bases needs in turn. Git merges several bases one after the other, each with a merge of the ones
 * before it (merge-ort's recursive step), so the history needed reaches the bases of those merges too.
 */
async function mergeQueries(repo: Repo, a: string, others: readonly string[], out: BaseQuery[], bottoms: Set<string>): Promise<void> {
  const bases = await mergeBases(repo, a, others);
  out.push({ a, others, bases });
  if (bases.length <= 1) {
    for (const b of bases) bottoms.add(b);
    return;
  }
  const ordered = [...bases].reverse();
  for (let i = 1; i < ordered.length; i++) {
    await mergeQueries(repo, at(ordered, i), ordered.slice(0, i), out, bottoms);
  }
}

/** The source's own shallow boundary (a shallow clone as source), to carry over into the sandbox. */
function sourceShallow(source: Repo): string[] {
  const file = path.join(source.gitDir, "shallow");
  return source.shallow && existsSync(file) ? lines(readFileSync(file, "utf8")) : [];
}

/**
 * The shallow boundary of a store that keeps the commits of `keep` with all their parents, and `tips`:
 * every parent of a kept commit that is not kept itself, and every tip that is not kept, is in the store
 * without its own parents (git cuts all parents of a shallow commit, so a kept commit is never one).
 */
function boundaryOf(keep: Parents, tips: readonly string[], inherited: readonly string[]): string[] {
  const cut = new Set<string>();
  for (const parents of keep.values()) for (const p of parents) if (!keep.has(p)) cut.add(p);
  for (const t of tips) if (!keep.has(t)) cut.add(t);
  for (const c of inherited) if (keep.has(c)) cut.add(c);
  return [...cut].sort();
}

/**
 * The commits a cut keeps with their parents: everything between `tips` and `bottoms` (reachable from a
 * tip and not from a bottom; `between` when the caller has walked it already) and the first `depth - 1`
 * first-parent commits from each bottom on, whose parents (the `depth`-th, and the other parents of
 * merges) end the history.
 */
async function keptCommits(source: Repo, tips: readonly string[], bottoms: readonly string[], depth: number, between?: Parents): Promise<Kept> {
  const keep: Parents = new Map(between ?? []);
  const below: Parents = new Map();
  if (between === undefined && tips.some((t) => !bottoms.includes(t))) {
    await readParents(source, ["--stdin"], keep, `${[...tips, ...bottoms.map((b) => `^${b}`)].join("\n")}\n`);
  }
  if (depth > 1) for (const b of bottoms) await firstParentsOf(source, b, depth - 1, below);
  for (const [c, parents] of below) keep.set(c, parents);
  return { keep, below };
}

/** The commits a cut keeps (`keep`), and among them those of the first-parent lines below the bottoms (`below`). */
interface Kept {
  keep: Parents;
  below: Parents;
}

/**
 * `count` first-parent commits from `tip` on, each with all its parents, into `into`: walked through the
 * repository's long-lived reader when it has one, else read by `git rev-list --first-parent`.
 */
async function firstParentsOf(source: Repo, tip: string, count: number, into: Parents): Promise<void> {
  const reader = source.reader;
  if (!reader) return readParents(source, ["--first-parent", `--max-count=${count}`, tip], into);
  const boundary = new Set(sourceShallow(source));
  let at: string | undefined = tip;
  for (let n = 0; at !== undefined && n < count; n++) {
    const obj = await reader.read(at);
    if (!obj || obj.type !== "commit") throw new GitGoodError("MISSING_COMMIT", `commit ${at} is not in the source repository`, { commit: at });
    const end = obj.content.indexOf("\n\n");
    const parents = [...obj.content.toString("latin1", 0, end === -1 ? obj.content.length : end).matchAll(/^parent ([0-9a-f]+)$/gm)].map((m) => m[1] as string);
    into.set(obj.oid, parents);
    // A commit of the source's own shallow boundary has no parents there.
    at = boundary.has(obj.oid) ? undefined : parents[0];
  }
}

/**
 * Whether every commit of the boundary `shallow` is still below `bottom` in the history the cut leaves:
 * `bottom` itself, or a parent of a commit of its kept first-parent line (`below`). Then a merge whose
 * only merge base is `bottom` has the same single base in that history, and need not be asked again: a
 * commit between the tips and `bottom` keeps all its parents and reaches `bottom` as before, and every
 * other common ancestor there is below `bottom` (it was a common ancestor in the whole history, so an
 * ancestor of the only base; only a boundary commit could stop being one, and none can here).
 */
function reachedFromBottom(shallow: readonly string[], bottom: string, below: Parents): boolean {
  const reached = new Set<string>([bottom]);
  for (const [c, parents] of below) {
    reached.add(c);
    for (const p of parents) reached.add(p);
  }
  return shallow.every((c) => reached.has(c));
}

/** Asks `queries` again in the history a shallow boundary leaves; returns the bases that come out different. */
async function wrongAnswers(source: Repo, queries: readonly BaseQuery[], shallow: readonly string[]): Promise<{ extra: string[]; missing: boolean }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "gitgood-cut-"));
  try {
    const file = path.join(dir, "shallow");
    writeFileSync(file, shallow.map((c) => `${c}\n`).join(""));
    const extra = new Set<string>();
    let missing = false;
    for (const q of queries) {
      const got = await mergeBases(source, q.a, q.others, { GIT_SHALLOW_FILE: file });
      for (const b of got) if (!q.bases.includes(b)) extra.add(b);
      if (q.bases.some((b) => !got.includes(b))) missing = true;
    }
    return { extra: [...extra], missing };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Rounds of widening a cut whose history answers a merge-base question differently, before taking all history. */
const WIDENINGS = 6;

/**
 * The shallow boundary for an MCR store: the cut of `keptCommits`, checked by asking every merge-base
 * question of the merge in the history it leaves. A commit cut off from the bottom it descends from can
 * look like one more merge base there (two lines of history that both merged an old branch, say); then
 * the commits on the paths from that commit to the bottoms are kept too, until every answer is the same
 * as in the whole history (or, failing that, the whole history is kept).
 */
async function mergeCut(
  source: Repo,
  tips: readonly string[],
  queries: readonly BaseQuery[],
  bottoms: readonly string[],
  depth: number,
  between?: Parents,
): Promise<string[]> {
  const inherited = sourceShallow(source);
  const { keep, below } = await keptCommits(source, tips, bottoms, depth, between);
  const first = boundaryOf(keep, tips, inherited);
  if (queries.length === 1 && bottoms.length === 1 && inherited.length === 0 && reachedFromBottom(first, bottoms[0] as string, below)) return first;
  for (let round = 0; round < WIDENINGS; round++) {
    const shallow = round === 0 ? first : boundaryOf(keep, tips, inherited);
    const wrong = await wrongAnswers(source, queries, shallow);
    if (wrong.extra.length === 0 && !wrong.missing) return shallow;
    if (wrong.missing) break;
    const before = keep.size;
    for (const f of wrong.extra) for (const b of bottoms) await readParents(source, ["--ancestry-path", `${f}..${b}`], keep);
    if (keep.size === before) break;
  }
  return inherited;
}

/**
 * The store of an MCR sandbox: the two parents, every merge base and the commits between them (what
 * `git merge` reads), and `depth` first-parent commits from each base on. Never the merge commit or
 * anything after it.
 */
export async function mergeStore(source: Repo, p1: string, p2: string, depth: HistoryDepth): Promise<StorePlan> {
  // One walk answers both questions where the merge has one base (a shallow source keeps git's own answer).
  const walked = depth === "full" || source.shallow ? null : await oneBaseWalk(source, p1, p2);
  if (walked && depth !== "full") {
    const queries = [{ a: p1, others: [p2], bases: [walked.base] }];
    const shallow = await mergeCut(source, [p1, p2], queries, [walked.base], depth, walked.between);
    return { packs: [{ tips: [p1, p2], exclude: [], shallow }], shallow };
  }
  const queries: BaseQuery[] = [];
  const bottoms = new Set<string>();
  await mergeQueries(source, p1, [p2], queries, bottoms);
  const cut = depth === "full" || bottoms.size === 0;
  const shallow = cut ? sourceShallow(source) : await mergeCut(source, [p1, p2], queries, [...bottoms], depth);
  return { packs: [{ tips: [p1, p2], exclude: [], shallow }], shallow };
}

/** The pack of a commit's past: the commit and `depth` first-parent commits (itself the first). */
async function pastPack(source: Repo, base: string, depth: HistoryDepth): Promise<PackSpec> {
  const inherited = sourceShallow(source);
  const shallow = depth === "full" ? inherited : boundaryOf((await keptCommits(source, [base], [base], depth)).keep, [base], inherited);
  return { tips: [base], exclude: [], shallow };
}

/**
 * The store of an IR sandbox: the chain from `base` (exclusive) to `tip` and the past of `base`.
 * Nothing after the tip. The past is a pack of its own, shared with the ICC sandbox of the same chain.
 */
export async function chainStore(source: Repo, base: string, tip: string, depth: HistoryDepth): Promise<StorePlan> {
  const past = await pastPack(source, base, depth);
  const chain = { tips: [tip], exclude: [base], shallow: [] };
  return { packs: [past, chain], shallow: past.shallow, ...unionOfPast(past, chain, depth) };
}

/**
 * The store of an ICC sandbox: the past of `base` and the objects of one more tree (the chain tip's,
 * which the work tree holds anyway), but no commit after `base`: neither the chain's commits nor the
 * trees and blobs of their intermediate versions.
 */
export async function treeStore(source: Repo, base: string, baseTree: string, tree: string, depth: HistoryDepth): Promise<StorePlan> {
  const past = await pastPack(source, base, depth);
  const tip = { tips: [tree], exclude: [baseTree], shallow: [] };
  return { packs: [past, tip], shallow: past.shallow, ...unionOfPast(past, tip, depth) };
}

/**
 * The store of a sandbox at one commit (a SWE task's `base_commit`): the commit and its past, `depth`
 * first-parent commits deep. Nothing after it: neither the fix nor any later commit.
 */
export async function commitStore(source: Repo, base: string, depth: HistoryDepth): Promise<StorePlan> {
  const past = await pastPack(source, base, depth);
  return { packs: [past], shallow: past.shallow };
}
