import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import type { TaskFile } from "../../src/families/harbor-kit.js";
import { exportHarborTask } from "../../src/export/harbor.js";
import { Repo } from "../../src/git/repo.js";
import { SWE } from "../../src/scenarios/swe/index.js";
import { useSandboxRoot } from "../helpers/scenarios.js";
import { pythonTask, type PythonTask } from "../helpers/swe.js";
import { allBytes } from "./harbor-scripts.js";

/*
 * export harbor's path door (src/sandbox/paths.ts): a hostile work tree or recorded outcome holds a link
 * `a -> OUTSIDE/dir` and a file `a/x` after it, and a link `b -> OUTSIDE/secret.txt`. Canary files outside
 * the sandbox and the task directory must come out unchanged, and no exported byte may hold their secret.
 *
 * git itself never lists a file below a link of the work tree, so the delta that would carry `a/x` after
 * `a` (a crafted tree, a race) is given by a wrapper of the real `workTreeDelta`; the task's own parts
 * (tests/, solution/) come from the family's hook, here wrapped to add hostile entries.
 */

const SECRET = "canary-secret-7f3a9c";

const hostile: { plant: ((workDir: string) => void) | null; childAfterLink: boolean; tests: Record<string, TaskFile> } = { plant: null, childAfterLink: false, tests: {} };

vi.mock("../../src/git/bundle.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/git/bundle.js")>();
  return {
    ...real,
    async workTreeDelta(repo: Parameters<typeof real.workTreeDelta>[0]) {
      const delta = await real.workTreeDelta(repo);
      if (!hostile.childAfterLink) return delta;
      const changed = delta.changed.flatMap((p) => (p === "a" ? ["a", "a/x"] : [p]));
      return { ...delta, changed };
    },
  };
});

vi.mock("../../src/export/harbor-tasks.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/export/harbor-tasks.js")>();
  return {
    ...real,
    async harborParts(input: Parameters<typeof real.harborParts>[0]) {
      const parts = await real.harborParts(input);
      hostile.plant?.(input.scenario.sandbox.workDir);
      return { ...parts, tests: { ...parts.tests, ...hostile.tests } };
    },
  };
});

let root: ReturnType<typeof useSandboxRoot>;
let swe: PythonTask;
let source: Repo;
let scratch: string;
let outside: string;

/** Every entry below `dir` with its bytes and modification time (a link as its target), to see that nothing there was written. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const p = path.join(e.parentPath, e.name);
    out[path.relative(dir, p)] = e.isSymbolicLink() ? `-> ${readlinkSync(p)}` : e.isFile() ? `${readFileSync(p, "latin1")} @${lstatSync(p).mtimeMs}` : "(dir)";
  }
  return out;
}

/** Links from the sandbox's work tree to the canaries: `a` to the directory, `b` to the file. */
function plantLinks(workDir: string): void {
  symlinkSync(path.join(outside, "dir"), path.join(workDir, "a"));
  symlinkSync(path.join(outside, "secret.txt"), path.join(workDir, "b"));
}

beforeAll(() => {
  root = useSandboxRoot();
  swe = pythonTask();
  scratch = mkdtempSync(path.join(os.tmpdir(), "gitgood-harbor-door-"));
  outside = path.join(scratch, "outside");
  mkdirSync(path.join(outside, "dir"), { recursive: true });
  writeFileSync(path.join(outside, "dir", "x"), `${SECRET} in dir/x\n`);
  writeFileSync(path.join(outside, "secret.txt"), `${SECRET} in secret.txt\n`);
});

beforeEach(async () => {
  source ??= await Repo.open(swe.fixture.dir);
  hostile.plant = null;
  hostile.childAfterLink = false;
  hostile.tests = {};
});

afterAll(() => {
  swe?.fixture.remove();
  root?.cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

describe("export harbor: the path door", () => {
  it("copies the work tree's links to outside as links: nothing outside is read or written", async () => {
    const before = snapshot(outside);
    hostile.plant = plantLinks;
    const out = path.join(scratch, "plain");
    const task = (await exportHarborTask(swe.sample(), SWE, source, { out, version: "test" })).dir!;
    const work = path.join(task, "environment", "start", "work");
    expect(lstatSync(path.join(work, "a")).isSymbolicLink()).toBe(true);
    expect(readlinkSync(path.join(work, "b"))).toBe(path.join(outside, "secret.txt"));
    expect(allBytes(task)).not.toContain(SECRET);
    expect(snapshot(outside)).toEqual(before);
  });

  it("refuses a work-tree file below a link (a -> outside, then a/x): the canary is neither read nor overwritten", async () => {
    const before = snapshot(outside);
    hostile.plant = plantLinks;
    hostile.childAfterLink = true;
    const out = path.join(scratch, "child");
    const err = (await exportHarborTask(swe.sample(), SWE, source, { out, version: "test" }).catch((e: unknown) => e)) as Error & { code?: string };
    expect(snapshot(outside)).toEqual(before);
    expect(err.code).toBe("SYMLINK_REFUSED");
    expect(err.message).toMatch(/a\/x/);
    // Nothing is left of the refused task, and nothing of it holds the secret.
    expect(readdirSync(out)).toEqual([]);
  });

  it("refuses a task file below a link the task's own parts wrote (tests/a -> outside, then tests/a/x)", async () => {
    const before = snapshot(outside);
    hostile.tests = { a: { link: path.join(outside, "dir") }, "a/x": { data: "overwritten\n" }, b: { link: path.join(outside, "secret.txt") } };
    const out = path.join(scratch, "parts");
    const err = (await exportHarborTask(swe.sample(), SWE, source, { out, version: "test" }).catch((e: unknown) => e)) as Error & { code?: string };
    expect(snapshot(outside)).toEqual(before);
    expect(err.code).toBe("SYMLINK_REFUSED");
    expect(existsSync(path.join(outside, "dir", "x")) && readFileSync(path.join(outside, "dir", "x"), "utf8")).toBe(`${SECRET} in dir/x\n`);
    expect(readdirSync(out)).toEqual([]);
  });
});
