import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveEnvSpec } from "../../src/testenv/defaults.js";
import { testArguments } from "../../src/testenv/run-tests.js";
import { envSpecYaml, loadEnvSpecFile, parseEnvSpecs } from "../../src/testenv/spec-file.js";
import { GitGoodError } from "../../src/errors.js";
import { writeFiles } from "../helpers/envs.js";

let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(path.join(os.tmpdir(), "gitgood-envs-spec-"));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function tree(name: string, files: Record<string, string>): string {
  const dir = path.join(scratch, name);
  writeFiles(dir, files);
  return dir;
}

function specFile(name: string, text: string): string {
  const file = path.join(scratch, name);
  writeFileSync(file, text);
  return file;
}

function errorOf(f: () => unknown): GitGoodError {
  try {
    f();
  } catch (err) {
    if (err instanceof GitGoodError) return err;
    throw err;
  }
  throw new Error("no error thrown");
}

describe("built-in defaults", () => {
  it("Python: pytest from the root; Django's runtests.py and SymPy's bin/test with their log parsers; a src layout on PYTHONPATH", () => {
    const plain = resolveEnvSpec({ repo: "a/b", version: null }, tree("py", { "setup.py": "" }));
    expect(plain).toMatchObject({ kind: "python", log: "pytest", ids: "pytest", testArgs: "paths", pythonPath: ["."], editable: false });
    expect(plain.test).toMatch(/^python -m pytest -rA .*--junitxml="\$GITGOOD_JUNIT"/);
    const django = resolveEnvSpec({ repo: "django/django", version: "3.0" }, tree("dj", { "setup.py": "" }));
    expect(django).toMatchObject({ log: "django", testArgs: "django" });
    expect(django.test).toMatch(/tests\/runtests\.py --verbosity 2/);
    const sympy = resolveEnvSpec({ repo: "x/y", version: null }, tree("sy", { "setup.py": "", "bin/test": "", "sympy/__init__.py": "" }));
    expect(sympy).toMatchObject({ log: "sympy", test: "python bin/test -C --verbose" });
    const src = resolveEnvSpec({ repo: "a/b", version: null }, tree("srclayout", { "pyproject.toml": "", "src/pkg/__init__.py": "" }));
    expect(src.pythonPath).toEqual([".", "src"]);
  });

  it("Node: vitest and jest scripts; Maven and Gradle with their report directories", () => {
    const vitest = resolveEnvSpec({ repo: "a/b", version: null }, tree("vi", { "package.json": '{"scripts":{"test":"vitest"}}' }));
    expect(vitest).toMatchObject({ kind: "node", setup: [] });
    expect(vitest.test).toMatch(/vitest run .*--reporter=junit/);
    const jest = resolveEnvSpec({ repo: "a/b", version: null }, tree("je", { "package.json": '{"scripts":{"test":"jest"}}', "package-lock.json": "{}" }));
    expect(jest).toMatchObject({ log: "jest", setup: ["npm ci --no-audit --no-fund"] });
    const maven = resolveEnvSpec({ repo: "a/b", version: null }, tree("mv", { "pom.xml": "<project/>" }));
    expect(maven).toMatchObject({ kind: "maven", junit: ["target/surefire-reports"], ids: "java", testArgs: "maven" });
    const gradle = resolveEnvSpec({ repo: "a/b", version: null }, tree("gr", { "build.gradle.kts": "", gradlew: "" }));
    expect(gradle).toMatchObject({ kind: "gradle", junit: ["build/test-results/test"], testArgs: "gradle" });
    expect(gradle.test).toMatch(/^sh \.\/gradlew /);
  });

  it("a project nothing identifies needs a spec: one line naming the repository", () => {
    const err = errorOf(() => resolveEnvSpec({ repo: "a/empty", version: "2" }, tree("none", { "README.md": "" })));
    expect(err.code).toBe("BAD_ENV_SPEC");
    expect(err.message).toMatch(/^no test command for a\/empty 2: .*--env-spec FILE/);
    expect(err.message).not.toMatch(/\n/);
  });

  it("test files become arguments in the spec's style", () => {
    const files = ["tests/admin_views/test_forms.py", "src/test/java/com/acme/CalcTest.java"];
    expect(testArguments("paths", files)).toEqual(files);
    expect(testArguments("django", ["tests/admin_views/test_forms.py"])).toEqual(["admin_views.test_forms"]);
    expect(testArguments("maven", ["src/test/java/com/acme/CalcTest.java", "src/test/kotlin/AddTest.kt"])).toEqual(["-Dtest=CalcTest,AddTest"]);
    expect(testArguments("gradle", ["src/test/java/com/acme/CalcTest.java"])).toEqual(["--tests", "CalcTest"]);
    expect(testArguments("none", files)).toEqual([]);
  });
});

describe("env spec files", () => {
  it("by repository and version, `*` as the fallback of both, completing the built-in default", () => {
    const file = specFile(
      "envs.yaml",
      [
        "envs:",
        "  acme/calc:",
        '    "1.0":',
        "      setup: [pip install -r requirements.txt]",
        "      editable: true",
        "      python-path: [src]",
        "      env: { LANG: C.UTF-8, RETRIES: 3 }",
        '    "*":',
        "      test: python -m pytest -q",
        '  "*":',
        "    kind: custom",
        "    test: make check",
        "    test-args: none",
        "",
      ].join("\n"),
    );
    const user = loadEnvSpecFile(file);
    const work = tree("calc", { "pyproject.toml": "" });
    const v1 = resolveEnvSpec({ repo: "acme/calc", version: "1.0" }, work, user);
    expect(v1).toMatchObject({ kind: "python", setup: ["pip install -r requirements.txt"], editable: true, pythonPath: ["src"], env: { LANG: "C.UTF-8", RETRIES: "3" } });
    expect(v1.test).toMatch(/^python -m pytest -rA/);
    expect(resolveEnvSpec({ repo: "acme/calc", version: "2.0" }, work, user).test).toBe("python -m pytest -q");
    expect(resolveEnvSpec({ repo: "other/x", version: null }, work, user)).toMatchObject({ kind: "custom", test: "make check", testArgs: "none" });
  });

  it("a spec file without the envs: key, and a spec that round-trips through envSpecYaml", () => {
    const bare = loadEnvSpecFile(specFile("bare.yaml", "acme/calc:\n  test: pytest\n"));
    expect(bare.repos["acme/calc"]?.["*"]).toEqual({ test: "pytest" });
    const yaml = envSpecYaml("acme/calc", "1.0", { kind: "python", setup: ["pip install ."], beforeTests: ["make ext"], test: "pytest" });
    const again = loadEnvSpecFile(specFile("round.yaml", yaml));
    expect(again.repos["acme/calc"]?.["1.0"]).toEqual({ kind: "python", setup: ["pip install ."], beforeTests: ["make ext"], test: "pytest" });
  });

  it("malformed specs are one-line BAD_ENV_SPEC errors naming the file and the key", () => {
    const cases: Array<[string, RegExp]> = [
      ["envs:\n  acme/calc:\n    '1.0':\n      tset: pytest\n", /envs-bad-0\.yaml: acme\/calc 1\.0: .*tset/],
      ["envs:\n  acme/calc:\n    kind: ruby\n", /envs-bad-1\.yaml: acme\/calc: kind: /],
      ["envs:\n  acme/calc:\n    junit: [../outside]\n", /junit\.0: must be a path relative to the project root/],
      ["envs: [1, 2]\n", /must be a map of repositories/],
      ["envs:\n  acme/calc: {\n", /not YAML/],
    ];
    cases.forEach(([text, pattern], i) => {
      const err = errorOf(() => loadEnvSpecFile(specFile(`envs-bad-${i}.yaml`, text)));
      expect(err.code).toBe("BAD_ENV_SPEC");
      expect(err.message).toMatch(pattern);
      expect(err.message).not.toMatch(/\n/);
    });
    expect(errorOf(() => parseEnvSpecs({ "a/b": { "*": { editable: "yes" } } }, "gitgood.config.yaml")).message).toMatch(/^gitgood\.config\.yaml: a\/b \*: editable: /);
    expect(errorOf(() => loadEnvSpecFile(path.join(scratch, "missing.yaml"))).message).toMatch(/--env-spec .*missing\.yaml: no such file/);
  });

  it("a file read again as it was gives the specs parsed the first time; changed, it is parsed again, and a broken change is refused", () => {
    const file = specFile("again.yaml", "envs:\n  acme/calc:\n    test: pytest -x\n");
    const first = loadEnvSpecFile(file);
    expect(loadEnvSpecFile(file)).toBe(first);
    writeFileSync(file, "envs:\n  acme/calc:\n    test: pytest -q\n");
    const changed = loadEnvSpecFile(file);
    expect(changed).not.toBe(first);
    expect(changed.repos["acme/calc"]?.["*"]?.test).toBe("pytest -q");
    writeFileSync(file, "envs:\n  acme/calc: {\n");
    expect(errorOf(() => loadEnvSpecFile(file)).message).toMatch(/not YAML/);
    rmSync(file);
    expect(errorOf(() => loadEnvSpecFile(file)).message).toMatch(/no such file/);
  });
});
