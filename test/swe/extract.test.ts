import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ScriptedModelClient } from "../../src/model/scripted.js";
import { extractPatch, patchFromAnswer } from "../../src/swe/extract.js";
import { readPredictions } from "../../src/swe/predictions.js";
import { sweResolution, sweStatus } from "../../src/swe/status.js";
import { changedLines, diffFiles, isUnifiedDiff } from "../../src/util/unified-diff.js";

const DIFF = [
  "diff --git a/calc/__init__.py b/calc/__init__.py",
  "index 1111111..2222222 100644",
  "--- a/calc/__init__.py",
  "+++ b/calc/__init__.py",
  "@@ -4,3 +4,3 @@ def add(a, b):",
  " def sub(a, b):",
  "-    return a + b",
  "+    return a - b",
  " ",
  "",
].join("\n");

describe("patch extraction from an agent's text answer", () => {
  it("reads <patch> tags, fenced diff and patch blocks, and a bare diff between prose", () => {
    expect(extractPatch(`Here it is:\n<patch>\n${DIFF}</patch>\nDone.`)).toEqual({ patch: DIFF, source: "tags" });
    expect(extractPatch(`Fix:\n\`\`\`diff\n${DIFF}\`\`\`\nThanks`)).toEqual({ patch: DIFF, source: "fence" });
    expect(extractPatch(`Fix:\n\`\`\`patch\n${DIFF}\`\`\``)).toEqual({ patch: DIFF, source: "fence" });
    expect(extractPatch(`I changed sub.\n\n${DIFF}\nThat should do it.\n`)).toEqual({ patch: DIFF, source: "bare" });
    expect(extractPatch(DIFF)).toEqual({ patch: DIFF, source: "bare" });
    expect(extractPatch("I could not find the bug.")).toEqual({ patch: "", source: "none" });
  });

  it("with --extract-with, takes a model's diff only when it parses as one", async () => {
    const good = new ScriptedModelClient([{ content: `<patch>\n${DIFF}</patch>` }]);
    expect(await patchFromAnswer("Change the plus in sub to a minus.", good)).toEqual({ patch: DIFF, source: "model" });
    const bad = new ScriptedModelClient([{ content: "<patch>replace + with -</patch>" }]);
    expect(await patchFromAnswer("Change the plus in sub to a minus.", bad)).toEqual({ patch: "", source: "none" });
  });

  it("reads the files and changed lines of a diff", () => {
    expect(diffFiles(DIFF)).toEqual([{ old: "calc/__init__.py", new: "calc/__init__.py" }]);
    expect(changedLines(DIFF)).toBe(2);
    expect(isUnifiedDiff(DIFF)).toBe(true);
    expect(isUnifiedDiff("--- a/x\nno hunk\n")).toBe(false);
  });
});

describe("statuses", () => {
  const t = (passed: number, total: number) => ({ passed, total, failed: [] });
  it("follow the AgentBeats rules and SWE-bench's resolutions; an empty list is all passed", () => {
    expect(sweStatus(false, t(2, 2), t(2, 2))).toBe("no_op");
    expect(sweStatus(true, t(2, 2), t(2, 2))).toBe("resolved");
    expect(sweStatus(true, t(2, 2), t(1, 2))).toBe("breaking_resolved");
    expect(sweStatus(true, t(1, 2), t(2, 2))).toBe("partially_resolved");
    expect(sweStatus(true, t(0, 2), t(2, 2))).toBe("no_op");
    expect(sweStatus(true, t(1, 2), t(1, 2))).toBe("work_in_progress");
    expect(sweStatus(true, t(0, 2), t(1, 2))).toBe("regression");
    expect(sweStatus(true, t(0, 0), t(0, 0))).toBe("resolved");
    expect([sweResolution(true, t(2, 2), t(0, 0)), sweResolution(true, t(1, 2), t(2, 2)), sweResolution(true, t(2, 2), t(1, 2))]).toEqual([
      "RESOLVED_FULL",
      "RESOLVED_PARTIAL",
      "RESOLVED_NO",
    ]);
  });

  it("a patch that did not apply or changed nothing is never resolved, even with empty lists", () => {
    expect(sweResolution(false, t(0, 0), t(0, 0))).toBe("RESOLVED_NO");
    expect(sweResolution(false, t(2, 2), t(2, 2))).toBe("RESOLVED_NO");
    expect(sweStatus(false, t(0, 0), t(0, 0))).toBe("no_op");
  });
});

describe("predictions files", () => {
  it("read as JSONL, as a JSON list and as an object keyed by instance id; a repeated instance is an error", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "gitgood-preds-"));
    try {
      const p = { instance_id: "a__b-1", model_name_or_path: "m", model_patch: DIFF };
      const files = {
        jsonl: `${JSON.stringify(p)}\n${JSON.stringify({ ...p, instance_id: "a__b-2", model_patch: null })}\n`,
        list: JSON.stringify([p]),
        keyed: JSON.stringify({ "a__b-1": { model_name_or_path: "m", model_patch: DIFF } }),
        twice: `${JSON.stringify(p)}\n${JSON.stringify(p)}\n`,
      };
      for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text);
      const jsonl = readPredictions(path.join(dir, "jsonl"));
      expect(jsonl.get("a__b-1")).toEqual(p);
      expect(jsonl.get("a__b-2")?.model_patch).toBe("");
      expect(readPredictions(path.join(dir, "list")).get("a__b-1")).toEqual(p);
      expect(readPredictions(path.join(dir, "keyed")).get("a__b-1")).toEqual(p);
      expect(() => readPredictions(path.join(dir, "twice"))).toThrow(/a__b-1: predicted twice/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
