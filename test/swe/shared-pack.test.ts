import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Repo } from "../../src/git/repo.js";
import { runPackCache } from "../../src/sandbox/packs.js";
import { setupScenario } from "../../src/scenarios/index.js";
import type { SweFinalState } from "../../src/scenarios/swe/state.js";
import { evaluatePatch } from "../../src/swe/evaluate.js";
import type { SweOptions } from "../../src/swe/options.js";
import { countGitProcesses } from "../helpers/git-count.js";
import { pythonTaskSetup, type PythonTaskSetup } from "../helpers/python-task.js";
import { CALC_BASE, type PythonTask } from "../helpers/swe.js";

let setup: PythonTaskSetup;
let root: PythonTaskSetup["root"];
let task: PythonTask;
let source: Repo;
let opts: SweOptions;

beforeAll(async () => {
  setup = await pythonTaskSetup();
  ({ root, task, source, opts } = setup);
}, 60_000);

afterAll(() => setup?.remove());

/** The files of the packs below `dir` (a pack cache's directory or an object store's `pack` directory), by name. */
function packFiles(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(d, e.name));
      else if (e.name.endsWith(".pack")) out.set(e.name, readFileSync(path.join(d, e.name)));
    }
  };
  walk(dir);
  return out;
}

const fixed = CALC_BASE.replace("def sub(a, b):\n    return a + b", "def sub(a, b):\n    return a - b");

describe("an attempt's evaluation takes the attempt's pack of its base", () => {
  it("packs the base once for the attempt and its evaluation, and the evaluation installs the cache's pack, not the one the agent wrote over", async () => {
    const packs = runPackCache(root.root);
    try {
      const { result, commands } = await countGitProcesses(async () => {
        const s = await setupScenario(task.sample(), source, { settings: { swe: { ...opts, validate: false } }, packs: packs.cache, history: 2 });
        try {
          // The agent fixes the bug and writes over every pack its repository's view holds.
          writeFileSync(path.join(s.sandbox.workDir, "calc", "__init__.py"), fixed);
          const viewPacks = path.join(s.sandbox.workDir, ".git", "objects", "pack");
          const written = readdirSync(viewPacks).filter((n) => n.endsWith(".pack"));
          expect(written.length).toBeGreaterThan(0);
          for (const name of written) writeFileSync(path.join(viewPacks, name), "PACK written by the agent\n");
          const final = (await s.finalState()) as SweFinalState;
          return await evaluatePatch(source, task.sample(), final.patch, opts);
        } finally {
          s.close();
        }
      });
      expect(result.status).toBe("resolved");
      // One pack of the base: the attempt's, taken by its evaluation (it would pack the base again at depth 1).
      expect(commands.filter((c) => c.startsWith("pack-objects"))).toHaveLength(1);

      const [evalDir] = readdirSync(root.root).filter((n) => n.includes("-eval-"));
      const evalGit = path.join(root.root, evalDir as string, "private", "git");
      // The evaluation's store is the attempt's: the cache's pack byte for byte, with the base's parent (history 2) and nothing after the base.
      expect(packFiles(path.join(evalGit, "objects", "pack"))).toEqual(packFiles(packs.cache.dir));
      const objects = execFileSync("git", ["--git-dir", evalGit, "cat-file", "--batch-all-objects", "--batch-check=%(objectname)"], { encoding: "utf8" });
      expect(objects).toContain(task.fixture.git("rev-parse", `${task.base}~1`));
      expect(objects).not.toContain(task.fix);
      expect(objects).not.toContain(task.later);
    } finally {
      packs.remove();
    }
  }, 180_000);
});
