import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CLI_REFERENCE_FILE, RUN_SPEC_SCHEMA_FILE, renderCliReference, renderRunSpecSchema } from "../../src/cli/cli-reference.js";
import { verbs } from "../../src/cli/verbs.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

describe("docs/cli.md", () => {
  it("is what the commands' own definitions say (npm run docs writes it again)", async () => {
    const generated = await renderCliReference();
    const written = readFileSync(path.join(root, CLI_REFERENCE_FILE), "utf8");
    expect(written, "docs/cli.md is out of date: run npm run docs").toBe(generated);
  });

  it("docs/run-spec.schema.json is the declared run settings' schema (npm run docs writes it again)", () => {
    const written = readFileSync(path.join(root, RUN_SPEC_SCHEMA_FILE), "utf8");
    expect(written, "docs/run-spec.schema.json is out of date: run npm run docs").toBe(renderRunSpecSchema());
    expect(Object.keys((JSON.parse(written) as { properties: object }).properties)).toContain("max_processes");
  });

  it("has a section for every verb and every subcommand", async () => {
    const text = await renderCliReference();
    for (const v of verbs()) expect(text).toContain(`\n## gitgood ${v.name}\n`);
    for (const sub of ["dataset import", "export harbor", "memory commit", "a2a agent", "agents install"]) expect(text).toContain(`\n### gitgood ${sub}\n`);
  });
});
