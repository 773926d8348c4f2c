import { createHash } from "node:crypto";
import { constants, mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { copyFile } from "node:fs/promises";
import path from "node:path";
import type { Repo } from "./repo.js";
import type { PackSpec, StorePlan } from "./store.js";

/** A pack `git pack-objects` wrote: `<dir>/<name>.pack` and its index `<dir>/<name>.idx`. */
interface BuiltPack {
  dir: string;
  /** `pack-<hash>`, the name git gives it. */
  name: string;
  /** Size of the pack and its index. */
  bytes: number;
}

const PACK_FILES = [".pack", ".idx"] as const;

/**
 * Writes the objects of `spec` from `source` as one pack with its index into `dir`, in one
 * `git pack-objects --revs` process: the walk stops at the spec's shallow commits (as for a shallow
 * fetch), and objects are copied as the source stores them where it can be. No new deltas are searched
 * for (`--window=0`) and new ones are compressed fast: a pack lives for one run, and the search costs
 * five times the time for a pack a tenth smaller (bench/setup.js). The source is only read.
 */
async function writePack(source: Repo, spec: PackSpec, dir: string): Promise<BuiltPack> {
  mkdirSync(dir, { recursive: true });
  const input = [...spec.shallow.map((c) => `--shallow ${c}`), ...spec.tips, ...spec.exclude.map((e) => `^${e}`)];
  const args = ["pack-objects", "--revs", "--quiet", "--delta-base-offset", "--window=0", "--compression=1"];
  // A partial clone lacks some objects by design: the store then lacks them too, as the source does.
  if (source.partial) args.push("--missing=allow-promisor");
  const hash = (await source.text([...args, path.join(dir, "pack")], { input: `${input.join("\n")}\n` })).trim();
  const name = `pack-${hash}`;
  const bytes = PACK_FILES.reduce((sum, ext) => sum + statSync(path.join(dir, `${name}${ext}`)).size, 0);
  return { dir, name, bytes };
}

/**
 * Copies packs into a repository's object store (a copy, never a link: the copy may be changed by its
 * owner), on libuv's thread pool: a pack is megabytes, and parallel set-ups must not wait for each other's copies.
 */
async function copyPacks(packs: readonly BuiltPack[], gitDir: string): Promise<void> {
  const into = path.join(gitDir, "objects", "pack");
  mkdirSync(into, { recursive: true });
  await Promise.all(
    packs.flatMap((p) => PACK_FILES.map((ext) => copyFile(path.join(p.dir, `${p.name}${ext}`), path.join(into, `${p.name}${ext}`), constants.COPYFILE_FICLONE))),
  );
}

interface Entry {
  built: Promise<BuiltPack>;
  pack: BuiltPack | null;
  /** Set-ups copying from it right now: never evicted while above 0. */
  users: number;
  lastUse: number;
}

/** Packs kept at most, in bytes, before the least recently used unused ones are removed. */
const PACK_CACHE_BUDGET = 2 * 1024 ** 3;

/**
 * Packs built once and copied into every store that needs them: a scenario run again (with memory, say)
 * reuses all of its packs, and a store whose plan has one pack of them all (`StorePlan.union`) builds
 * that one when none of its own packs is here (with `--history full`, which has none, the IR and ICC
 * sandboxes of a chain share the pack of its base's past). Keyed by source and pack content; each pack lives in its own directory below `dir`.
 * Least recently used packs are removed once the cache holds more than `budget` bytes.
 */
export class PackCache {
  private readonly entries = new Map<string, Entry>();
  private clock = 0;

  constructor(
    readonly dir: string,
    private readonly budget = PACK_CACHE_BUDGET,
  ) {}

  private key(source: Repo, spec: PackSpec): string {
    const sorted = (xs: readonly string[]): string[] => [...xs].sort();
    return createHash("sha256")
      .update(JSON.stringify([source.objectsDir, sorted(spec.tips), sorted(spec.exclude), sorted(spec.shallow)]))
      .digest("hex")
      .slice(0, 32);
  }

  /** The pack of `spec`, built now or earlier, marked in use until `release`. */
  private async acquire(source: Repo, spec: PackSpec): Promise<Entry> {
    const key = this.key(source, spec);
    let entry = this.entries.get(key);
    if (!entry) {
      const built = writePack(source, spec, path.join(this.dir, key));
      const fresh: Entry = { built, pack: null, users: 0, lastUse: 0 };
      entry = fresh;
      this.entries.set(key, fresh);
      built.then(
        (pack) => {
          fresh.pack = pack;
        },
        () => {
          this.entries.delete(key);
          rmSync(path.join(this.dir, key), { recursive: true, force: true });
        },
      );
    }
    entry.users++;
    entry.lastUse = ++this.clock;
    try {
      await entry.built;
    } catch (err) {
      entry.users--;
      throw err;
    }
    return entry;
  }

  /**
   * The packs to install for `plan`: its own packs when the cache holds (or is building) one of them,
   * so that a pack shared between stores (a chain's past) is built once; else the one pack of them all
   * where the plan has one, built in one git process.
   */
  private specsOf(source: Repo, plan: StorePlan): readonly PackSpec[] {
    if (!plan.union || plan.packs.some((spec) => this.entries.has(this.key(source, spec)))) return plan.packs;
    return [plan.union];
  }

  /** Installs the packs of `plan` into `gitDir`, building the ones not in the cache yet. */
  async install(source: Repo, plan: StorePlan, gitDir: string): Promise<void> {
    const taken: Entry[] = [];
    try {
      // The packs of a store are built side by side: each is one git process, and git's work spreads over the cores.
      const acquired = await Promise.allSettled(this.specsOf(source, plan).map((spec) => this.acquire(source, spec)));
      for (const a of acquired) if (a.status === "fulfilled") taken.push(a.value);
      const failed = acquired.find((a): a is PromiseRejectedResult => a.status === "rejected");
      if (failed) throw failed.reason;
      await copyPacks(
        taken.map((e) => e.pack as BuiltPack),
        gitDir,
      );
    } finally {
      for (const e of taken) e.users--;
      this.evict();
    }
  }

  /** Bytes held by finished packs. */
  get bytes(): number {
    let sum = 0;
    for (const e of this.entries.values()) sum += e.pack?.bytes ?? 0;
    return sum;
  }

  private evict(): void {
    const idle = [...this.entries].filter(([, e]) => e.users === 0 && e.pack !== null).sort((a, b) => a[1].lastUse - b[1].lastUse);
    let total = this.bytes;
    for (const [key, e] of idle) {
      if (total <= this.budget) break;
      this.entries.delete(key);
      rmSync(path.join(this.dir, key), { recursive: true, force: true });
      total -= e.pack?.bytes ?? 0;
    }
  }
}

/**
 * Fills the object store of the new repository at `gitDir` as `plan` says: its packs (from `cache`,
 * or written straight into the store) and its shallow boundary. Nothing else of the source goes in.
 */
export async function installStore(source: Repo, plan: StorePlan, gitDir: string, cache: PackCache | null): Promise<void> {
  if (cache) await cache.install(source, plan, gitDir);
  else await Promise.all((plan.union ? [plan.union] : plan.packs).map((spec) => writePack(source, spec, path.join(gitDir, "objects", "pack"))));
  if (plan.shallow.length > 0) writeFileSync(path.join(gitDir, "shallow"), `${plan.shallow.join("\n")}\n`);
}
