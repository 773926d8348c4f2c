import { describe, expect, it } from "vitest";
import { testInfrastructure } from "../../src/testenv/test-infra.js";

describe("the files an evaluation owns", () => {
  const infra = testInfrastructure();

  it("owns what decides how JavaScript and Java tests run, at any depth", () => {
    for (const f of ["package.json", "web/package.json", "vitest.config.mjs", "vite.config.ts", "jest.config.js", "babel.config.cjs", ".babelrc", ".mocharc.yml", "vitest.workspace.ts", "pom.xml", "core/build.gradle.kts", "settings.gradle"]) {
      expect(infra.owns(f), f).toBe(true);
    }
  });

  it("leaves the project's code to the agent", () => {
    for (const f of ["src/index.js", "lib/config.js", "package-lock.json", "src/main/java/App.java", "jest.setup.md", "calc/__init__.py"]) {
      expect(infra.owns(f), f).toBe(false);
    }
  });
});
