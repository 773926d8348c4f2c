import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { findSample, readSamples } from "../../src/dataset/jsonl.js";
import { sampleToJson } from "../../src/dataset/sample.js";
import { chainSample } from "../helpers/scenarios.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "gitgood-jsonl-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const a = chainSample("a.py", "a".repeat(40), "b".repeat(40), 3, "x_y_file_commit_chain_0000");
const b = chainSample("b.py", "c".repeat(40), "d".repeat(40), 4, "x_y_file_commit_chain_0001");

function file(name: string, text: string): string {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
}

describe("samples JSONL", () => {
  it("reads every sample and finds one by id", () => {
    const f = file("ok.jsonl", `${sampleToJson(a)}\n\n${sampleToJson(b)}\n`);
    expect(readSamples(f).map((s) => s.id)).toEqual([a.id, b.id]);
    expect(findSample(f, b.id)).toEqual(b);
  });

  it("names the line of bad JSON or a bad sample", () => {
    const bad = file("bad.jsonl", `${sampleToJson(a)}\n{"id": \n`);
    expect(() => readSamples(bad)).toThrow(`${bad}:2: not valid JSON`);
    const wrong = file("wrong.jsonl", `${JSON.stringify({ ...a, difficulty: "extreme" })}\n`);
    expect(() => readSamples(wrong)).toThrow(`${wrong}:1: not a gitgood sample at difficulty`);
    expect(() => findSample(wrong, a.id)).toThrow(":1: not a gitgood sample");
  });

  it("finds a sample past a bad line elsewhere, and reports a missing id or file", () => {
    const mixed = file("mixed.jsonl", `not json at all\n${sampleToJson(b)}\n`);
    expect(findSample(mixed, b.id).id).toBe(b.id);
    expect(() => findSample(mixed, "nope")).toThrow(`no sample with id nope in ${mixed}`);
    expect(() => readSamples(path.join(dir, "missing.jsonl"))).toThrow("cannot read samples file");
  });
});
