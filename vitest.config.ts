import { defineConfig } from "vitest/config";

// On CI a JSON report is written too, so .ci/run can print its own plain summary line.
const ci = Boolean(process.env.CI);

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Most tests wait on child processes (git, pytest, a jail), so two workers fill two cores; the default (cores - 1) left one idle.
    maxWorkers: 2,
    setupFiles: ["test/helpers/cache-dir.ts"],
    globalSetup: ["test/helpers/system-check.ts"],
    reporters: ci ? ["default", "json"] : ["default"],
    outputFile: ci ? { json: ".vitest-results.json" } : undefined,
  },
});
