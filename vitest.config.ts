import { defineConfig } from "vitest/config";

// On CI a JSON report is written too, so .ci/run can print its own plain summary line.
const ci = Boolean(process.env.CI);

/**
 * Test files that share their worker process with the files run before them in it (isolate: false): a fresh
 * process per file costs a Node start and a fresh import of vitest and of src/ (about 2 s of CPU on a small VM),
 * more than many of these files take. A file goes here only when it leaves nothing behind that another file
 * could see: no family or provider registered at import (test/families/ registers its toy family, which changes
 * the sample schema built later), no process counting or killing, no environment left changed. Everything else
 * gets a process of its own.
 */
const SHARED = [
  "test/scoring/**/*.test.ts",
  "test/report/**/*.test.ts",
  "test/util/**/*.test.ts",
  "test/dataset/**/*.test.ts",
  "test/view/**/*.test.ts",
  "test/tools/**/*.test.ts",
  "test/python/**/*.test.ts",
  "test/proxy/**/*.test.ts",
  "test/scenarios/**/*.test.ts",
  "test/model/**/*.test.ts",
  "test/memory/**/*.test.ts",
  "test/mcp/**/*.test.ts",
  "test/testenv/**/*.test.ts",
  "test/architecture/**/*.test.ts",
  "test/security/**/*.test.ts",
  "test/errors.test.ts",
  "test/exports.test.ts",
];
/** Files in those folders that register a provider or a scenario while they run: each keeps a process of its own. */
const REGISTERING = ["test/model/providers.test.ts", "test/scenarios/registry.test.ts"];

export default defineConfig({
  test: {
    // Limits that catch a hang, not a speed check. A test that may take longer on two loaded cores names its own
    // limit in its file (`it(name, fn, 180_000)`): the ones that start gitgood processes, build Python
    // environments or run real agents, which took 7 s or more on the machine's last full run. Hooks build
    // fixtures (repositories, environments) for a whole file and keep a longer limit.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Most tests wait on child processes (git, pytest, a jail, a real agent), so more workers than cores keep two
    // cores busy. On an idle 2-core machine 1116 tests took 16:47 with three and 15:29 with four; four once failed
    // the green agent's cancel test (test/a2a/green.test.ts): under load a participant published its task later
    // than the A2A client's idle limit, which then gave the instance up. The limit now counts from the task's start
    // (src/agents/a2a-client.ts), and with the light folders sharing processes 1121 tests took 13:55 with four.
    maxWorkers: 4,
    setupFiles: ["test/helpers/cache-dir.ts"],
    globalSetup: ["test/helpers/python-path.ts", "test/helpers/system-check.ts"],
    reporters: ci ? ["default", "json"] : ["default"],
    outputFile: ci ? { json: ".vitest-results.json" } : undefined,
    projects: [
      // Sorted by project name: the isolated files (the heavy ones among them) start first, the shared ones
      // come last and in a row, which is what lets a worker take the next shared file.
      { extends: true, test: { name: "isolated", include: ["test/**/*.test.ts"], exclude: SHARED } },
      { extends: true, test: { name: "isolated-registering", include: REGISTERING } },
      { extends: true, test: { name: "shared", include: SHARED, exclude: REGISTERING, isolate: false } },
    ],
  },
});
