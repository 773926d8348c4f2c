import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/agents/index.js";
import type { ChainSample, Sample } from "../../src/dataset/sample.js";
import { installStore, PackCache } from "../../src/git/packs.js";
import { Repo } from "../../src/git/repo.js";
import { chainStore, treeStore } from "../../src/git/store.js";
import { runConfig } from "../../src/runs/config.js";
import { runBenchmark } from "../../src/runs/runner.js";
import { RunStore } from "../../src/runs/store.js";
import { runPackCache } from "../../src/sandbox/packs.js";
import { setupScenario } from "../../src/scenarios/index.js";
import type { Fixture } from "../helpers/fixture.js";
import { fixtureEnv } from "../helpers/fixture.js";
import { countGitProcesses } from "../helpers/git-count.js";
import { buildRunFixture } from "../helpers/runs.js";
import { useSandboxRoot } from "../helpers/scenarios.js";

let root: ReturnType<typeof useSandboxRoot>;
let fx: Fixture;
let samples: Sample[];
let chain: ChainSample;
const temps: string[] = [];

function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  temps.push(dir);
  return dir;
}

beforeAll(async () => {
  root = useSandboxRoot();
  ({ fx, samples } = await buildRunFixture());
  chain = samples.find((s): s is ChainSample => s.sample_type === "file_commit_chain") as ChainSample;
});
afterAll(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
  fx.remove();
  root.cleanup();
});

/** The packs in a pack cache's directory (one directory per pack), with their files' inodes. */
function cached(dir: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const key of readdirSync(dir).filter((n) => n !== "owner.json")) {
    for (const f of readdirSync(path.join(dir, key))) out.set(`${key}/${f}`, statSync(path.join(dir, key, f)).ino);
  }
  return out;
}

/** The object ids the packs of the object store of `gitDir` hold, sorted. */
function objectsIn(gitDir: string): string[] {
  const dir = path.join(gitDir, "objects", "pack");
  const ids = readdirSync(dir)
    .filter((n) => n.endsWith(".idx"))
    .flatMap((n) =>
      execFileSync("git", ["show-index"], { input: readFileSync(path.join(dir, n)), encoding: "utf8" })
        .split("\n")
        .filter(Boolean)
        .map((l) => l.split(" ")[1] as string),
    );
  return [...new Set(ids)].sort();
}

function packsOf(workDir: string): string[] {
  return readdirSync(path.join(workDir, ".git", "objects", "pack")).filter((n) => n.endsWith(".pack"));
}

describe("the pack cache of a run", () => {
  it("builds one pack for a cold IR or ICC store (one git process), holding exactly the objects of its packs", async () => {
    const source = await Repo.open(fx.dir);
    const rev = (r: string): string => execFileSync("git", ["rev-parse", r], { cwd: fx.dir, encoding: "utf8" }).trim();
    const base = rev(`${chain.scenario.oldest_commit}^`);
    const tip = rev(chain.scenario.newest_commit);
    for (const plan of [await chainStore(source, base, tip, 2), await treeStore(source, base, rev(`${base}^{tree}`), rev(`${tip}^{tree}`), 2)]) {
      expect(plan.union).toBeDefined();
      expect(plan.shallow.length).toBeGreaterThan(0);
      const split = tempDir("gitgood-store-");
      const one = tempDir("gitgood-store-");
      await installStore(source, { packs: plan.packs, shallow: plan.shallow }, split, null);
      const { processes } = await countGitProcesses(() => installStore(source, plan, one, null));
      expect(processes).toBe(1);
      expect(objectsIn(one)).toEqual(objectsIn(split));
    }
    const cache = new PackCache(tempDir("gitgood-packs-"));
    const { processes } = await countGitProcesses(async () => (await setupScenario(chain, fx.dir, { scenario: "IR", packs: cache, history: 2 })).close());
    expect(processes).toBeGreaterThan(0);
    expect(cached(cache.dir).size).toBe(2); // one pack and its index
    // With the full history there is no one pack of them all: the past is built once and shared.
    expect((await chainStore(source, base, tip, "full")).union).toBeUndefined();
    await source.close();
  });

  it("builds the past of a chain's base once for its IR and ICC sandboxes (full history), and copies (never links) packs into them", async () => {
    const dir = tempDir("gitgood-packs-");
    const cache = new PackCache(dir);
    const ir = await setupScenario(chain, fx.dir, { scenario: "IR", packs: cache, history: "full" });
    const afterIr = cached(dir);
    expect(afterIr.size).toBe(4); // the base's past and the chain: a pack and an index each
    const icc = await setupScenario(chain, fx.dir, { scenario: "ICC", packs: cache, history: "full" });
    const afterIcc = cached(dir);
    expect(afterIcc.size).toBe(6); // the tip's tree is the only new pack
    for (const [file, ino] of afterIr) expect(afterIcc.get(file)).toBe(ino);
    const shared = packsOf(ir.sandbox.workDir).filter((p) => packsOf(icc.sandbox.workDir).includes(p));
    expect(shared).toHaveLength(1);
    for (const s of [ir, icc]) {
      for (const p of packsOf(s.sandbox.workDir)) {
        const st = statSync(path.join(s.sandbox.workDir, ".git", "objects", "pack", p));
        expect(st.nlink).toBe(1);
        expect([...afterIcc.values()]).not.toContain(st.ino);
      }
      s.close();
    }
  });

  it("removes the least recently used packs beyond its budget; sandboxes keep their copies", async () => {
    const dir = tempDir("gitgood-packs-");
    const cache = new PackCache(dir, 1);
    const s = await setupScenario(chain, fx.dir, { scenario: "ICC", packs: cache });
    expect(cached(dir).size).toBe(0);
    expect(cache.bytes).toBe(0);
    execFileSync("git", ["fsck", "--no-progress"], { cwd: s.sandbox.workDir, env: fixtureEnv() });
    s.close();
  });

  it("builds a store's packs side by side; when one fails, the others are released and nothing is installed", async () => {
    const source = await Repo.open(fx.dir);
    const tip = execFileSync("git", ["rev-parse", chain.scenario.newest_commit], { cwd: fx.dir, encoding: "utf8" }).trim();
    const good = { tips: [tip], exclude: [], shallow: [] };
    const bad = { tips: ["0".repeat(40)], exclude: [], shallow: [] };
    // A budget of one byte: a pack nobody holds is removed after every install.
    const dir = tempDir("gitgood-packs-");
    const cache = new PackCache(dir, 1);
    const gitDir = tempDir("gitgood-store-");
    await expect(cache.install(source, { packs: [good, bad], shallow: [] }, gitDir)).rejects.toThrow();
    expect(existsSync(path.join(gitDir, "objects", "pack"))).toBe(false);
    expect(cached(dir).size).toBe(0);
    // Both at once, cached: each pack is built once and both are installed.
    const both = new PackCache(tempDir("gitgood-packs-"));
    const past = { tips: [chain.scenario.oldest_commit], exclude: [], shallow: [] };
    await both.install(source, { packs: [good, past], shallow: [] }, gitDir);
    expect(readdirSync(path.join(gitDir, "objects", "pack")).filter((n) => n.endsWith(".pack"))).toHaveLength(2);
    expect(cached(both.dir).size).toBe(4);
  });

  it("lives in a directory of its own under the sandbox root until the run ends", async () => {
    const packs = runPackCache();
    expect(path.dirname(packs.cache.dir)).toBe(root.root);
    expect(existsSync(path.join(packs.cache.dir, "owner.json"))).toBe(true);
    packs.remove();
    expect(existsSync(packs.cache.dir)).toBe(false);

    const out = tempDir("gitgood-runs-");
    const agent = createAgent("oracle");
    const store = RunStore.open(out, runConfig({ samples: ["test"], agent: agent.name }, (p) => p));
    const summary = await runBenchmark({
      samples,
      where: { repo: fx.dir },
      agent,
      store,
      jobs: 2,
      judges: [],
      spec: { timeout_s: 60, max_turns: 10, history: 1 },
    });
    expect(summary.records.map((r) => r.status)).toEqual(summary.records.map(() => "success"));
    expect(summary.records.filter((r) => r.scenario === "MCR").every((r) => r.solved)).toBe(true);
    expect(readdirSync(root.root)).toEqual([]);
  });
});
