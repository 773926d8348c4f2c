import { execFileSync } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stubbedFilesInOrder } from "../../src/commit0/order.js";
import { readDataset } from "../../src/dataset/importer.js";
// The families' dataset readers (SWE-bench and commit0 instances) are registered by the family registry.
import "../../src/families/registry.js";
import type { RepoCompletionSample } from "../../src/dataset/sample.js";
import { gitgood } from "../helpers/cli.js";
import { KIT, KIT_COMMIT0_SKELETON, KIT_COUNTED, KIT_ORDER, kitRepository } from "../helpers/commit0-kit.js";
import { useCacheDir } from "../helpers/envs.js";
import type { Fixture } from "../helpers/fixture.js";
import { useSandboxRoot } from "../helpers/scenarios.js";

let root: ReturnType<typeof useSandboxRoot>;
let cache: ReturnType<typeof useCacheDir>;
let fixture: Fixture;

beforeAll(() => {
  root = useSandboxRoot();
  cache = useCacheDir();
  ({ fixture } = kitRepository());
});

afterAll(() => {
  fixture?.remove();
  root.cleanup();
  cache.cleanup();
});

/** A file's bytes at a commit of the fixture (git show would trim them). */
function blob(commit: string, file: string): string {
  return execFileSync("git", ["cat-file", "blob", `${commit}:${file}`], { cwd: fixture.dir, encoding: "utf8" });
}

async function skeleton(style: string): Promise<{ task: RepoCompletionSample; stderr: string }> {
  const out = path.join(fixture.scratch(`out-${style}`), "task.jsonl");
  const r = await gitgood(["skeleton", fixture.dir, "--src", "kit", "--style", style, "--id", `kit-${style}`, "-o", out], { env: { GITGOOD_CACHE_DIR: cache.dir } });
  expect(r.stderr).toContain(`reference: ${KIT_COUNTED} of`);
  expect(r.code).toBe(0);
  return { task: (await readDataset([out])).samples[0] as RepoCompletionSample, stderr: r.stderr };
}

describe("commit0 on a library with closures, decorators, dunders, an import cycle and a broken file", () => {
  it("counts the tests of the files that import although one test file fails to (--continue-on-collection-errors)", async () => {
    const { task } = await skeleton("gitgood");
    expect(task.scenario.tests).toHaveLength(KIT_COUNTED);
    expect(task.scenario.tests.some((t) => t.startsWith("tests/test_legacy.py"))).toBe(false);
    const base = task.scenario.base_commit;
    const files = fixture.git("ls-tree", "-r", "--name-only", base).split("\n");
    const order = await stubbedFilesInOrder(files, "kit", (f) => blob(base, f));
    expect(order.map((o) => o.file)).toEqual(KIT_ORDER);
    // gitgood's rule: every body stubbed, comments and formatting kept.
    expect(blob(base, "kit/memo.py")).toContain("def _twice(x):\n    # no docstring: commit0's skeleton deletes this function\n    pass\n");
  }, 240_000);

  it("--style commit0 makes commit0's published skeleton: dunder bodies kept, undocumented functions deleted, ast.unparse", async () => {
    const { task, stderr } = await skeleton("commit0");
    const base = task.scenario.base_commit;
    for (const [file, text] of Object.entries(KIT_COMMIT0_SKELETON)) expect(blob(base, file)).toBe(text);
    expect(blob(base, "kit/legacy.py")).toBe(KIT["kit/legacy.py"]);
    expect(blob(base, "kit/__init__.py")).toBe(KIT["kit/__init__.py"]);
    expect(stderr).toMatch(/10 function\(s\) stubbed in 3 file\(s\), 2 deleted/);
    expect(stderr).toContain("kept kit/legacy.py (does not parse)");
  }, 240_000);

  it("refuses an unknown --style in one line", async () => {
    const r = await gitgood(["skeleton", fixture.dir, "--src", "kit", "--style", "pretty"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain("--style pretty: expected one of gitgood, commit0");
  });
});
