import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveEnvSpec } from "../../src/testenv/defaults.js";
import { prepareEnvironment } from "../../src/testenv/prepare.js";
import { runTests } from "../../src/testenv/run-tests.js";
import { userSpecFor } from "../../src/testenv/spec-file.js";
import type { EnvSpec } from "../../src/testenv/types.js";
import { GitGoodError } from "../../src/errors.js";
import { bwrapUnavailable } from "../../src/sandbox/isolation.js";
import { projectSandbox, useCacheDir } from "../helpers/envs.js";
import { useSandboxRoot } from "../helpers/scenarios.js";

const noBwrap = bwrapUnavailable();

let root: ReturnType<typeof useSandboxRoot>;
let cache: ReturnType<typeof useCacheDir>;
let outside: string;
let project: Awaited<ReturnType<typeof projectSandbox>>;

beforeAll(async () => {
  root = useSandboxRoot();
  cache = useCacheDir();
  outside = mkdtempSync(path.join(os.tmpdir(), "gitgood-build-canary-"));
  writeFileSync(path.join(outside, "canary.txt"), "untouched\n");
  project = await projectSandbox({ "Makefile": "check:\n\ttrue\n" });
});

afterAll(() => {
  project?.cleanup();
  root.cleanup();
  cache.cleanup();
  rmSync(outside, { recursive: true, force: true });
});

function custom(setup: string[]): EnvSpec {
  const user = { source: "test", repos: { "*": { "*": { kind: "custom" as const, test: "make check", setup } } } };
  expect(userSpecFor(user, "acme/x", null)).not.toBeNull();
  return resolveEnvSpec({ repo: "acme/x", version: null }, project.sandbox.workDir, user);
}

describe("building an environment", () => {
  it("a failing set-up command is ENV_BUILD_FAILED with the end of its output, and leaves nothing in the cache", async () => {
    const spec = custom(['echo "step one"; echo "the error line" >&2; exit 3']);
    const err = await prepareEnvironment({ sandbox: project.sandbox, target: { repo: "acme/fails", version: "1" }, spec, cacheDir: cache.dir, timeoutSeconds: 60 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GitGoodError);
    const e = err as GitGoodError;
    expect(e.code).toBe("ENV_BUILD_FAILED");
    expect(e.message).toMatch(/^environment set-up for acme\/fails: .* exited with code 3: the error line$/);
    expect(e.message).not.toMatch(/network: true/);
    expect(e.data.log_tail).toMatch(/step one\n.*the error line|the error line\n.*step one/s);
    expect(readdirSync(path.join(cache.dir, "envs")).filter((n) => n.startsWith("acme_fails"))).toEqual([]);
  });

  it("an install that fails offline keeps npm's error lines, not its last line, and hints at `network: true`", async () => {
    // A stand-in for `npm ci` without the network: its errors, then the line naming its log file.
    const npm = [
      "npm ERR! code ENOTFOUND",
      "npm ERR! syscall getaddrinfo",
      "npm ERR! network request to https://registry.npmjs.org/left-pad failed, reason: getaddrinfo ENOTFOUND registry.npmjs.org",
      "npm ERR! network This is a problem related to network connectivity.",
      "",
      "npm ERR! A complete log of this run can be found in: /root/.npm/_logs/debug-0.log",
    ];
    const spec = custom([`echo "added nothing"; printf '%s\\n' ${npm.map((l) => `'${l}'`).join(" ")} >&2; exit 1`]);
    const err = (await prepareEnvironment({ sandbox: project.sandbox, target: { repo: "acme/offline", version: "1" }, spec, cacheDir: cache.dir, timeoutSeconds: 60 }).catch((e: unknown) => e)) as GitGoodError;
    expect(err.code).toBe("ENV_BUILD_FAILED");
    expect(err.message.split("\n")).toHaveLength(1);
    expect(err.message).toContain("exited with code 1: npm ERR! code ENOTFOUND | npm ERR! syscall getaddrinfo | npm ERR! network request to https://registry.npmjs.org/left-pad failed");
    const detail = err.message.slice(err.message.indexOf("exited with code 1: "));
    expect(detail).not.toContain("added nothing");
    expect(err.message).toMatch(/\(hint: the set-up ran without the network; .*`network: true`.*--env-spec\)$/);
  });

  it("a pip install that finds no distribution offline keeps pip's cause and says a local index or `network: true` is missing", async () => {
    // A stand-in for `pip install` without the network and without a local index.
    const pip = ["Collecting tinydb-extra", "ERROR: Could not find a version that satisfies the requirement tinydb-extra (from versions: none)", "ERROR: No matching distribution found for tinydb-extra"];
    const spec = custom([`printf '%s\\n' ${pip.map((l) => `'${l}'`).join(" ")} >&2; exit 1`]);
    const err = (await prepareEnvironment({ sandbox: project.sandbox, target: { repo: "msiemens/tinydb", version: "1" }, spec, cacheDir: cache.dir, timeoutSeconds: 60 }).catch((e: unknown) => e)) as GitGoodError;
    expect(err.code).toBe("ENV_BUILD_FAILED");
    expect(err.message).toContain("No matching distribution found for tinydb-extra");
    expect(err.message).toMatch(/\(hint: the set-up ran without the network; .*PIP_INDEX_URL.*`network: true`.*--env-spec\)$/);
  });

  it("a set-up that runs out of time is killed and fails the same way", async () => {
    const spec = { ...custom(["sleep 120"]), setupTimeout: 1 };
    const err = (await prepareEnvironment({ sandbox: project.sandbox, target: { repo: "acme/slow", version: "1" }, spec, cacheDir: cache.dir, timeoutSeconds: 60 }).catch((e: unknown) => e)) as GitGoodError;
    expect(err.code).toBe("ENV_BUILD_FAILED");
    expect(err.message).toMatch(/ran out of the set-up time \(1s\)/);
  });

  it("two builds of the same environment at once: one builds, the other waits and reuses it", async () => {
    const spec = custom(['echo run >> "$GITGOOD_ENV/runs"; sleep 1']);
    const target = { repo: "acme/twice", version: "1" };
    const both = await Promise.all([0, 1].map(() => prepareEnvironment({ sandbox: project.sandbox, target, spec, cacheDir: cache.dir, timeoutSeconds: 60 })));
    expect(both.map((e) => e.reused).sort()).toEqual([false, true]);
    expect(both[0]?.key).toBe(both[1]?.key);
    expect(readFileSync(path.join(both[0]?.envDir as string, "runs"), "utf8")).toBe("run\n");
    expect(readdirSync(path.join(cache.dir, "envs")).filter((n) => n.includes("twice"))).toEqual([both[0]?.key]);
  });

  it("an editable install where the spec asks for one, offline; tests import the sandbox's code, not the build's copy", async () => {
    const lib = await projectSandbox({
      "setup.py": 'from setuptools import setup, find_packages\n\nsetup(name="srcpkg", version="0.1.0", package_dir={"": "src"}, packages=find_packages("src"))\n',
      "src/srcpkg/__init__.py": "ANSWER = 1\n",
      "tests/test_answer.py": "import srcpkg\n\n\ndef test_answer():\n    assert srcpkg.ANSWER == 2\n",
    });
    try {
      const target = { repo: "acme/srcpkg", version: null };
      const spec = { ...resolveEnvSpec(target, lib.sandbox.workDir), editable: true };
      expect(spec.pythonPath).toEqual([".", "src"]);
      const env = await prepareEnvironment({ sandbox: lib.sandbox, target, spec, cacheDir: cache.dir, timeoutSeconds: 300 });
      const site = readdirSync(path.join(env.envDir, "venv", "lib")).map((v) => path.join(env.envDir, "venv", "lib", v, "site-packages"));
      expect(site.flatMap((d) => readdirSync(d)).some((n) => /^srcpkg([-.].*)?\.(dist-info|egg-link)$/.test(n))).toBe(true);
      writeFileSync(path.join(lib.sandbox.workDir, "src", "srcpkg", "__init__.py"), "ANSWER = 2\n");
      const run = await runTests(lib.sandbox, env, ["tests/test_answer.py"], { timeoutSeconds: 120 });
      expect(run.outcomes.get("tests/test_answer.py::test_answer")).toBe("passed");
    } finally {
      lib.cleanup();
    }
  }, 240_000);

  it.skipIf(noBwrap)("set-up commands run isolated: they write only the build directory", async () => {
    const canary = path.join(outside, "canary.txt");
    const spec = custom([`echo pwned > ${canary} || true`, `echo pwned > ${path.join(project.sandbox.workDir, "Makefile")} || true`]);
    const env = await prepareEnvironment({ sandbox: project.sandbox, target: { repo: "acme/canary", version: null }, spec, cacheDir: cache.dir, timeoutSeconds: 60 });
    expect(env.reused).toBe(false);
    expect(readFileSync(canary, "utf8")).toBe("untouched\n");
    expect(readFileSync(path.join(project.sandbox.workDir, "Makefile"), "utf8")).toBe("check:\n\ttrue\n");
  });
});
