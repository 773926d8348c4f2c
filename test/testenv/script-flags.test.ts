import { describe, expect, it } from "vitest";
import { scriptRunnerFlags } from "../../src/testenv/defaults.js";

describe("the runner flags a Node project's test script chooses", () => {
  it("keeps the project and configuration a script picks, and nothing else", () => {
    // luxon's script: the node project only (its browser project needs a downloaded browser).
    expect(scriptRunnerFlags("vitest run --project node", "vitest")).toBe(" --project node");
    expect(scriptRunnerFlags("npm run build && vitest --coverage --config=vitest.unit.ts --reporter dot", "vitest")).toBe(" --config vitest.unit.ts");
    expect(scriptRunnerFlags("cross-env TZ=UTC jest -c jest.config.unit.js --coverage", "jest")).toBe(" -c jest.config.unit.js");
    expect(scriptRunnerFlags("vitest", "vitest")).toBe("");
    expect(scriptRunnerFlags("jest --watch", "vitest")).toBe("");
  });

  it("drops a value that is not a plain word, so a script cannot reach the shell", () => {
    expect(scriptRunnerFlags("vitest --project 'a;rm -rf ~'", "vitest")).toBe("");
    expect(scriptRunnerFlags("vitest --project=$(touch /tmp/x)", "vitest")).toBe("");
    expect(scriptRunnerFlags("vitest --project `id`", "vitest")).toBe("");
  });
});
