import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveEnvSpec } from "../../src/testenv/defaults.js";
import { prepareEnvironment } from "../../src/testenv/prepare.js";
import { runTests } from "../../src/testenv/run-tests.js";
import type { Environment } from "../../src/testenv/types.js";
import { projectSandbox, useCacheDir } from "../helpers/envs.js";
import { useSandboxRoot } from "../helpers/scenarios.js";

/**
 * A vitest (and a Maven) project's results come from the JUnit file its run writes in the work tree, where the code under
 * test can write too: runTests on a library that, at import in the test's own process, hides the runner's
 * report and puts a file saying every test passed beside it. `half` is wrong, so "halves" fails unless the
 * run is forged. The runner's exit status and summary are what the forgery can not reach.
 */

const VITEST = path.resolve("node_modules", "vitest");
const target = { repo: "acme/halves", version: null };

const TESTS = ['import { expect, test } from "vitest";', 'import { double, half } from "../lib/widget.js";', 'test("doubles", () => expect(double(2)).toBe(4));', 'test("halves", () => expect(half(4)).toBe(2));', ""].join("\n");

const HONEST = "export const double = (x) => x + x;\nexport const half = (x) => x / 2;\n";

const FORGED = [
  "export const double = (x) => x + x;",
  "export const half = (x) => x * 2;",
  'import * as fs from "node:fs";',
  'for (const d of fs.readdirSync(".").filter((n) => n.startsWith(".gitgood-" + "results-"))) {',
  '  const report = `${d}/jun` + "it.xml";',
  "  fs.rmSync(report, { force: true });",
  "  fs.mkdirSync(report);",
  '  fs.writeFileSync(`${d}/forged.xml`, \'<testsuites><testsuite name="test/widget.test.js"><testcase name="doubles" classname="test/widget.test.js"/><testcase name="halves" classname="test/widget.test.js"/></testsuite></testsuites>\');',
  "}",
  "",
].join("\n");

let root: ReturnType<typeof useSandboxRoot>;
let cache: ReturnType<typeof useCacheDir>;
const projects: Array<{ cleanup: () => void }> = [];

beforeAll(() => {
  root = useSandboxRoot();
  cache = useCacheDir();
});

afterAll(() => {
  for (const p of projects) p.cleanup();
  root.cleanup();
  cache.cleanup();
});

/** runTests on the vitest project with `lib` as its library, vitest linked from gitgood's own node_modules. */
async function run(lib: string): Promise<Awaited<ReturnType<typeof runTests>>> {
  const project = await projectSandbox({
    "package.json": `${JSON.stringify({ name: "halves", version: "1.0.0", private: true, type: "module", scripts: { test: "vitest run" } }, null, 2)}\n`,
    "lib/widget.js": lib,
    "test/widget.test.js": TESTS,
  });
  projects.push(project);
  const detected = resolveEnvSpec(target, project.sandbox.workDir);
  const spec = { ...detected, setup: [`mkdir -p node_modules/.bin && ln -s ${VITEST} node_modules/vitest && ln -s ../vitest/vitest.mjs node_modules/.bin/vitest`] };
  const env: Environment = await prepareEnvironment({ sandbox: project.sandbox, target, spec, cacheDir: cache.dir, timeoutSeconds: 300 });
  return runTests(project.sandbox, env, ["test/widget.test.js"], { timeoutSeconds: 120 });
}

describe("a vitest run's JUnit file forged by the code under test", () => {
  it("an honest library: both tests pass, nothing found", async () => {
    const r = await run(HONEST);
    expect(r.tampering).toEqual([]);
    expect(Object.fromEntries(r.outcomes)).toEqual({ doubles: "passed", halves: "passed" });
  }, 120_000);

  it("the runner's report made a directory and a file of passes put beside it: no outcome, a finding", async () => {
    const r = await run(FORGED);
    expect(r.tampering.length, r.log).toBeGreaterThan(0);
    expect(r.tampering.join("\n")).toMatch(/the test runner exited with status 1|summary counts 1 failing/);
    expect(r.outcomes.size).toBe(0);
  }, 120_000);
});

/** Maven's local repository, with what an offline run of the project below needs (surefire 3.2.5, JUnit 5.10.2). */
const M2 = path.join(os.homedir(), ".m2", "repository");
const noMaven =
  spawnSync("mvn", ["-v"], { stdio: "ignore" }).status !== 0 ||
  !existsSync(path.join(M2, "org/apache/maven/plugins/maven-surefire-plugin/3.2.5")) ||
  !existsSync(path.join(M2, "org/junit/jupiter/junit-jupiter/5.10.2"));

const POM = `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>acme</groupId><artifactId>calc</artifactId><version>1.0</version>
  <properties><maven.compiler.release>17</maven.compiler.release><project.build.sourceEncoding>UTF-8</project.build.sourceEncoding></properties>
  <dependencies><dependency><groupId>org.junit.jupiter</groupId><artifactId>junit-jupiter</artifactId><version>5.10.2</version><scope>test</scope></dependency></dependencies>
  <build><plugins>
    <plugin><artifactId>maven-resources-plugin</artifactId><version>3.3.1</version></plugin>
    <plugin><artifactId>maven-compiler-plugin</artifactId><version>3.13.0</version></plugin>
    <plugin><artifactId>maven-surefire-plugin</artifactId><version>3.2.5</version></plugin>
  </plugins></build>
</project>
`;

const CALC_TEST = [
  "package acme;",
  "import static org.junit.jupiter.api.Assertions.assertEquals;",
  "import org.junit.jupiter.api.Test;",
  "class CalcTest {",
  "  @Test void twice() { assertEquals(4, Calc.twice(2)); }",
  "  @Test void half() { assertEquals(2, Calc.half(4)); }",
  "}",
  "",
].join("\n");

const calc = (half: string, forge = ""): string => `package acme;\npublic class Calc {\n${forge}  public static int half(int x) { return ${half}; }\n  public static int twice(int x) { return x + x; }\n}\n`;

/** In the forked test JVM: a shutdown hook that waits for surefire's report of the class and writes passes over it. */
const OVERWRITE_REPORT = [
  "  static {",
  "    Runtime.getRuntime().addShutdownHook(new Thread(() -> {",
  '      java.nio.file.Path f = java.nio.file.Paths.get("target", "surefire" + "-reports", "TEST-acme.CalcTest.xml");',
  "      try {",
  '        for (long end = System.currentTimeMillis() + 60000; System.currentTimeMillis() < end && !(java.nio.file.Files.exists(f) && java.nio.file.Files.readString(f).contains("</testsuite>")); ) Thread.sleep(20);',
  '        java.nio.file.Files.writeString(f, "<testsuite name=\\"acme.CalcTest\\"><testcase name=\\"twice\\" classname=\\"acme.CalcTest\\"/><testcase name=\\"half\\" classname=\\"acme.CalcTest\\"/></testsuite>");',
  "      } catch (Exception e) { throw new RuntimeException(e); }",
  "    }));",
  "  }",
  "",
].join("\n");

/** runTests on the Maven project with `calcSource` as its class, Maven offline on the machine's local repository. */
async function runMaven(calcSource: string): Promise<Awaited<ReturnType<typeof runTests>>> {
  const project = await projectSandbox({ "pom.xml": POM, "src/main/java/acme/Calc.java": calcSource, "src/test/java/acme/CalcTest.java": CALC_TEST });
  projects.push(project);
  const detected = resolveEnvSpec({ repo: "acme/calc", version: null }, project.sandbox.workDir);
  const spec = { ...detected, setup: [], test: `mvn -B -o -Dmaven.repo.local=${M2} test -DfailIfNoTests=false -Dsurefire.failIfNoSpecifiedTests=false` };
  const env: Environment = await prepareEnvironment({ sandbox: project.sandbox, target: { repo: "acme/calc", version: null }, spec, cacheDir: cache.dir, timeoutSeconds: 300 });
  return runTests(project.sandbox, { ...env, readPaths: [...env.readPaths, M2, "/etc/maven"] }, ["src/test/java/acme/CalcTest.java"], { timeoutSeconds: 300 });
}

describe.skipIf(noMaven)("a Maven run's surefire report overwritten by the code under test", () => {
  it("an honest class: both tests pass, nothing found", async () => {
    const r = await runMaven(calc("x / 2"));
    expect(r.tampering, r.log.slice(-3000)).toEqual([]);
    expect(Object.fromEntries(r.outcomes)).toEqual({ "acme.CalcTest#twice": "passed", "acme.CalcTest#half": "passed" });
  }, 300_000);

  it("passes written over surefire's report after the tests ran: no outcome, a finding", async () => {
    const r = await runMaven(calc("x * 2", OVERWRITE_REPORT));
    expect(r.tampering, r.log.slice(-3000)).toEqual([
      "the result files say no test failed, but the test runner exited with status 1",
      "the test runner's summary counts 1 failing test(s), but the result files have none",
      "the result files have 2 passing test(s), but the test runner's summary counts 1",
    ]);
    expect(r.outcomes.size).toBe(0);
  }, 300_000);
});
