import { describe, expect, it } from "vitest";
import * as api from "../../src/index.js";

describe("public API", () => {
  it("exports every layer's entry points by name", () => {
    for (const name of ["mine", "readDataset", "setupScenario", "createAgent", "runBenchmark", "buildReport", "judgeHistories", "MemoryWorkspace", "MEMORY_TOOLS", "GitGoodError"]) {
      expect(typeof (api as Record<string, unknown>)[name], name).not.toBe("undefined");
    }
  });
});
