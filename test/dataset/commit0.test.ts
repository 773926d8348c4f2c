import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parquetWriteBuffer } from "hyparquet-writer";
import { afterAll, describe, expect, it } from "vitest";
import { readDataset } from "../../src/dataset/importer.js";
// The families' dataset readers (SWE-bench and commit0 instances) are registered by the family registry.
import "../../src/families/registry.js";
import { sampleToJson, type RepoCompletionSample } from "../../src/dataset/sample.js";
import { gitgood } from "../helpers/cli.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "gitgood-commit0-import-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const BASE = "a".repeat(40);
const REF = "b".repeat(40);

/** Two rows as commit0's dataset files hold them (setup and test as objects; no counted tests, no difficulty). */
const ROWS = [
  {
    instance_id: "commit-0/cachetools",
    repo: "commit-0/cachetools",
    original_repo: "tkem/cachetools",
    base_commit: BASE,
    reference_commit: REF,
    setup: { install: "pip install -e .", packages: "", pip_packages: "pytest", pre_install: [], python: "3.12", specification: "" },
    test: { test_cmd: "pytest", test_dir: "tests" },
    src_dir: "src/cachetools/",
  },
  {
    instance_id: "commit-0/wcwidth",
    repo: "commit-0/wcwidth",
    original_repo: "jquast/wcwidth",
    base_commit: BASE,
    reference_commit: REF,
    setup: { python: "3.12" },
    test: { test_cmd: "pytest", test_dir: "tests" },
    src_dir: "wcwidth/",
  },
];

const expected: RepoCompletionSample = {
  id: "commit-0/cachetools",
  name: "tkem/cachetools",
  default_branch: null,
  license: null,
  stargazers: null,
  created_at: null,
  topics: null,
  programming_language: "Python",
  project_size: null,
  difficulty: "hard",
  sample_type: "repo_completion",
  scenario: {
    instance_id: "commit-0/cachetools",
    repo: "commit-0/cachetools",
    base_commit: BASE,
    reference_commit: REF,
    src_dir: "src/cachetools/",
    test: { test_cmd: "pytest", test_dir: "tests" },
    setup: ROWS[0]?.setup as Record<string, unknown>,
    tests: [],
  },
};

describe("importing commit0's instance files", () => {
  it("reads JSON, JSONL and Parquet rows as repo_completion samples", async () => {
    const json = path.join(dir, "commit0.json");
    writeFileSync(json, JSON.stringify(ROWS, null, 2));
    const jsonl = path.join(dir, "commit0.jsonl");
    writeFileSync(jsonl, ROWS.map((r) => `${JSON.stringify({ ...r, instance_id: `${r.instance_id}-l` })}\n`).join(""));
    const parquet = path.join(dir, "commit0.parquet");
    const column = (name: keyof (typeof ROWS)[number]) => ({ name, type: "STRING" as const, data: ROWS.map((r) => `${String(r[name])}-p`) });
    writeFileSync(
      parquet,
      Buffer.from(
        parquetWriteBuffer({
          columnData: [
            column("instance_id"),
            { name: "repo", type: "STRING", data: ROWS.map((r) => r.repo) },
            { name: "original_repo", type: "STRING", data: ROWS.map((r) => r.original_repo) },
            { name: "base_commit", type: "STRING", data: ROWS.map((r) => r.base_commit) },
            { name: "reference_commit", type: "STRING", data: ROWS.map((r) => r.reference_commit) },
            { name: "setup", type: "JSON", data: ROWS.map((r) => r.setup) },
            { name: "test", type: "JSON", data: ROWS.map((r) => r.test) },
            { name: "src_dir", type: "STRING", data: ROWS.map((r) => r.src_dir) },
          ],
        }),
      ),
    );
    const { samples, warnings } = await readDataset([json, jsonl, parquet]);
    expect(samples.map((s) => s.id)).toEqual([
      "commit-0/cachetools",
      "commit-0/wcwidth",
      "commit-0/cachetools-l",
      "commit-0/wcwidth-l",
      "commit-0/cachetools-p",
      "commit-0/wcwidth-p",
    ]);
    expect(samples[0]).toEqual(expected);
    expect(samples[4]).toMatchObject({ name: "tkem/cachetools", sample_type: "repo_completion", scenario: { test: { test_dir: "tests" }, setup: { python: "3.12" } } });
    expect(warnings).toEqual([]);
    // gitgood's own file of such samples reads back the same.
    const own = path.join(dir, "own.jsonl");
    writeFileSync(own, `${sampleToJson(expected)}\n`);
    expect((await readDataset([own])).samples).toEqual([expected]);
  });

  it("names the row and the field of a malformed instance; the dataset verb reads the file", async () => {
    const bad = path.join(dir, "bad.jsonl");
    writeFileSync(bad, `${JSON.stringify({ ...ROWS[0], reference_commit: "nope" })}\n`);
    await expect(readDataset([bad])).rejects.toMatchObject({ code: "BAD_ROW", message: `${bad}: row commit-0/cachetools: scenario.reference_commit: a full commit hash` });
    const json = path.join(dir, "commit0.json");
    const out = path.join(dir, "imported.jsonl");
    const r = await gitgood(["dataset", "import", json, "-o", out]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain("imported 2 samples (0 merge, 0 file_commit_chain, 2 repo_completion)");
    expect((await readDataset([out])).samples[0]).toEqual(expected);
  });
});
