import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { bareRepositoryFields, type SweSample } from "../../src/dataset/sample.js";
import { askInterpreterEarly, likelyInterpreter } from "../../src/swe/evaluate.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "gitgood-interpreter-early-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A SWE instance of acme/calc whose project's language is `language` (no work tree is needed here). */
function sample(language: string | null): SweSample {
  return {
    id: "acme__calc-1",
    ...bareRepositoryFields("acme/calc", language),
    difficulty: "easy",
    sample_type: "swe",
    scenario: {
      instance_id: "acme__calc-1",
      repo: "acme/calc",
      base_commit: "0".repeat(40),
      patch: "",
      test_patch: "",
      problem_statement: "x",
      hints_text: "",
      created_at: null,
      version: "0.1",
      environment_setup_commit: null,
      FAIL_TO_PASS: [],
      PASS_TO_PASS: [],
    },
  };
}

/** An --env-spec file giving acme/calc the spec `lines` (YAML, one key a line). */
function specFile(name: string, lines: string[]): string {
  const file = path.join(dir, `${name}.yaml`);
  writeFileSync(file, `envs:\n  acme/calc:\n${lines.map((l) => `    ${l}\n`).join("")}`);
  return file;
}

/** Polls `ok` until it holds or `ms` pass. */
async function until(ok: () => boolean, ms = 60_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

describe("the evaluation's interpreter, asked before the attempt has a work tree", () => {
  it("is the spec's python, else python3, for a project the spec or the sample's language says is Python", () => {
    const named = specFile("named", ["test: python -m pytest", "python: /opt/py/bin/python3.11"]);
    expect(likelyInterpreter(sample("Python"), { envSpecFile: named })).toBe("/opt/py/bin/python3.11");
    expect(likelyInterpreter(sample("Python"), {})).toBe("python3");
    const kind = specFile("kind", ["kind: python", "test: python -m pytest"]);
    expect(likelyInterpreter(sample(null), { envSpecFile: kind })).toBe("python3");
  });

  it("is not asked for where the spec's kind is another, nor for a project of another language the spec gives no kind", () => {
    const node = specFile("node", ["kind: node", "test: npm test"]);
    expect(likelyInterpreter(sample("Python"), { envSpecFile: node })).toBeNull();
    expect(likelyInterpreter(sample("JavaScript"), {})).toBeNull();
    expect(likelyInterpreter(sample(null), {})).toBeNull();
  });

  it("is not guessed from a spec file that cannot be read (the evaluation reports that)", () => {
    expect(likelyInterpreter(sample("Python"), { envSpecFile: path.join(dir, "missing.yaml") })).toBeNull();
  });

  it("starts the question at once: the interpreter runs before any sandbox exists", async () => {
    const log = path.join(dir, "calls");
    const fake = path.join(dir, "fake-python");
    // Stands in for a launcher's shim: notes the call, then is the system's interpreter.
    writeFileSync(fake, `#!/bin/sh\necho called >> '${log}'\nexec python3 "$@"\n`);
    chmodSync(fake, 0o755);
    askInterpreterEarly(sample("Python"), { envSpecFile: specFile("fake", ["test: python -m pytest", `python: ${fake}`]) });
    expect(await until(() => existsSync(log))).toBe(true);
    expect(readFileSync(log, "utf8")).toBe("called\n");
  });
});
