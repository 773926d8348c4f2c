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
    // Most tests wait on child processes (git, pytest, a jail, a real agent), so three workers keep two cores busy:
    // the whole suite took 16:20 with two and 14:47 with three on an idle 2-core machine (1089 tests).
    maxWorkers: 3,
    setupFiles: ["test/helpers/cache-dir.ts"],
    globalSetup: ["test/helpers/system-check.ts"],
    reporters: ci ? ["default", "json"] : ["default"],
    outputFile: ci ? { json: ".vitest-results.json" } : undefined,
  },
});
