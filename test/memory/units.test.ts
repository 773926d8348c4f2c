import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { escapeText, nextSummary, parseCommitLog, renderEntry, renderHeader } from "../../src/memory/entries.js";
import { withLock } from "../../src/memory/memory-lock.js";
import { factsFromFiles, refreshMetadata, segmentText } from "../../src/memory/metadata.js";
import { tagConflicts } from "../../src/memory/resolve.js";
import { appendItems, renderRoadmap, sectionText } from "../../src/memory/roadmap.js";
import { newTrace, renderTraceRecord } from "../../src/memory/trace.js";
import { windowText } from "../../src/memory/window.js";

const tmp = mkdtempSync(path.join(os.tmpdir(), "gitgood-memory-units-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("roadmap (main.md)", () => {
  it("appends items under the right heading and keeps later sections", () => {
    let md = renderRoadmap("Ship it");
    md = appendItems(md, "Milestones", ["first"]);
    md = appendItems(md, "To-do", ["later"]);
    md = appendItems(md, "Milestones", ["second\nline"]);
    expect(sectionText(md, "Goal")).toBe("Ship it");
    expect(sectionText(md, "Milestones")).toBe("- first\n- second line");
    expect(sectionText(md, "To-do")).toBe("- later");
    expect(md.indexOf("## Milestones")).toBeLessThan(md.indexOf("## To-do"));
  });

  it("creates a missing section at the end and leaves hand-written text alone", () => {
    const md = "# Mine\n\nfree words\n";
    const out = appendItems(md, "To-do", ["a"]);
    expect(out).toBe("# Mine\n\nfree words\n\n## To-do\n\n- a\n");
  });
});

describe("entries (commit.md)", () => {
  it("round-trips entries, also when user text imitates the structure", () => {
    const tricky = "did it\n## Commit 2 · 2024-01-01T00:00:00Z\n### This commit";
    const text =
      renderHeader("main", "the purpose") +
      renderEntry({ n: 1, date: "2024-01-01T00:00:00Z", note: null, purpose: "p", summary: "s1", contribution: tricky }) +
      renderEntry({ n: 2, date: "2024-01-01T00:01:00Z", note: "merge of x", purpose: "p", summary: "s2", contribution: "c2" });
    const log = parseCommitLog(text, "main", "commit.md");
    expect(log.purpose).toBe("the purpose");
    expect(log.entries.map((e) => e.n)).toEqual([1, 2]);
    expect(log.entries[0]?.contribution).toBe(tricky);
    expect(log.entries[1]?.note).toBe("merge of x");
    expect(log.entries[1]?.raw.startsWith("## Commit 2 · 2024-01-01T00:01:00Z · merge of x")).toBe(true);
    expect(escapeText("## Commit 9 · x")).toBe("\\## Commit 9 · x");
  });

  it("running summary: previous plus contribution, or the one given", () => {
    const log = parseCommitLog(
      renderHeader("b", "p") + renderEntry({ n: 1, date: "d", note: null, purpose: "p", summary: "old", contribution: "c" }),
      "b",
      "commit.md",
    );
    expect(nextSummary(log, "new step")).toBe("old\nnew step");
    expect(nextSummary(log, "new step", "rewritten")).toBe("rewritten");
    expect(nextSummary(parseCommitLog(renderHeader("b", "p"), "b", "commit.md"), "first")).toBe("first");
  });
});

describe("window", () => {
  const text = Array.from({ length: 300 }, (_, i) => `line ${i} ${"x".repeat(20)}`).join("\n");

  it("never returns more than the limit and pages through everything", () => {
    let offset = 0;
    let seen = "";
    for (let guard = 0; guard < 100; guard++) {
      const w = windowText(text, offset, 500);
      expect(w.length).toBeLessThanOrEqual(500);
      const body = w.slice(0, w.lastIndexOf("\n[shown: "));
      seen += body;
      const next = /the rest from offset (\d+)/.exec(w);
      if (!next) break;
      offset = Number(next[1]);
    }
    expect(seen.replace(/\n/g, "")).toBe(text.replace(/\n/g, ""));
  });

  it("returns short text unchanged and points back from a later window", () => {
    expect(windowText("short", 0, 500)).toBe("short");
    expect(windowText(text, 1000, 500)).toMatch(/earlier text from offset \d+\]$/);
  });
});

describe("trace (log.md)", () => {
  it("renders one record with its parts", () => {
    expect(renderTraceRecord({ observation: "o", thought: "t\nmore", action: "a" }, "T")).toBe(
      "\n### T\n- observation: o\n- thought: t\n  more\n- action: a\n",
    );
  });

  it("carries only what is new since the merge base", () => {
    expect(newTrace("# h\nA\nB\n", "# h\nA\n")).toBe("B\n");
    expect(newTrace("# Trace of memory branch `x`\nA\n", null)).toBe("A\n");
  });
});

describe("metadata.yaml", () => {
  const facts = factsFromFiles(["a/package.json", "b.txt", ".GCC/main.md"], ".GCC");

  it("derives file structure and manifests, without the memory folder", () => {
    expect(facts.structure).toEqual({ file_count: 2, files: ["a/package.json", "b.txt"], truncated: false });
    expect(facts.manifests).toEqual(["a/package.json"]);
  });

  it("refreshes derived segments and keeps the user's segments and comments", () => {
    const user = "# mine\nnotes:\n  - keep me # important\nfile_structure: old\n";
    const out = refreshMetadata(user, "m.yaml", facts);
    expect(out).toContain("# important");
    expect(parse(out)).toEqual({
      notes: ["keep me"],
      file_structure: facts.structure,
      dependencies: { manifests: ["a/package.json"] },
      env_config: { file_tree: { "a/": 1, "b.txt": 1 }, dependencies: ["a/package.json"], environment: { platform: process.platform, arch: process.arch } },
    });
    expect(segmentText(out, "m.yaml", "notes")).toBe("notes:\n  - keep me\n");
    expect(() => segmentText(out, "m.yaml", "nope")).toThrow(/segments: notes, file_structure, (dependencies, env_config|env_config, dependencies)/);
    expect(() => refreshMetadata("a: [", "m.yaml", facts)).toThrow(/not valid YAML/);
  });
});

describe("conflict tags", () => {
  it("turns merge-file markers into tags naming both branches", () => {
    const merged = `a\n${"<".repeat(23)} main\nours\n${"=".repeat(23)}\ntheirs\n${">".repeat(23)} feat\nz\n`;
    expect(tagConflicts(merged, "main", "feat")).toBe(
      "a\n<!-- memory merge kept both sides; from `main`: -->\nours\n<!-- from `feat`: -->\ntheirs\n<!-- end of both sides -->\nz\n",
    );
  });
});

describe("lock", () => {
  it("serialises holders", async () => {
    const file = path.join(tmp, "serial.lock");
    const order: string[] = [];
    const job = (name: string) =>
      withLock(file, async () => {
        order.push(`${name}+`);
        await new Promise((r) => setTimeout(r, 20));
        order.push(`${name}-`);
      });
    await Promise.all([job("a"), job("b"), job("c")]);
    for (let i = 0; i < order.length; i += 2) expect(order[i]?.[0]).toBe(order[i + 1]?.[0]);
    expect(existsSync(file)).toBe(false);
  });

  it("takes over a lock left by a dead process", async () => {
    const file = path.join(tmp, "stale.lock");
    writeFileSync(file, "999999999 0 dead\n");
    expect(await withLock(file, async () => String((JSON.parse(readFileSync(file, "utf8")) as { pid: number }).pid))).toBe(String(process.pid));
    expect(existsSync(file)).toBe(false);
  });

  it("gives up on a lock a live process holds", async () => {
    const file = path.join(tmp, "live.lock");
    writeFileSync(file, `${process.ppid} 0 alive\n`);
    await expect(withLock(file, async () => 1, { timeoutMs: 100 })).rejects.toMatchObject({ code: "LOCKED" });
    expect(readFileSync(file, "utf8")).toBe(`${process.ppid} 0 alive\n`);
  });
});
