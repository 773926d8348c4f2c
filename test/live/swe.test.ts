import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sample } from "../../src/dataset/sample.js";
import { isGitGoodError } from "../../src/errors.js";
import { buildRelease } from "../../src/live/build.js";
import { canaryToken } from "../../src/live/canary.js";
import { readPins } from "../../src/live/pins.js";
import { treeDigests } from "../helpers/digests.js";
import { tempDirs } from "../helpers/runs.js";
import { FLAKY_POWER_TEST, pythonTask, type PythonTask } from "../helpers/swe.js";

/*
 * A release with SWE tasks, from a Python project built in code with dated commits (a commit a minute):
 * the calc package, a fix of `sub` with its tests (a SWE task), a later commit without tests, and a
 * feature whose only test alternates on a counter file it keeps in the work tree (the flake gate's drop:
 * deterministic, never timing). The project is pinned twice: with an env_spec (SWE tasks) and without.
 */

let task: PythonTask;
let dirs: ReturnType<typeof tempDirs>;
let head: string;
let since: number;
let pinsDir: string;
let flaky: string;



/** A pins file in `pinsDir`: the project as acme/pycalc with `spec` as its env_spec (a file there), and as acme/history without one. */
function writePins(name: string, spec: string): string {
  writeFileSync(path.join(pinsDir, `${name}-env.yaml`), spec);
  const file = path.join(pinsDir, `${name}.yaml`);
  const repo = JSON.stringify(task.fixture.dir);
  writeFileSync(
    file,
    [
      "repositories:",
      `  - name: acme/pycalc`,
      `    commit: ${head}`,
      `    path: ${repo}`,
      `    env_spec: ${name}-env.yaml`,
      `  - name: acme/history`,
      `    commit: ${head}`,
      `    path: ${repo}`,
      "",
    ].join("\n"),
  );
  return file;
}

const SPEC = "envs:\n  acme/pycalc:\n    kind: python\n";

const build = (pins: string, out: string) =>
  buildRelease({ pins: readPins(pins), window: { since, until: null }, out, clone: false, cacheDir: `${dirs.out}-clones`, jobs: 2 });

beforeAll(() => {
  dirs = tempDirs();
  task = pythonTask();
  const withPower = `${readFileSync(path.join(task.fixture.dir, "calc/__init__.py"), "utf8")}\n\ndef power(a, b):\n    return a ** b\n`;
  flaky = task.fixture.commit("Add power", { "calc/__init__.py": withPower, "tests/test_power.py": FLAKY_POWER_TEST, ".gitignore": ".runs\n" });
  head = task.fixture.git("rev-parse", "HEAD");
  since = Number(task.fixture.git("log", "-1", "--format=%ct", task.base));
  pinsDir = task.fixture.scratch("pins");
});
afterAll(() => {
  dirs.cleanup();
  task.fixture.remove();
});

interface Manifest {
  repositories: { name: string; types: string[]; mined: Record<string, number>; kept: Record<string, number>; test_judged: Record<string, unknown> }[];
  gate: { test_judged: Record<string, { rule: string; runs: number }> };
  canary: { reached: number };
}

describe("a pin's env_spec and types", () => {
  const pinsWith = (lines: string[]): string => {
    const file = path.join(pinsDir, "one.yaml");
    writeFileSync(file, ["repositories:", "  - name: acme/pycalc", `    commit: ${head}`, ...lines.map((l) => `    ${l}`), ""].join("\n"));
    return file;
  };
  const refusal = (lines: string[]): string => {
    try {
      readPins(pinsWith(lines));
      return "accepted";
    } catch (err) {
      return isGitGoodError(err) ? `${err.code}: ${err.message}` : String(err);
    }
  };

  it("takes a spec inline, as an env spec file holds it under the repository's name, and then mines every type", () => {
    const [pin] = readPins(pinsWith(["env_spec:", "  kind: python", "  test: python -m pytest -rA"])).repositories;
    expect(pin).toMatchObject({ types: ["merge", "file_commit_chain", "swe"], envSource: "inline", env: { "*": { kind: "python", test: "python -m pytest -rA" } } });
    expect(readPins(pinsWith([])).repositories[0]?.types).toEqual(["merge", "file_commit_chain"]);
    expect(readPins(pinsWith(["env_spec: { kind: python }", "types: [swe]"])).repositories[0]?.types).toEqual(["swe"]);
  });

  it("refuses in one line swe without an env_spec, an unknown type, a spec file that is missing or names another repository", () => {
    expect(refusal(["types: [swe]"])).toMatch(/^BAD_PINS: .*acme\/pycalc asks for swe tasks but has no env_spec/);
    expect(refusal(["types: [merges]"])).toMatch(/^BAD_PINS: .*'merges' is not one of merge, file_commit_chain, swe/);
    expect(refusal(["env_spec: missing.yaml"])).toMatch(/^BAD_PINS: .*env_spec: .*no such file/);
    writeFileSync(path.join(pinsDir, "other.yaml"), "envs:\n  acme/other:\n    kind: python\n");
    expect(refusal(["env_spec: other.yaml"])).toMatch(/^BAD_PINS: .*has no spec for acme\/pycalc/);
    expect(refusal(["env_spec: { kind: ruby }"])).toMatch(/^BAD_PINS: .*env_spec/);
    for (const r of [refusal(["types: [swe]"]), refusal(["env_spec: missing.yaml"])]) expect(r).not.toContain("\n");
  });
});

describe("gitgood live build with SWE tasks", () => {
  it("mines SWE tasks for the pin with an env_spec, drops the flaky one in validation, gates the rest, and says why the other pin has none", async () => {
    const out = `${dirs.out}-a`;
    const summary = await build(writePins("pins", SPEC), out);
    expect(summary.canary.reached).toBe(0);
    // The evaluation and validation sandboxes were looked in too.
    expect(summary.canary.test_sandboxes).toBeGreaterThan(0);
    const samples = readFileSync(path.join(out, "samples.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as Sample);
    const swe = samples.filter((s) => s.sample_type === "swe");
    expect(swe.map((s) => s.id)).toEqual([`acme__pycalc-${task.fix.slice(0, 12)}`]);
    const sc = swe[0]?.scenario as { created_at: string; base_commit: string; FAIL_TO_PASS: string[] };
    // Dated by the fix commit's committer date, as `mine --type swe` dates it.
    expect(sc.created_at).toBe(new Date(Number(task.fixture.git("log", "-1", "--format=%ct", task.fix)) * 1000).toISOString().replace(".000Z", "Z"));
    expect(sc).toMatchObject({ base_commit: task.base, FAIL_TO_PASS: ["tests/test_sub.py::test_sub", "tests/test_sub.py::test_sub_negative"] });
    const manifest = JSON.parse(readFileSync(path.join(out, "manifest.json"), "utf8")) as Manifest;
    const [history, pycalc] = manifest.repositories;
    expect(pycalc).toMatchObject({
      name: "acme/pycalc",
      types: ["merge", "file_commit_chain", "swe"],
      mined: { swe: 1 },
      kept: { swe: 1 },
      test_judged: { swe: { mined: true, env_spec: "pins-env.yaml", instances: 1, dropped: { flaky: 1 } } },
    });
    expect(history).toMatchObject({ name: "acme/history", types: ["merge", "file_commit_chain"], mined: { swe: 0 }, test_judged: { swe: { mined: false, why: expect.stringContaining("no env_spec") } } });
    expect(manifest.gate.test_judged["swe"]).toMatchObject({ runs: 3, rule: expect.stringContaining("flaky") });
    expect(samples.some((s) => s.name === "acme/history" && s.sample_type === "swe")).toBe(false);
    expect(JSON.stringify(samples)).not.toContain(flaky.slice(0, 12));
  }, 600_000);

  it("writes the same bytes on a second build", async () => {
    const out = `${dirs.out}-b`;
    await build(writePins("pins", SPEC), out);
    expect(treeDigests(out)).toEqual(treeDigests(`${dirs.out}-a`));
  }, 600_000);

  it("stops, writing nothing, when the canary reaches the sandboxes SWE validation and evaluation test in", async () => {
    // An environment that brings the future into the work tree before every test run (as a set-up
    // fetching the project's newest branch would): only the test sandboxes ever hold it.
    const token = canaryToken("acme/pycalc", head, { since, until: null });
    const pins = writePins("leaky", `${SPEC}    before-tests: ["echo ${token} > FUTURE.txt"]\n`);
    const out = `${dirs.out}-leaky`;
    const err = await build(pins, out).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isGitGoodError(err) && err.code).toBe("CANARY_REACHED");
    const hits = (isGitGoodError(err) ? (err.data.hits as { where: string }[]) : []).map((h) => h.where);
    expect(hits.some((w) => w.startsWith("validation sandbox of acme__pycalc-"))).toBe(true);
    expect(hits.some((w) => w.startsWith("evaluation sandbox of acme__pycalc-"))).toBe(true);
    expect(() => readdirSync(out)).toThrow();
  }, 600_000);
});
