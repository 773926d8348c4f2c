import os from "node:os";
import { readFileSync } from "node:fs";
import {
  sampleId,
  type ChainSample,
  type Difficulty,
  type MergeSample,
  type RepositoryFields,
  type Sample,
  type SampleType,
} from "../dataset/sample.js";
import { GitGoodError } from "../errors.js";
import { listBranches, loadCommitGraph, type Branch } from "../git/history.js";
import type { CommitGraph } from "../git/commitgraph.js";
import { MissingBlobs } from "../git/blobcheck.js";
import { diffBatches, MissingTrees } from "../git/treediff.js";
import { missingObjects } from "../git/objects.js";
import { Repo } from "../git/repo.js";
import { chainCandidates, mineChains, type ChainFinding, type ChainHistory } from "./chains.js";
import { DropCounter } from "./drops.js";
import { evaluateFilters, type FilterResult } from "./filters.js";
import { DEFAULT_LANGUAGES, LanguageSet } from "../dataset/languages.js";
import { mineMerges, type MergeFinding } from "./merges.js";
import { EMPTY_METADATA, type RepositoryMetadata } from "./metadata.js";
import { DEFAULT_THRESHOLDS, type DifficultyThresholds } from "./purity.js";
import { describeRepository, folderNameProblem, repositoryName } from "./repository.js";
import { CommitSummaries, PathTable, type CommitLines } from "./summaries.js";
import { Slots } from "../util/slots.js";
import { ANY_DATE, type DateWindow } from "./window.js";

const SUMMARY_SCHEMA_VERSION = 1;

/** What to mine from a repository and within which limits. */
export interface MineOptions {
  /** Which samples to mine: merges, file-commit chains, or both (default). */
  type: SampleType | "all";
  /** `owner/repo`; default from a hosted origin remote URL, else the folder name (with a warning). */
  name?: string;
  /** The repository's GitHub metadata (stars, license, …) the samples carry and the filters read; default none. */
  metadata: RepositoryMetadata;
  /** Languages a sample's files must be in, by name (default: GitGoodBench's languages). */
  languages: readonly string[];
  /** A merge with more conflicting files than this is not a sample (default 8). */
  maxConflicts: number;
  /** The fewest commits a file-commit chain has (default 3). */
  minChain: number;
  /** The most commits a file-commit chain has (default 6). */
  maxChain: number;
  /** The smallest share of a chain's commits' changes that touch its file (default 0.5). */
  minPurity: number;
  /** Where a sample's size makes it easy, medium or hard. */
  thresholds: DifficultyThresholds;
  /** Apply GitGoodBench's repository filters; a repository that fails one yields no samples. */
  filter: boolean;
  /** Git processes at once (default: the machine's parallelism). */
  jobs: number;
  /** Keep only merge samples whose recorded merge replacing conflict regions can reproduce (chains unaffected). */
  resolvableOnly: boolean;
  /** Only samples committed in it: a merge by its merge commit's committer date, a chain by its newest commit's. */
  window: DateWindow;
  /** Told how far mining is, now and then (the CLI draws a progress line on a terminal). */
  onProgress?: (progress: MineProgress) => void;
}

/** How far mining is: each pass with what it has done of how much. */
export interface MineProgress {
  merges: { done: number; total: number };
  commits: { done: number; total: number };
}

/** What `mine` is given: the repository, and any settings that differ from `DEFAULT_MINE_OPTIONS`. */
export interface MineInput extends Partial<MineOptions> {
  /** The repository to mine: a working tree or a bare repository; it is only read. */
  repoPath: string;
}

/** The options `gitgood mine` uses when none are given. */
export const DEFAULT_MINE_OPTIONS: MineOptions = {
  type: "all",
  metadata: EMPTY_METADATA,
  languages: DEFAULT_LANGUAGES,
  maxConflicts: 8,
  minChain: 3,
  maxChain: 6,
  minPurity: 0.5,
  thresholds: DEFAULT_THRESHOLDS,
  filter: false,
  jobs: Math.max(1, os.availableParallelism()),
  resolvableOnly: false,
  window: ANY_DATE,
};

/** Samples kept per difficulty, and their total. */
export type Counts = Record<Difficulty | "total", number>;

/** What a mining run saw (branches, commits, the kind of clone) and how many samples of each type and difficulty it kept. */
export interface MineSummary {
  schema_version: number;
  repository: string;
  path: string;
  bare: boolean;
  shallow: boolean;
  partial_clone: boolean;
  branches: number;
  commits: number;
  /** Commits whose diff could not be read (objects missing from a partial clone or a damaged copy): skipped. */
  unreadable_commits: number;
  /** Merge samples left out by --resolvable-only (present when it was given). */
  unresolvable_left_out?: number;
  samples: Record<SampleType, Counts>;
  dropped: DropCounter["counts"];
  /** Present when --filter was given. */
  filters?: FilterResult[];
  /** True when --filter was given and a filter failed: then no samples are produced. */
  excluded: boolean;
  warnings: string[];
}

/** The samples mined from a repository and the summary of the mining. */
export interface MineResult {
  samples: Sample[];
  summary: MineSummary;
}

/** Calls `fn` at most every 200 ms. */
function throttled(fn: () => void): () => void {
  let last = 0;
  return () => {
    const now = Date.now();
    if (now - last < 200) return;
    last = now;
    fn();
  };
}

function emptyCounts(): Counts {
  return { total: 0, easy: 0, medium: 0, hard: 0 };
}

function validate(o: MineOptions): void {
  const bad = (msg: string): never => {
    throw new GitGoodError("BAD_OPTION", msg);
  };
  if (!Number.isInteger(o.maxConflicts) || o.maxConflicts < 1) bad("--max-conflicts must be a whole number >= 1");
  if (!Number.isInteger(o.minChain) || o.minChain < 2) bad("--min-chain must be a whole number >= 2");
  if (!Number.isInteger(o.maxChain) || o.maxChain < o.minChain) bad("--max-chain must be a whole number >= --min-chain");
  if (!(o.minPurity >= 0 && o.minPurity <= 1)) bad("--min-purity must be between 0 and 1");
  if (!Number.isInteger(o.jobs) || o.jobs < 1) bad("--jobs must be a whole number >= 1");
  if (o.name !== undefined && !/^[^/\s]+\/[^/\s]+$/.test(o.name)) bad(`--name must look like owner/repo, not '${o.name}'`);
  if (o.window.since !== null && o.window.until !== null && o.window.since > o.window.until) bad("--since is after --until");
}

/** The commits at the edge of a shallow clone, by number in the graph: 1 for each. */
function readShallowBoundary(repo: Repo, graph: CommitGraph): Uint8Array {
  const boundary = new Uint8Array(graph.size);
  if (!repo.shallow) return boundary;
  let text = "";
  try {
    text = readFileSync(`${repo.gitDir}/shallow`, "utf8");
  } catch {
    return boundary;
  }
  for (const oid of text.split("\n")) {
    const i = oid ? graph.index(oid) : -1;
    if (graph.has(i)) boundary[i] = 1;
  }
  return boundary;
}

/** The non-merge commits of the graph (every one lies on some line of history): their numbers. */
function nonMergeCommits(graph: CommitGraph): number[] {
  const out: number[] = [];
  for (let i = 0; i < graph.size; i++) if (graph.parentCount(i) <= 1) out.push(i);
  return out;
}

/** The all-zero name git gives the missing side of an added or deleted file (SHA-1 or SHA-256). */
const ZERO_OIDS = new Set(["0".repeat(40), "0".repeat(64)]);
/** A submodule entry names a commit of another repository: nothing of it is read here. */
const GITLINK = "160000";

/** What chain mining needs of every non-merge commit, read in two passes. */
interface SummaryPass {
  repo: Repo;
  /** The commits to summarise, by number in the graph. */
  commits: readonly number[];
  languages: LanguageSet;
  jobs: number;
  slots: Slots;
  tips: readonly string[];
  graph: CommitGraph;
  summaries: CommitSummaries;
  paths: PathTable;
  /** Which commits could still make a chain, given the summaries so far (chains.ts). */
  candidates: () => Set<number>;
  progress: (done: number) => void;
}

/**
 * Summaries of the commits' diffs. The first pass reads trees only (`diff-tree --raw`, no blob is
 * read): which files each commit adds, modifies or deletes, which is all the line structure of history
 * needs. Line counts come from a second pass (`--numstat`, which reads both sides' blobs: the costly
 * part) over the commits of runs that could become chains only, repeated if that pass finds one it
 * cannot read (the runs through it change). A commit naming a blob the store lacks is unreadable, as
 * if its diff had failed: found from the missing set of a partial clone, else by one `cat-file
 * --batch-check` fed during the first pass. A missing tree costs one more diff process, however many
 * commits need it (MissingTrees).
 */
async function summarizeCommits(p: SummaryPass): Promise<void> {
  const { repo, languages, jobs, slots, graph, summaries, paths } = p;
  const missing = repo.partial ? await missingObjects(repo, p.tips) : null;
  const check = repo.partial ? null : new MissingBlobs(repo);
  const trees = new MissingTrees(repo);
  const blocked = new Set<number>();
  // Reused for every commit: a summary copies what it keeps into its pool.
  const files: number[] = [];
  const added = new Set<number>();
  const adds = (f: number): boolean => added.has(f);
  let done = 0;
  try {
    // The ids are made for the tree pass only: they are not kept through the rest of mining. One
    // process: git reads trees faster than this process reads its output (mockito: 0.2 s of git CPU
    // against about a second here), so a second one only adds a start and a core's worth of contention.
    for await (const batch of diffBatches(repo, p.commits.map((i) => graph.oid(i)), { jobs: 1, numstat: false, slots, missing: trees })) {
      for (const d of batch) {
        const i = graph.index(d.commit);
        if (d.unreadable) {
          summaries.markUnreadable(i);
          continue;
        }
        const blobs: string[] = [];
        for (const f of d.files) {
          if (f.oldMode !== GITLINK && !ZERO_OIDS.has(f.oldOid)) blobs.push(f.oldOid);
          if (f.newMode !== GITLINK && !ZERO_OIDS.has(f.newOid)) blobs.push(f.newOid);
        }
        if (missing && blobs.some((b) => missing.has(b))) blocked.add(i);
        const taken = check?.add(d.commit, blobs);
        if (taken) await taken;
        files.length = 0;
        added.clear();
        for (const f of d.files) {
          if ((f.status !== "A" && f.status !== "M") || !languages.has(f.path)) continue;
          const id = paths.id(f.path);
          files.push(id);
          if (f.status === "A") added.add(id);
        }
        // A commit that changes no file of a mined language ends every line's runs whether or not its
        // summary is kept, and no run holds it, so nothing of it is kept.
        if (files.length > 0) summaries.set(i, files, adds);
      }
      done += batch.length;
      p.progress(done);
    }
    if (check) for (const c of await check.commits()) blocked.add(graph.index(c));
    for (const i of blocked) summaries.markUnreadable(i);

    // Until no new candidate: one more round only when a count could not be read (runs through it change).
    const counted = new Set<number>();
    const other: number[] = [];
    for (let changed = true; changed; ) {
      changed = false;
      const wanted: string[] = [];
      for (const c of p.candidates()) {
        if (counted.has(c)) continue;
        counted.add(c);
        wanted.push(graph.oid(c));
      }
      for await (const batch of diffBatches(repo, wanted, { jobs, numstat: true, slots, missing: trees })) {
        for (const d of batch) {
          const i = graph.index(d.commit);
          if (d.unreadable) {
            summaries.markUnreadable(i);
            changed = true;
            continue;
          }
          const n = summaries.fileCount(i);
          if (n === 0) continue;
          const lines: CommitLines = { total: 0, perFile: new Map(), otherFiles: [] };
          other.length = 0;
          for (const f of d.files) {
            lines.total += f.lines;
            if (!languages.has(f.path)) {
              other.push(paths.id(f.path));
              continue;
            }
            const id = paths.find(f.path);
            for (let k = 0; k < n; k++) {
              if (summaries.file(i, k) === id) {
                lines.perFile.set(id, f.lines);
                break;
              }
            }
          }
          if (other.length > 0) lines.otherFiles = other.slice();
          summaries.lines.set(i, lines);
        }
      }
    }
  } finally {
    trees.close();
  }
}

/** Opens the repository to mine and lists its branches; one with no branch has nothing to mine. */
async function openRepository(repoPath: string): Promise<{ repo: Repo; branches: Branch[] }> {
  const repo = await Repo.open(repoPath);
  const branches = await listBranches(repo);
  if (branches.length === 0) {
    throw new GitGoodError("EMPTY_REPOSITORY", `${repoPath} has no branch with a commit: there is nothing to mine`, {
      path: repo.dir,
    });
  }
  return { repo, branches };
}

/** What a shallow or partial clone leaves out of the mining, one warning each. */
function cloneWarnings(repo: Repo): string[] {
  const warnings: string[] = [];
  if (repo.shallow) {
    warnings.push(
      "shallow clone: history beyond the shallow boundary is not mined; merges whose parents are cut away and chains that reach the boundary are skipped (run 'git fetch --unshallow' for complete results)",
    );
  }
  if (repo.partial) {
    warnings.push("partial clone: commits and merges whose objects are missing are skipped and counted as missing_objects");
  }
  return warnings;
}

/** The summary of a mining that has not counted anything yet. */
function startSummary(repo: Repo, branches: number, repository: string, warnings: string[]): MineSummary {
  return {
    schema_version: SUMMARY_SCHEMA_VERSION,
    repository,
    path: repo.dir,
    bare: repo.bare,
    shallow: repo.shallow,
    partial_clone: repo.partial,
    branches,
    commits: 0,
    unreadable_commits: 0,
    samples: { merge: emptyCounts(), file_commit_chain: emptyCounts() },
    dropped: { merge: {}, file_commit_chain: {} },
    excluded: false,
    warnings,
  };
}

/** What the two passes over the history found. */
interface PassFindings {
  merges: MergeFinding[];
  chains: ChainFinding[];
  /** Commits in the history. */
  commits: number;
  /** Commits whose diff could not be read (counted by the chain pass only). */
  unreadableCommits: number;
}

/**
 * Loads the history reachable from the branches and runs the passes `o.type` asks for: the re-merge
 * pass for merge samples and the diff pass for file-commit chains, side by side.
 */
async function runPasses(
  repo: Repo,
  branches: Branch[],
  o: MineOptions,
  languages: LanguageSet,
  slots: Slots,
  drops: DropCounter,
): Promise<PassFindings> {
  const tips = [...new Set(branches.map((b) => b.oid))];
  const graph = await loadCommitGraph(repo, tips);
  const shallowBoundary = readShallowBoundary(repo, graph);
  const wantMerges = o.type === "all" || o.type === "merge";
  const wantChains = o.type === "all" || o.type === "file_commit_chain";

  const commits = wantChains ? nonMergeCommits(graph) : [];
  const progress: MineProgress = { merges: { done: 0, total: 0 }, commits: { done: 0, total: commits.length } };
  const report = o.onProgress ? throttled(() => o.onProgress?.(progress)) : () => undefined;
  // The re-merge pass and the diff pass run side by side, each split over `jobs` processes that share
  // `jobs` slots: --jobs is the number of git processes at once, and when one pass's processes end
  // the other's take their cores (--jobs 1 still runs one pass after the other).
  const history: ChainHistory = {
    graph,
    summaries: new CommitSummaries(wantChains ? graph.size : 0),
    paths: new PathTable(),
    branches,
    shallowBoundary,
  };
  const startChains = (): Promise<void> | null =>
    wantChains
      ? summarizeCommits({
          repo,
          commits,
          languages,
          jobs: o.jobs,
          slots,
          tips,
          graph,
          summaries: history.summaries,
          paths: history.paths,
          candidates: () => chainCandidates(history, o),
          progress: (done) => {
            progress.commits.done = done;
            report();
          },
        })
      : null;
  const startMerges = (): Promise<MergeFinding[]> =>
    wantMerges
      ? mineMerges(repo, graph, { languages, maxConflicts: o.maxConflicts, window: o.window, jobs: o.jobs, slots }, drops, (done, total) => {
          progress.merges = { done, total };
          report();
        })
      : Promise.resolve([]);
  // The pass started first asks for its slots first. With two slots or more the tree pass goes first:
  // its pace is this process's reading, the re-merge pass's is git's, so they run side by side instead
  // of one after the other. With one slot the re-merge pass goes first, so that the commits' summaries
  // are not held while the merges are re-merged (jenkins, --jobs 1: peak RSS 109 MB against 131 MB).
  const chainsFirst = o.jobs > 1;
  const early = chainsFirst ? startChains() : null;
  const mergePass = startMerges();
  const chainPass = chainsFirst ? early : startChains();
  const [merges] = await Promise.all([mergePass, chainPass]);
  if (!wantChains) return { merges, chains: [], commits: graph.size, unreadableCommits: 0 };
  const unreadableCommits = history.summaries.unreadableCount();
  return { merges, chains: mineChains(history, o, drops), commits: graph.size, unreadableCommits };
}

/** The samples of what the passes found, merges first, numbered in each type, with the repository's fields. */
function toSamples(fields: RepositoryFields, merges: readonly MergeFinding[], chains: readonly ChainFinding[]): (MergeSample | ChainSample)[] {
  const samples: (MergeSample | ChainSample)[] = [];
  merges.forEach((m, i) => {
    const s: MergeSample = {
      id: sampleId(fields.name, "merge", i),
      ...fields,
      scenario: m.scenario,
      sample_type: "merge",
      difficulty: m.difficulty,
    };
    samples.push(s);
  });
  chains.forEach((c, i) => {
    const s: ChainSample = {
      id: sampleId(fields.name, "file_commit_chain", i),
      ...fields,
      scenario: c.scenario,
      sample_type: "file_commit_chain",
      difficulty: c.difficulty,
    };
    samples.push(s);
  });
  return samples;
}

/** Counts the samples into the summary, by type and difficulty. */
function countSamples(summary: MineSummary, samples: readonly (MergeSample | ChainSample)[]): void {
  for (const s of samples) {
    const counts = summary.samples[s.sample_type];
    counts.total++;
    counts[s.difficulty]++;
  }
}

/**
 * Mines GitGoodBench samples from a repository: merge-conflict samples and file-commit-chain samples,
 * with the repository-level fields filled in. Never writes to the repository.
 */
export async function mine(input: MineInput): Promise<MineResult> {
  const { repoPath, ...options } = input;
  const o: MineOptions = { ...DEFAULT_MINE_OPTIONS, ...options };
  validate(o);
  const languages = new LanguageSet(o.languages);
  const { repo, branches } = await openRepository(repoPath);
  const warnings = cloneWarnings(repo);
  // The repository's own fields are read beside the passes, in a slot of their own, unless the
  // filters need them first: they are only written into the samples at the end.
  const slots = new Slots(o.jobs);
  const named = o.name !== undefined ? { name: o.name, fromFolder: false } : await repositoryName(repo);
  if (named.fromFolder) warnings.push(`${folderNameProblem(named.name)} (ids such as ${sampleId(named.name, "merge", 0)}): give --name owner/repo`);
  const describe = () => describeRepository(repo, { name: named.name, metadata: o.metadata, languages });
  const early = o.filter ? await describe() : null;
  const summary = startSummary(repo, branches.length, early?.fields.name ?? "", warnings);
  if (early) {
    summary.filters = await evaluateFilters(repo, o.metadata, { license: early.fields.license, branchCount: branches.length });
    if (summary.filters.some((f) => !f.passed)) {
      summary.excluded = true;
      return { samples: [], summary };
    }
  }
  const described = early ? Promise.resolve(early) : slots.run(describe);
  // Waited for below; a failure meanwhile is not left unhandled.
  described.catch(() => undefined);

  const drops = new DropCounter();
  const found = await runPasses(repo, branches, o, languages, slots, drops);
  summary.commits = found.commits;
  summary.unreadable_commits = found.unreadableCommits;
  const facts = await described;
  summary.repository = facts.fields.name;
  let merges = found.merges;
  if (o.resolvableOnly) {
    merges = found.merges.filter((m) => m.scenario.resolvable === true);
    summary.unresolvable_left_out = found.merges.length - merges.length;
  }
  const samples = toSamples(facts.fields, merges, found.chains);
  countSamples(summary, samples);
  summary.dropped = drops.ordered();
  return { samples, summary };
}
