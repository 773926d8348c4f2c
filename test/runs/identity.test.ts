import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { samplesDigest } from "../../src/dataset/digest.js";
import { runConfig } from "../../src/runs/config.js";
import { RUN_FILE, RunStore, runDirFor } from "../../src/runs/store.js";
import { mergeSample } from "../helpers/dataset.js";

const root = mkdtempSync(path.join(os.tmpdir(), "gitgood-identity-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const newDir = () => path.join(root, `run-${n++}`);

const a = mergeSample({ name: "o/r", index: 0 });
const b = mergeSample({ name: "o/r", index: 1 });
const config = (files: string[], samples = [a, b]) => runConfig({ samples: files, samplesDigest: samplesDigest(samples), agent: "oracle" }, (p) => p);

describe("a run's identity holds what it ran", () => {
  it("digests the samples, not their order or file; any changed field changes it", () => {
    expect(samplesDigest([a, b])).toBe(samplesDigest([b, a]));
    expect(samplesDigest([a, b])).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(samplesDigest([a])).not.toBe(samplesDigest([a, b]));
    expect(samplesDigest([a, { ...b, difficulty: b.difficulty === "easy" ? "hard" : "easy" }])).not.toBe(samplesDigest([a, b]));
  });

  it("resumes the same samples read from another file", () => {
    const dir = newDir();
    RunStore.open(dir, config(["/data/first.jsonl"]));
    expect(() => RunStore.open(dir, config(["/elsewhere/copy.jsonl"]))).not.toThrow();
  });

  it("refuses other samples under the same file, naming the old and the new digest", () => {
    const dir = newDir();
    RunStore.open(dir, config(["/data/s.jsonl"], [a]));
    let message = "";
    try {
      RunStore.open(dir, config(["/data/s.jsonl"], [a, b]));
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain(`samples_digest: "${samplesDigest([a])}" -> "${samplesDigest([a, b])}"`);
    expect(message.split("\n")).toHaveLength(1);
  });

  it("names the old and new value of any setting a resume refuses", () => {
    const dir = newDir();
    RunStore.open(dir, runConfig({ samples: ["/s"], samplesDigest: samplesDigest([a]), agent: "oracle", spec: { max_turns: 10 } }, (p) => p));
    expect(() => RunStore.open(dir, runConfig({ samples: ["/s"], samplesDigest: samplesDigest([a]), agent: "baseline-ours", spec: { max_turns: 12 } }, (p) => p))).toThrow(
      /agent: "oracle" -> "baseline-ours"; spec\.max_turns: 10 -> 12/,
    );
  });

  it("resumes a run made before digests by its samples' path, and records the digest from then on", () => {
    const dir = newDir();
    RunStore.open(dir, config(["/data/s.jsonl"]));
    const file = path.join(dir, RUN_FILE);
    const saved = JSON.parse(readFileSync(file, "utf8")) as { identity: Record<string, unknown> };
    delete saved.identity.samples_digest;
    writeFileSync(file, JSON.stringify(saved));
    expect(() => RunStore.open(dir, config(["/data/other.jsonl"]))).toThrow(/samples: "\/data\/s\.jsonl" -> "\/data\/other\.jsonl"/);
    RunStore.open(dir, config(["/data/s.jsonl"]));
    expect(RunStore.readConfig(dir).identity.samples_digest).toBe(samplesDigest([a, b]));
  });

  it("finds the directory beside a run of other samples, and the run of the same ones again", () => {
    const base = newDir();
    RunStore.open(base, config(["/s"], [a]));
    const other = config(["/s"], [a, b]).identity;
    expect(runDirFor(base, config(["/t"], [a]).identity)).toBe(base);
    expect(runDirFor(base, other)).toBe(`${base}-2`);
    RunStore.open(`${base}-2`, config(["/s"], [a, b]));
    expect(runDirFor(base, other)).toBe(`${base}-2`);
    expect(runDirFor(base, config(["/s"], [b]).identity)).toBe(`${base}-3`);
  });
});
