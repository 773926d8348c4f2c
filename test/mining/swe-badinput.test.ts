import { rmSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mineSwe } from "../../src/swe/mine/mine.js";
import { useCacheDir } from "../helpers/envs.js";
import { Fixture, useFixtures } from "../helpers/fixture.js";
import { useSandboxRoot } from "../helpers/scenarios.js";
import { CALC_BASE } from "../helpers/swe.js";

const fixture = useFixtures();
let root: ReturnType<typeof useSandboxRoot>;
let cache: ReturnType<typeof useCacheDir>;

beforeAll(() => {
  root = useSandboxRoot();
  cache = useCacheDir();
});

afterAll(() => {
  root?.cleanup();
  cache?.cleanup();
});

const FIXED = CALC_BASE.replace("def sub(a, b):\n    return a + b", "def sub(a, b):\n    return a - b");
const TEST_SUB = "from calc import sub\n\n\ndef test_sub():\n    assert sub(3, 1) == 2\n";

/** A Python library with two fixes, each with its test. */
function twoFixes(f: Fixture): string[] {
  f.commit("calc", { "pyproject.toml": '[project]\nname = "calc"\n', "calc/__init__.py": CALC_BASE });
  const one = f.commit("Fix sub", { "calc/__init__.py": FIXED, "tests/test_sub.py": TEST_SUB });
  const two = f.commit("Add neg", {
    "calc/__init__.py": `${FIXED}\n\ndef neg(a):\n    return -a\n`,
    "tests/test_neg.py": "from calc import neg\n\n\ndef test_neg():\n    assert neg(2) == -2\n",
  });
  return [one, two];
}

const swe = () => ({ cacheDir: cache.dir, testTimeoutSeconds: 60, setupTimeoutSeconds: 60 });

describe("mine --type swe on bad input: counted in the funnel, never a crash", () => {
  it("a repository without tests gives no instance, every change counted as no_tests", async () => {
    const f = fixture();
    f.commit("a", { "pkg/a.py": "A = 1\n" });
    f.commit("b", { "pkg/a.py": "A = 2\n", "README.md": "r\n" });
    f.commit("c", { "pkg/b.py": "B = 1\n" });
    const r = await mineSwe({ repoPath: f.dir, name: "acme/none", runs: 1, jobs: 1, swe: swe() });
    expect(r.instances).toEqual([]);
    expect(r.summary).toMatchObject({ candidates: 0, dropped: { no_tests: 2 } });
  });

  it("a project nothing says how to test is no_environment", async () => {
    const f = fixture();
    f.commit("lib", { "lib/a.js": "exports.a = () => 1;\n" });
    const fix = f.commit("Fix a", { "lib/a.js": "exports.a = () => 2;\n", "test/a.test.js": "require('node:test')('a', () => {});\n" });
    const r = await mineSwe({ repoPath: f.dir, name: "acme/bare", runs: 1, jobs: 1, swe: swe() });
    expect(r.instances).toEqual([]);
    expect(r.rejects.find((x) => x.commit === fix)).toMatchObject({ reason: "no_environment" });
    expect(r.rejects.find((x) => x.commit === fix)?.detail).toMatch(/no test command for acme\/bare/);
  }, 60_000);

  it("a change whose objects are missing is missing_objects; the others are still mined", async () => {
    const f = fixture();
    const [one, two] = twoFixes(f);
    // The library before the first fix: only that change reads it.
    const blob = f.git("rev-parse", `${one}~1:calc/__init__.py`);
    rmSync(path.join(f.dir, ".git", "objects", blob.slice(0, 2), blob.slice(2)));
    const r = await mineSwe({ repoPath: f.dir, name: "acme/damaged", runs: 1, jobs: 1, swe: swe() });
    expect(r.rejects.find((x) => x.commit === one)).toMatchObject({ reason: "missing_objects" });
    expect(r.instances.map((m) => m.commit), JSON.stringify(r.rejects)).toEqual([two]);
  }, 120_000);

  it("an environment that hangs is a timeout, waited for once per version", async () => {
    const f = fixture();
    const commits = twoFixes(f);
    const envSpecs = { source: "test", repos: { "acme/hang": { "*": { setup: ["sleep 300"] } } } };
    const r = await mineSwe({ repoPath: f.dir, name: "acme/hang", runs: 1, jobs: 1, swe: { ...swe(), setupTimeoutSeconds: 5, envSpecs } });
    expect(r.instances).toEqual([]);
    const rejects = commits.map((c) => r.rejects.find((x) => x.commit === c));
    expect(rejects.map((x) => x?.reason)).toEqual(["timeout", "timeout"]);
    // The first waited the set-up time out; the second, of the same version, took its verdict without a build.
    expect(rejects.filter((x) => /not built again/.test(x?.detail ?? ""))).toHaveLength(1);
  }, 120_000);
});
