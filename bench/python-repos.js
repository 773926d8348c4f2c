// The Python repositories the SWE and commit0 benches build in code: deterministic commits (fixed author,
// committer and dates), each with a pytest suite.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/** The environment every git of the benches runs with: no configuration of the machine's, fixed identities. */
export const gitEnv = {
  ...process.env,
  LC_ALL: "C",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: os.devNull,
  GIT_AUTHOR_NAME: "Bench",
  GIT_AUTHOR_EMAIL: "bench@example.com",
  GIT_COMMITTER_NAME: "Bench",
  GIT_COMMITTER_EMAIL: "bench@example.com",
};
let tick = 0;

/** Runs git in `cwd`, each call a minute after the last (commits get distinct, fixed dates); its output without the final newline. */
export function git(cwd, args) {
  tick++;
  const date = `${1_700_000_000 + tick * 60} +0000`;
  return execFileSync("git", args, { cwd, env: { ...gitEnv, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date }, encoding: "utf8" }).trimEnd();
}

/** Writes `files` (path → text) under `dir`, making directories. */
export function writeFiles(dir, files) {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
}

function commitAll(dir, message) {
  git(dir, ["add", "-A"]);
  git(dir, ["commit", "-q", "-m", message]);
  return git(dir, ["rev-parse", "HEAD"]);
}

const fn = (i, op) => `def f${i}(a, b):\n    return a ${op} b\n`;

/**
 * A package of `count` functions that add where they must subtract, and its SWE instances: instance i fixes
 * f{i} and adds the test deciding it (its test_patch), as SWE-bench instances are made. Returns the samples
 * (gitgood's JSONL shape), each with `fix` (the fixing commit) and `test` (its test file) beside.
 */
export function buildSweRepo(dir, count) {
  mkdirSync(dir, { recursive: true });
  git(dir, ["init", "-q", "-b", "main", dir]);
  const module = (fixed) => Array.from({ length: count }, (_, i) => fn(i, fixed.has(i) ? "-" : "+")).join("\n\n");
  const p2p = "from pkg import f0\n\n\ndef test_import():\n    assert callable(f0)\n";
  writeFiles(dir, { "pyproject.toml": '[project]\nname = "pkg"\nversion = "0.1.0"\n', "pkg/__init__.py": module(new Set()), "tests/test_base.py": p2p });
  commitAll(dir, "base");
  const samples = [];
  const fixed = new Set();
  for (let i = 0; i < count; i++) {
    const base = git(dir, ["rev-parse", "HEAD"]);
    fixed.add(i);
    const test = `tests/test_f${i}.py`;
    writeFiles(dir, { "pkg/__init__.py": module(fixed), [test]: `from pkg import f${i}\n\n\ndef test_f${i}():\n    assert f${i}(3, 1) == 2\n` });
    const fix = commitAll(dir, `fix f${i}`);
    const scenario = {
      instance_id: `bench__pkg-${i}`,
      repo: "bench/pkg",
      base_commit: base,
      patch: `${git(dir, ["diff", base, fix, "--", "pkg"])}\n`,
      test_patch: `${git(dir, ["diff", base, fix, "--", "tests"])}\n`,
      problem_statement: `f${i} adds`,
      hints_text: "",
      created_at: null,
      version: "0.1",
      environment_setup_commit: null,
      FAIL_TO_PASS: [`${test}::test_f${i}`],
      PASS_TO_PASS: ["tests/test_base.py::test_import"],
    };
    samples.push({
      id: scenario.instance_id,
      name: scenario.repo,
      default_branch: null,
      license: null,
      stargazers: null,
      created_at: null,
      topics: null,
      programming_language: "Python",
      project_size: null,
      difficulty: "easy",
      sample_type: "swe",
      scenario,
      fix,
      test,
    });
  }
  return samples;
}

/** Module k of the completion library: three functions with docstrings, the third calling the first two. */
function completionModule(k) {
  const bodies = {
    [`scale${k}`]: `return x * ${k + 2}`,
    [`shift${k}`]: `return x + ${k + 1}`,
    [`both${k}`]: `return shift${k}(scale${k}(x))`,
  };
  const text = Object.entries(bodies)
    .map(([name, body]) => `def ${name}(x):\n    """${name} of x."""\n    ${body}\n`)
    .join("\n\n");
  const test = [
    `from lib.m${k} import both${k}, scale${k}, shift${k}`,
    "",
    "",
    `def test_scale${k}():\n    assert scale${k}(3) == ${3 * (k + 2)}`,
    "",
    "",
    `def test_shift${k}():\n    assert shift${k}(3) == ${3 + k + 1}`,
    "",
    "",
    `def test_both${k}():\n    assert both${k}(3) == ${3 * (k + 2) + k + 1}`,
    "",
  ].join("\n");
  return { file: `lib/m${k}.py`, text, bodies, test: [`tests/test_m${k}.py`, test] };
}

/**
 * A library for repository completion that grows by one module per commit: commit k holds modules
 * m0..mk and their tests. Returns, per commit, the reference (its id) and the function bodies a
 * completion must write there ({file: {function: body}}); `gitgood skeleton --ref` makes the tasks.
 */
export function buildCompletionRepo(dir, count) {
  mkdirSync(dir, { recursive: true });
  git(dir, ["init", "-q", "-b", "main", dir]);
  git(dir, ["remote", "add", "origin", "https://github.com/bench/lib.git"]);
  writeFiles(dir, { "pyproject.toml": '[project]\nname = "lib"\nversion = "0.1.0"\n', "lib/__init__.py": '"""A library to complete."""\n' });
  commitAll(dir, "start lib");
  const references = [];
  const bodies = {};
  for (let k = 0; k < count; k++) {
    const m = completionModule(k);
    bodies[m.file] = m.bodies;
    writeFiles(dir, { [m.file]: m.text, [m.test[0]]: m.test[1] });
    references.push({ commit: commitAll(dir, `module m${k}`), bodies: { ...bodies } });
  }
  return references;
}
