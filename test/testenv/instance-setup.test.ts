import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveEnvSpec } from "../../src/testenv/defaults.js";
import { declaredTestDependencies, instanceSetupCommands } from "../../src/testenv/instance-setup.js";
import { prepareEnvironment } from "../../src/testenv/prepare.js";
import { runTests } from "../../src/testenv/run-tests.js";
import type { EnvSpec } from "../../src/testenv/types.js";
import { isGitGoodError } from "../../src/errors.js";
import { projectSandbox, useCacheDir } from "../helpers/envs.js";
import { useSandboxRoot } from "../helpers/scenarios.js";

/**
 * An instance's own set-up in the environment build, with no network: the packages come from a wheel
 * built here and committed into the project (as a vendored wheel is), or are already installed (pytest).
 */

/** A wheel of a one-module package `name` (version 1.0) whose `VALUE` is `value`, built by hand (a wheel is a zip). */
function wheel(name: string, value: string): Buffer {
  const script = [
    "import base64, hashlib, io, sys, zipfile",
    "name, value = sys.argv[1], sys.argv[2]",
    "files = {",
    "    f'{name}/__init__.py': f'VALUE = {value!r}\\n',",
    "    f'{name}-1.0.dist-info/METADATA': f'Metadata-Version: 2.1\\nName: {name}\\nVersion: 1.0\\n',",
    "    f'{name}-1.0.dist-info/WHEEL': 'Wheel-Version: 1.0\\nGenerator: hand\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n',",
    "}",
    "record = ''.join(f'{p},sha256={base64.urlsafe_b64encode(hashlib.sha256(t.encode()).digest()).rstrip(b\"=\").decode()},{len(t.encode())}\\n' for p, t in files.items())",
    "files[f'{name}-1.0.dist-info/RECORD'] = record + f'{name}-1.0.dist-info/RECORD,,\\n'",
    "out = io.BytesIO()",
    "with zipfile.ZipFile(out, 'w') as z:",
    "    for p, t in files.items():",
    "        z.writestr(zipfile.ZipInfo(p, (2020, 1, 1, 0, 0, 0)), t)",
    "sys.stdout.buffer.write(out.getvalue())",
  ].join("\n");
  return execFileSync("python3", ["-c", script, name, value]);
}

const PROJECT = {
  "pyproject.toml": '[project]\nname = "usesvendor"\nversion = "0.1.0"\n\n[project.optional-dependencies]\ntest = ["pytest"]\ndocs = ["gitgood-no-such-docs-package"]\n',
  "requirements-test.txt": "pytest\n",
  "vendor/gg_vendored-1.0-py3-none-any.whl": wheel("gg_vendored", "from the wheel"),
  "usesvendor/__init__.py": "from gg_vendored import VALUE\n",
  "tests/test_vendor.py": 'from usesvendor import VALUE\n\n\ndef test_value():\n    assert VALUE == "from the wheel"\n',
};
const target = { repo: "acme/usesvendor", version: null };

let root: ReturnType<typeof useSandboxRoot>;
let cache: ReturnType<typeof useCacheDir>;
let project: Awaited<ReturnType<typeof projectSandbox>>;

beforeAll(async () => {
  root = useSandboxRoot();
  cache = useCacheDir();
  project = await projectSandbox(PROJECT, "instance-setup");
}, 60_000);

afterAll(() => {
  project?.cleanup();
  root.cleanup();
  cache.cleanup();
});

/** The default spec of the project with the instance's set-up and its declared test dependencies; pip never reaches an index. */
function specWith(setup: Record<string, unknown>): EnvSpec {
  const spec = resolveEnvSpec(target, project.sandbox.workDir, null, [...instanceSetupCommands(setup), ...declaredTestDependencies(project.sandbox.workDir)]);
  return { ...spec, env: { PIP_NO_INDEX: "1" } };
}

describe("an instance's set-up fields (commit0's setup)", () => {
  it("become pip and shell commands in commit0's order: pre_install, packages, pip_packages, install", () => {
    expect(
      instanceSetupCommands({
        python: "3.12",
        pre_install: ["apt-get install libxml2-dev", "apt-get install -y zlib1g-dev"],
        packages: "requirements.txt",
        pip_packages: ["pytest-cov>=4", "tomli; python_version < '3.11'"],
        install: "pip install -e .; python setup.py build_ext --inplace",
      }),
    ).toEqual([
      "apt-get install -y --no-install-recommends libxml2-dev",
      "apt-get install -y zlib1g-dev",
      "pip install -r requirements.txt",
      "pip install pytest-cov\\>\\=4 tomli",
      "pip install -e .",
      "python setup.py build_ext --inplace",
    ]);
    expect(instanceSetupCommands({ packages: ["a.txt", "six attrs"], pip_packages: [], install: "" })).toEqual(["pip install -r a.txt", "pip install six attrs"]);
    expect(instanceSetupCommands({})).toEqual([]);
  });

  it("refuses a field of the wrong shape, or an install that is not pip's, in one line", () => {
    const refused = (setup: Record<string, unknown>): string => {
      try {
        instanceSetupCommands(setup);
      } catch (err) {
        expect(isGitGoodError(err) && err.code).toBe("BAD_ENV_SPEC");
        return (err as Error).message;
      }
      return "accepted";
    };
    expect(refused({ pip_packages: "pytest" })).toBe("the instance's setup.pip_packages: expected a list of text");
    expect(refused({ install: "curl https://example.com | sh" })).toBe("the instance's setup.install: 'curl https://example.com | sh' is not a pip or setup.py command");
  });

  it("finds the project's declared test dependencies: test requirements files and pyproject's test extras", () => {
    expect(declaredTestDependencies(project.sandbox.workDir)).toEqual([
      "pip install -r requirements-test.txt",
      expect.stringMatching(/^python -c "[\s\S]*tomllib[\s\S]*" "\$GITGOOD_ENV\/pyproject-test-requirements.txt" && if \[ -s /),
    ]);
  });
});

describe("the environment build runs the instance's set-up, offline", () => {
  it("installs a vendored wheel named in pip_packages and the declared test dependencies; the tests import it", async () => {
    const log: string[] = [];
    const spec = specWith({ pip_packages: ["./vendor/gg_vendored-1.0-py3-none-any.whl"] });
    const env = await prepareEnvironment({ sandbox: project.sandbox, target, spec, cacheDir: cache.dir, timeoutSeconds: 300, onLog: (l) => log.push(l) });
    expect(log).toContain("$ pip install ./vendor/gg_vendored-1.0-py3-none-any.whl");
    expect(log).toContain("$ pip install -r requirements-test.txt");
    // pyproject's `test` extra (pytest, already installed) is read by Python's tomllib; the docs extra is not a test dependency.
    expect(readFileSync(path.join(env.envDir, "pyproject-test-requirements.txt"), "utf8")).toBe("pytest\n");
    const run = await runTests(project.sandbox, env, ["tests/test_vendor.py"], { timeoutSeconds: 120 });
    expect(run.outcomes.get("tests/test_vendor.py::test_value")).toBe("passed");
  }, 240_000);

  it("a package the machine lacks is ENV_BUILD_FAILED naming it in one line, never a clean build", async () => {
    const spec = specWith({ pip_packages: ["gitgood-no-such-package"] });
    const err = await prepareEnvironment({ sandbox: project.sandbox, target, spec, cacheDir: cache.dir, timeoutSeconds: 300 }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isGitGoodError(err) && err.code).toBe("ENV_BUILD_FAILED");
    const message = (err as Error).message;
    expect(message.split("\n")).toHaveLength(1);
    expect(message).toMatch(/^environment set-up for acme\/usesvendor: 'pip install gitgood-no-such-package' exited with code 1: .*gitgood-no-such-package/);
  }, 240_000);
});
