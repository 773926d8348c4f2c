import { describe, expect, it } from "vitest";
import { unregisterIsolation } from "../../src/sandbox/isolation.js";
import { dockerBackend } from "../../src/sandbox/isolation/docker.js";
import { namespaceBackend } from "../../src/sandbox/isolation/namespace.js";
import { noneBackend } from "../../src/sandbox/isolation/none.js";
import { isolationConformance } from "../../src/testing.js";

// Every built-in backend through the suite a plug-in's backend must pass (a backend that cannot run here is
// checked to be refused, its other checks skipped with the reason).
for (const backend of [namespaceBackend, dockerBackend, noneBackend]) {
  describe(`the ${backend.name} isolation backend`, () => {
    for (const check of isolationConformance(backend)) it.skipIf(check.skip !== null)(check.name, check.run, 120_000);
  });
}

describe("the isolation suite", () => {
  it("fails a backend that says it isolates and does not", async () => {
    const pretender = Object.create(noneBackend, { name: { value: "pretender" }, isolates: { value: true } }) as typeof noneBackend;
    const checks = isolationConformance(pretender);
    try {
      const failed: string[] = [];
      for (const check of checks) await check.run().catch(() => failed.push(check.name));
      expect(failed).toEqual([
        "pretender: a program cannot read a file outside its work tree",
        "pretender: a program cannot write outside its work tree",
        "pretender: a program cannot reach the host's loopback when the network is off",
        // Its enforcement claims no weakness, and a program used the memory past the limit.
        "pretender: enforces its memory limit, or refuses it",
      ]);
    } finally {
      unregisterIsolation("pretender");
    }
  }, 120_000);
});
