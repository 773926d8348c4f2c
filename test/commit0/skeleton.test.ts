import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readDataset } from "../../src/dataset/importer.js";
// The families' dataset readers (SWE-bench and commit0 instances) are registered by the family registry.
import "../../src/families/registry.js";
import type { RepoCompletionSample } from "../../src/dataset/sample.js";
import { gitgood } from "../helpers/cli.js";
import { COUNTED, libraryRepository } from "../helpers/commit0.js";
import { useCacheDir } from "../helpers/envs.js";
import type { Fixture } from "../helpers/fixture.js";
import { useSandboxRoot } from "../helpers/scenarios.js";

let root: ReturnType<typeof useSandboxRoot>;
let cache: ReturnType<typeof useCacheDir>;
let fixture: Fixture;
let reference: string;
let task: RepoCompletionSample;
let stderr: string;
/** What the user's repository looked like before `gitgood skeleton`: refs, HEAD, index bytes, status, work tree. */
let before: ReturnType<typeof snapshot>;

function snapshot(f: Fixture) {
  const hash = (p: string) => createHash("sha256").update(readFileSync(p)).digest("hex");
  return {
    refs: f.git("for-each-ref", "--format=%(refname) %(objectname)").split("\n").filter((l) => !l.startsWith("refs/gitgood/")),
    head: f.git("symbolic-ref", "HEAD"),
    headCommit: f.git("rev-parse", "HEAD"),
    index: hash(path.join(f.dir, ".git", "index")),
    status: f.git("status", "--porcelain=v1", "--untracked-files=all"),
    diff: f.git("diff"),
    staged: f.git("diff", "--cached"),
    units: readFileSync(path.join(f.dir, "shapes/units.py"), "utf8"),
  };
}

/** Python's own ast: the functions of a module whose body is only `pass` (after an optional docstring). */
function astStubs(source: string): string[] {
  const script = [
    "import ast, json, sys",
    "out = []",
    "def walk(node, prefix):",
    "    for c in ast.iter_child_nodes(node):",
    "        if isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef)):",
    "            body = c.body[1:] if c.body and isinstance(c.body[0], ast.Expr) and isinstance(c.body[0].value, ast.Constant) else c.body",
    "            if len(body) == 1 and isinstance(body[0], ast.Pass): out.append(prefix + c.name)",
    "        elif isinstance(c, ast.ClassDef): walk(c, prefix + c.name + '.')",
    "        else: walk(c, prefix)",
    "walk(ast.parse(sys.stdin.read()), '')",
    "print(json.dumps(out))",
  ].join("\n");
  return JSON.parse(execFileSync("python3", ["-c", script], { input: source, encoding: "utf8" })) as string[];
}

beforeAll(async () => {
  root = useSandboxRoot();
  cache = useCacheDir();
  ({ fixture, reference } = libraryRepository());
  // The user has work in progress: a staged change and an unstaged one must survive untouched.
  writeFileSync(path.join(fixture.dir, "README.md"), "shapes, staged\n");
  fixture.git("add", "README.md");
  writeFileSync(path.join(fixture.dir, "shapes/units.py"), `${readFileSync(path.join(fixture.dir, "shapes/units.py"), "utf8")}# local note\n`);
  before = snapshot(fixture);
  const out = path.join(fixture.scratch("out"), "task.jsonl");
  const r = await gitgood(["skeleton", fixture.dir, "--src", "shapes", "-o", out], { env: { GITGOOD_CACHE_DIR: cache.dir } });
  expect(r.stderr).toContain("reference: 11 of 12 test(s) pass");
  expect(r.code).toBe(0);
  stderr = r.stderr;
  task = (await readDataset([out])).samples[0] as RepoCompletionSample;
}, 180_000);

afterAll(() => {
  fixture?.remove();
  root.cleanup();
  cache.cleanup();
});

describe("gitgood skeleton", () => {
  it("writes a repo_completion task in commit0's layout with the tests passing at the reference as the counted tests", () => {
    expect(task).toMatchObject({
      id: `acme_shapes_repo_completion_${reference.slice(0, 8)}`,
      name: "acme/shapes",
      sample_type: "repo_completion",
      programming_language: "Python",
      difficulty: "easy",
      scenario: {
        instance_id: `acme_shapes_repo_completion_${reference.slice(0, 8)}`,
        repo: "acme/shapes",
        reference_commit: reference,
        src_dir: "shapes",
        test: { test_cmd: "pytest", test_dir: "tests" },
        tests: COUNTED,
      },
    });
    expect(task.scenario.tests).not.toContain("tests/test_area.py::test_known_bug");
  });

  it("stubs every function body under --src as Python's ast sees it, leaving __init__, __main__ and long files whole", () => {
    const base = task.scenario.base_commit;
    expect(fixture.git("rev-parse", `refs/gitgood/skeletons/${task.id}`)).toBe(base);
    expect(fixture.git("rev-parse", `${base}^`)).toBe(reference);
    expect(fixture.git("diff", "--name-only", reference, base).split("\n")).toEqual(["shapes/area.py", "shapes/convert.py", "shapes/units.py", "shapes/vectors.py"]);
    const show = (file: string) => fixture.git("show", `${base}:${file}`);
    expect(astStubs(show("shapes/vectors.py"))).toEqual(["Vector.__init__", "Vector.add", "Vector.scale", "Vector.length"]);
    expect(astStubs(show("shapes/units.py"))).toEqual(["to_cm", "from_cm"]);
    expect(astStubs(show("shapes/area.py"))).toEqual(["rect_area", "polygon_area"]);
    expect(show("shapes/units.py")).toContain('CM_PER = {"cm": 1.0, "m": 100.0, "in": 2.54}');
    expect(show("shapes/units.py")).toContain('    """Converts a length in `unit` to centimetres."""\n    pass\n');
    expect(stderr).toContain("kept shapes/__init__.py (__init__)");
    expect(stderr).toContain("kept shapes/__main__.py (__main__)");
    expect(stderr).toContain("kept shapes/table.py (too long)");
    expect(stderr).toContain("10 function(s) stubbed in 4 file(s)");
  });

  it("never touches the user's branches, HEAD, index or work tree: only a gitgood ref and objects are added", () => {
    expect(snapshot(fixture)).toEqual(before);
    expect(fixture.git("for-each-ref", "--format=%(refname)", "refs/gitgood/")).toBe(`refs/gitgood/skeletons/${task.id}`);
  });

  it("refuses bad input with one line and a non-zero exit", async () => {
    const missing = await gitgood(["skeleton", fixture.dir, "--src", "nowhere"]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr.trim().split("\n")).toEqual([expect.stringContaining("has no directory nowhere")]);
    const outside = await gitgood(["skeleton", fixture.dir, "--src", "../etc"]);
    expect(outside.stderr.trim().split("\n")).toEqual([expect.stringContaining("must be a directory inside the repository")]);
    const nothing = await gitgood(["skeleton", fixture.dir, "--src", "tests"]);
    expect(nothing.code).toBe(1);
    expect(nothing.stderr.trim().split("\n")).toEqual([expect.stringContaining("no function body to stub")]);
    const notRepo = await gitgood(["skeleton", fixture.scratch("empty"), "--src", "x"]);
    expect(notRepo.code).toBe(1);
    expect(notRepo.stderr.trim().split("\n")).toHaveLength(1);
    expect(snapshot(fixture)).toEqual(before);
  });
});
