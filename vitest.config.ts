import { defineConfig } from "vitest/config";

// On CI a JSON report is written too, so .ci/run can print its own plain summary line.
const ci = Boolean(process.env.CI);

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Limits that catch a hang, not a speed check: on two loaded cores a real-git test can take several times its idle time.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    pool: "forks",
    // Most tests wait on child processes (git, pytest, a jail, a real agent), so more workers than cores keep two
    // cores busy: on an idle 2-core machine 16:20 with two and 14:47 with three (1089 tests); 1116 tests took 16:47
    // with three and 15:29 with four, but four loaded the machine enough to fail a race in the green agent's cancel
    // test (test/a2a/green.test.ts), so three.
    maxWorkers: 3,
    setupFiles: ["test/helpers/cache-dir.ts"],
    globalSetup: ["test/helpers/python-path.ts", "test/helpers/system-check.ts"],
    reporters: ci ? ["default", "json"] : ["default"],
    outputFile: ci ? { json: ".vitest-results.json" } : undefined,
  },
});
