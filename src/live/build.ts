import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { clonePath } from "../dataset/clones.js";
import { ensureClone } from "../dataset/repos.js";
import { PUBLISHED_SPLIT } from "../dataset/split.js";
import type { Sample } from "../dataset/sample.js";
import { GitGoodError } from "../errors.js";
import { fetchCommits, objectKinds } from "../git/clone.js";
import { Repo } from "../git/repo.js";
import { copyAtCommit, newestCommitTime, SCRATCH_BRANCH } from "../git/scratch.js";
import { mine, type MineSummary } from "../mining/mine.js";
import { committedAt, type DateWindow } from "../mining/window.js";
import { checkClonePattern, cloneUrlFor } from "../queue/clone.js";
import type { FamilyRelease, ReleaseMineSummary, ReleaseTesting } from "../families/definition.js";
import { releaseFamilies } from "../families/registry.js";
import { mapPool } from "../util/pool.js";
import { canaryNeedles, plantCanary, scanFiles, testSandboxWatcher, tokenDigest, type Canary, type CanaryLedger } from "./canary.js";
import { scanRunExports } from "./exports.js";
import { GATE_REASONS, runGate, type GateDrop } from "./gate.js";
import { HISTORY_TYPES, pinsEnvSpecs, pinTypes, type Pin, type Pins } from "./pins.js";
import { checkReleaseDir, fileDigests, pinsDigest, RELEASE_KIND, releaseFiles, splitSizes, writeRelease } from "./release.js";

/** The manifest's format version. */
const MANIFEST_SCHEMA_VERSION = 1;

export interface LiveBuildOptions {
  pins: Pins;
  window: DateWindow;
  out: string;
  /** Clone the repositories that have no path into `cacheDir` (as the queue worker's --clone does). */
  clone: boolean;
  cacheDir: string;
  /** Repositories mined at once, and attempts of the gate at once. */
  jobs: number;
  /** Runs of each side of a test-judged candidate's validation, the flake gate (default: each family's own). */
  flakeRuns?: number;
  /** The split's sizes per language and type (scaled down to the smallest group) and its seed. */
  split?: { lite: number; full: number; seed: number };
  /** Told what the build is doing, a line at a time. */
  onStep?: (line: string) => void;
}

/** Samples per type, every type a release can hold. */
type TypeCounts = Record<string, number>;

/** What the manifest says of a repository's mining of a test-judged type: its counts, or why there was none. */
type TestedEntry = ({ mined: true; env_spec: string } & ReleaseMineSummary) | { mined: false; why: string };

/** One repository of a release in the manifest. */
interface RepositoryEntry {
  name: string;
  commit: string;
  committed_at: string;
  types: string[];
  mined: TypeCounts;
  kept: TypeCounts;
  dropped_by_mining: MineSummary["dropped"] | null;
  /** Per test-judged type (the families' release types). */
  test_judged: Record<string, TestedEntry>;
  canary: { committed_at: string; token_sha256: string };
}

/** What `gitgood live build` reports. */
export interface LiveBuildSummary {
  out: string;
  samples: number;
  tasks: number;
  dropped: number;
  repositories: number;
  canary: { sandboxes: number; test_sandboxes: number; files: number; reached: number };
}

/** Where a pin's repository is read from: its path, or its clone in the cache (made with --clone). */
async function sourceOf(pin: Pin, pins: Pins, opts: LiveBuildOptions): Promise<string> {
  if (pin.path !== null) return pin.path;
  if (!opts.clone) {
    throw new GitGoodError("BAD_PINS", `${pin.name} has no path in ${pins.file}: give --clone to clone it from ${pins.urlPattern}`);
  }
  const root = checkClonePattern(pins.urlPattern);
  const url = cloneUrlFor(pins.urlPattern, root, pin.name, `pin ${pin.name}`);
  const dest = clonePath(opts.cacheDir, pin.name) ?? "";
  try {
    await ensureClone(url, dest);
    const repo = await Repo.open(dest);
    if ((await objectKinds(repo, [pin.commit])).get(pin.commit) !== "commit") await fetchCommits(repo, url, [pin.commit]);
    await repo.close();
  } catch (err) {
    const why = err instanceof Error ? (err.message.split("\n").find((l) => l.trim() !== "") ?? "") : String(err);
    throw new GitGoodError("CLONE_FAILED", `cannot clone ${pin.name} from ${url}: ${why.trim()}`, { url });
  }
  return dest;
}

interface Mined {
  pin: Pin;
  samples: Sample[];
  /** Mining's summary of merges and chains; null when the pin's types name neither. */
  summary: MineSummary | null;
  /** The test-judged families' mining summaries, by type (a type the pin does not get is absent). */
  tested: Map<string, ReleaseMineSummary>;
  canary: Canary;
  pinnedAt: number;
}

/** What mining a pin needs besides the pin: the build's options, its scratch area and the canary checks' ledger. */
interface PinMining {
  pins: Pins;
  opts: LiveBuildOptions;
  scratchRoot: string;
  ledger: CanaryLedger;
}

/**
 * Copies a pin's commit into the scratch area, plants its canary there and mines the copy in the window:
 * merges and chains as `gitgood mine` does, and with an env_spec each test-judged family's tasks as
 * its release part mines them, every sandbox it tests in checked for the canary.
 */
async function minePin(pin: Pin, m: PinMining): Promise<Mined> {
  const { pins, opts } = m;
  const source = await sourceOf(pin, pins, opts);
  const dest = clonePath(m.scratchRoot, pin.name) ?? "";
  const scratch = await copyAtCommit(source, pin.commit, dest);
  try {
    const pinnedAt = await newestCommitTime(scratch, SCRATCH_BRANCH);
    const canary = await plantCanary(scratch, pin.name, pin.commit, opts.window);
    // Without --until the window ends at the pin's newest commit: the canary, a day later, is outside it.
    const window = { since: opts.window.since, until: opts.window.until ?? pinnedAt };
    // The --jobs git processes are shared by the repositories mined at once.
    const jobs = Math.max(1, Math.floor(opts.jobs / Math.min(opts.jobs, pins.repositories.length)));
    const histories = HISTORY_TYPES.filter((t) => pin.types.includes(t));
    const type = histories.length === 2 ? "all" : histories[0];
    const mined = type === undefined ? null : await mine({ repoPath: dest, name: pin.name, window, jobs, type });
    const tested = new Map<string, ReleaseMineSummary>();
    const samples: Sample[] = [...(mined?.samples ?? [])];
    for (const family of releaseFamilies().filter((f) => pin.types.includes(f.type))) {
      const result = await family.mine({
        ...testing(pins, [canary], m.ledger),
        repoPath: dest,
        name: pin.name,
        since: window.since,
        until: window.until,
        runs: flakeRuns(family, opts),
        jobs,
        onStep: (line) => opts.onStep?.(`${pin.name} ${family.type} ${line}`),
      });
      tested.set(family.type, result.summary);
      samples.push(...result.samples);
    }
    return { pin, samples, summary: mined?.summary ?? null, tested, canary, pinnedAt };
  } finally {
    await scratch.close();
  }
}

/** How a build's test-judged tasks run their tests: the pins' environment specs, every test sandbox checked for `canaries`. */
const testing = (pins: Pins, canaries: readonly Canary[], ledger: CanaryLedger): ReleaseTesting => ({
  envSpecs: pinsEnvSpecs(pins),
  watchSandbox: testSandboxWatcher(canaries, ledger),
});

/** Runs of each side of a family's validation: --flake-runs, else the family's own. */
const flakeRuns = (family: FamilyRelease, opts: LiveBuildOptions): number => opts.flakeRuns ?? family.runs;

const countTypes = (samples: readonly Sample[]): TypeCounts =>
  Object.fromEntries(pinTypes().map((t) => [t, samples.filter((s) => s.sample_type === t).length]));

const byId = (a: Sample, b: Sample): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * Builds a release: each pinned repository copied into a scratch area (the user's repository is only
 * read), a canary planted in the copy, the copy mined in the window, every task put through the QA gate in
 * sandboxes made from the copies, the canary looked for in every sandbox, trajectory and file of the
 * release, and the release written to `out`. A reached canary writes nothing (CANARY_REACHED).
 */
export async function buildRelease(opts: LiveBuildOptions): Promise<LiveBuildSummary> {
  const digest = pinsDigest(opts.pins);
  checkReleaseDir(opts.out, digest);
  const step = opts.onStep ?? (() => undefined);
  const work = mkdtempSync(path.join(os.tmpdir(), "gitgood-live-"));
  try {
    const scratchRoot = path.join(work, "sources");
    const ledger: CanaryLedger = { sandboxes: 0, testSandboxes: 0, files: 0, hits: [] };
    const mined: Mined[] = [];
    for await (const m of mapPool(opts.pins.repositories, opts.jobs, (pin) => minePin(pin, { pins: opts.pins, opts, scratchRoot, ledger }))) {
      step(`mined ${m.pin.name} at ${m.pin.commit.slice(0, 12)}: ${m.samples.length} sample${m.samples.length === 1 ? "" : "s"}`);
      mined.push(m);
    }
    mined.sort((a, b) => (a.pin.name < b.pin.name ? -1 : a.pin.name > b.pin.name ? 1 : 0));
    const samples = mined.flatMap((m) => m.samples).sort(byId);
    const canaries = mined.map((m) => m.canary);
    step(`QA gate: ${samples.length} sample${samples.length === 1 ? "" : "s"}, each by the oracle and the untouched start`);
    const tests = testing(opts.pins, canaries, ledger);
    const settings = Object.assign({}, ...releaseFamilies().map((f) => f.settings(tests))) as Record<string, unknown>;
    const gate = await runGate(samples, { scratchRoot, workDir: work, jobs: opts.jobs, canaries, ledger, settings });
    for (const dir of gate.runDirs) {
      const scanned = scanFiles(dir, canaryNeedles(canaries), `gate run ${path.basename(dir)}`);
      ledger.files += scanned.files;
      ledger.hits.push(...scanned.hits);
    }
    const exported = scanRunExports(gate.runDirs, canaryNeedles(canaries), (dir) => `gate run ${path.basename(dir)}`);
    ledger.files += exported.files;
    ledger.hits.push(...exported.hits);
    const kept = gate.kept.sort(byId);
    const asked = opts.split ?? { ...PUBLISHED_SPLIT, seed: 0 };
    const sizes = splitSizes(kept, asked);
    const files = releaseFiles(kept, { ...sizes, seed: asked.seed });
    const needles = canaryNeedles(canaries);
    for (const [name, text] of files) {
      ledger.files++;
      const found = needles.find((n) => text.includes(n));
      if (found !== undefined) ledger.hits.push({ where: `release file ${name}`, found });
    }
    if (ledger.hits.length > 0) {
      const first = ledger.hits[0];
      throw new GitGoodError("CANARY_REACHED", `the canary was reached in ${ledger.hits.length} places, first in ${first?.where ?? "?"}: nothing was written`, {
        hits: ledger.hits.slice(0, 20),
      });
    }
    const manifest = releaseManifest(opts, digest, mined, kept, gate.drops, gate.tasks, sizes, asked, { ...ledger, exports: exported.files }, fileDigests(files));
    writeRelease(opts.out, files, manifest);
    return {
      out: opts.out,
      samples: kept.length,
      tasks: gate.tasks,
      dropped: gate.drops.length,
      repositories: mined.length,
      canary: { sandboxes: ledger.sandboxes, test_sandboxes: ledger.testSandboxes, files: ledger.files, reached: 0 },
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The manifest's word on a pin's tasks of a test-judged type: the mining's counts, or why there were none. */
function testedEntry(m: Mined, type: string): TestedEntry {
  const summary = m.tested.get(type);
  if (summary !== undefined) return { mined: true, env_spec: m.pin.envSource ?? "", ...summary };
  return { mined: false, why: m.pin.env === null ? "the pin has no env_spec: nothing says how to run its tests" : "the pin's types leave it out" };
}

function releaseManifest(
  opts: LiveBuildOptions,
  digest: string,
  mined: readonly Mined[],
  kept: readonly Sample[],
  drops: readonly GateDrop[],
  tasks: number,
  sizes: { lite: number; full: number },
  asked: { lite: number; full: number; seed: number },
  ledger: CanaryLedger & { exports: number },
  digests: Record<string, string>,
): Record<string, unknown> {
  const keptIds = new Set(kept.map((s) => s.id));
  const repositories: RepositoryEntry[] = mined.map((m) => ({
    name: m.pin.name,
    commit: m.pin.commit,
    committed_at: committedAt(m.pinnedAt),
    types: m.pin.types,
    mined: countTypes(m.samples),
    kept: countTypes(m.samples.filter((s) => keptIds.has(s.id))),
    dropped_by_mining: m.summary?.dropped ?? null,
    test_judged: Object.fromEntries(releaseFamilies().map((f) => [f.type, testedEntry(m, f.type)])),
    canary: { committed_at: committedAt(m.canary.seconds), token_sha256: tokenDigest(m.canary.token) },
  }));
  const byReason: Record<string, number> = {};
  for (const d of drops) byReason[d.reason] = (byReason[d.reason] ?? 0) + 1;
  return {
    schema_version: MANIFEST_SCHEMA_VERSION,
    kind: RELEASE_KIND,
    pins_digest: digest,
    window: {
      since: opts.window.since === null ? null : committedAt(opts.window.since),
      until: opts.window.until === null ? null : committedAt(opts.window.until),
    },
    repositories,
    counts: { samples: kept.length, ...countTypes(kept) },
    gate: {
      rule: "kept when, for every scenario of the sample, the oracle solves it and the untouched start does not; an MCR merge must be resolvable; IR and ICC count as solved by the history checks (finished, final tree is the chain's tip); a test-judged task as its family's rule below says",
      test_judged: Object.fromEntries(releaseFamilies().map((f) => [f.type, { rule: f.rule, runs: flakeRuns(f, opts) }])),
      tasks,
      dropped: drops.length,
      dropped_by_reason: Object.fromEntries(Object.keys(byReason).sort().map((k) => [k, { count: byReason[k], why: GATE_REASONS[k as keyof typeof GATE_REASONS] }])),
      drops,
    },
    canary: {
      rule: "a commit dated a day after the window, holding a unique token, planted in gitgood's scratch copy of each source; every sandbox the gate made, every sandbox a test-judged family's validation or evaluation worked in (not counted here: a cached verdict spares some), every file of its runs (results and trajectories), every file `gitgood export` sft (both layouts), atif and inspect writes of those runs (an Inspect log's files inflated), and every file of the release was searched for its objects and token",
      sandboxes_checked: ledger.sandboxes,
      files_checked: ledger.files,
      export_files_checked: ledger.exports,
      reached: 0,
    },
    splits: { seed: asked.seed, lite: sizes.lite, full: sizes.full, asked: { lite: asked.lite, full: asked.full } },
    files: digests,
  };
}
