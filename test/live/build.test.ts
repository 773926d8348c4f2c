import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sample } from "../../src/dataset/sample.js";
import { buildRelease } from "../../src/live/build.js";
import { readPins } from "../../src/live/pins.js";
import { gitgood } from "../helpers/cli.js";
import { treeDigests } from "../helpers/digests.js";
type Fixture = RepoFixture;
import { Fixture as RepoFixture } from "../helpers/fixture.js";
import { buildRunFixture, tempDirs } from "../helpers/runs.js";

let fx: Fixture;
let dirs: ReturnType<typeof tempDirs>;
let head: string;
let pinsFile: string;
/** The user's repository as it was before any build: every ref and object. */
let before: string;

const state = (): string => `${fx.git("for-each-ref", "--format=%(refname) %(objectname)")}\n${fx.git("count-objects", "-v")}\n${fx.git("reflog", "--all")}`;


const SINCE = Date.parse("2024-01-01T00:03:00Z") / 1000;

beforeAll(async () => {
  ({ fx } = await buildRunFixture());
  dirs = tempDirs();
  head = fx.git("rev-parse", "HEAD");
  pinsFile = path.join(fx.scratch("pins"), "pins.yaml");
  writeFileSync(pinsFile, `repositories:\n  - name: acme/calc\n    commit: ${head}\n    path: ${JSON.stringify(fx.dir)}\n`);
  before = state();
});
afterAll(() => {
  dirs.cleanup();
  fx.remove();
});

const build = (out: string, until: number | null = null) =>
  buildRelease({ pins: readPins(pinsFile), window: { since: SINCE, until }, out, clone: false, cacheDir: `${dirs.out}-cache`, jobs: 2 });

describe("gitgood live build", () => {
  it("writes a release of every family inside the window, gated, with its manifest, and leaves the user's repository as it was", async () => {
    const out = `${dirs.out}-a`;
    const summary = await build(out);
    expect(summary.canary.reached).toBe(0);
    expect(summary.canary.sandboxes).toBeGreaterThan(0);
    const samples = readFileSync(path.join(out, "samples.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l) as Sample);
    expect(new Set(samples.map((s) => s.sample_type))).toEqual(new Set(["merge", "file_commit_chain"]));
    // Every task's date is its commit's committer date in git, and inside the window.
    for (const s of samples) {
      const commit = s.sample_type === "merge" ? s.scenario.merge_commit_hash : s.sample_type === "file_commit_chain" ? s.scenario.newest_commit : "";
      const gitDate = Number(fx.git("log", "-1", "--format=%ct", commit));
      expect((s.scenario as { committed_at?: string }).committed_at).toBe(new Date(gitDate * 1000).toISOString().replace(/\.\d{3}Z$/, "Z"));
      expect(gitDate).toBeGreaterThanOrEqual(SINCE);
    }
    const manifest = JSON.parse(readFileSync(path.join(out, "manifest.json"), "utf8")) as {
      repositories: { name: string; commit: string; kept: Record<string, number> }[];
      window: { since: string; until: string | null };
      counts: { samples: number };
      gate: { tasks: number; dropped: number; drops: unknown[] };
      canary: { sandboxes_checked: number; export_files_checked: number; reached: number };
      files: Record<string, string>;
    };
    expect(manifest.repositories.map((r) => [r.name, r.commit])).toEqual([["acme/calc", head]]);
    expect(manifest.window).toEqual({ since: "2024-01-01T00:03:00Z", until: null });
    expect(manifest.counts.samples).toBe(samples.length);
    expect(manifest.gate.tasks).toBeGreaterThanOrEqual(samples.length);
    expect(manifest.gate.drops.length).toBe(manifest.gate.dropped);
    expect(manifest.canary).toMatchObject({ reached: 0 });
    expect(manifest.canary.sandboxes_checked).toBe(summary.canary.sandboxes);
    expect(manifest.canary.export_files_checked).toBeGreaterThan(0);
    // Every file but the manifest is named with its digest, and the splits are what `dataset split` reads.
    const files = treeDigests(out);
    expect(Object.keys(manifest.files).sort()).toEqual(Object.keys(files).filter((f) => f !== "manifest.json").sort());
    for (const [name, digest] of Object.entries(manifest.files)) expect(files[name]).toBe(digest);
    const split = await gitgood(["dataset", "split", path.join(out, "samples.jsonl"), "--lite", "0", "--full", "0", "-o", `${out}-resplit`]);
    expect(split.code, split.stderr).toBe(0);
    // The user's repository: the same refs, objects and reflog; no canary in it.
    expect(state()).toBe(before);
    expect(fx.git("log", "--all", "--format=%B")).not.toContain("gitgood-canary");
  }, 240_000);

  it("drops the tasks a window's end excludes", async () => {
    const out = `${dirs.out}-until`;
    const until = Date.parse("2024-01-01T00:09:00Z") / 1000;
    await build(out, until);
    const samples = readFileSync(path.join(out, "samples.jsonl"), "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l) as Sample);
    for (const s of samples) expect(Date.parse((s.scenario as { committed_at?: string }).committed_at ?? "") / 1000).toBeLessThanOrEqual(until);
    const all = readFileSync(path.join(`${dirs.out}-a`, "samples.jsonl"), "utf8").trim().split("\n").length;
    expect(samples.length).toBeLessThan(all);
  }, 240_000);

  it("mines several repositories and drops, with its reason, a merge the QA gate refuses", async () => {
    // A merge whose recorded resolution also changed a line outside its conflict: replacing conflict regions cannot reproduce it.
    const other = new RepoFixture();
    try {
      const lines = (over: Record<number, string>) => `${Array.from({ length: 20 }, (_, i) => over[i] ?? `v${i}`).join("\n")}\n`;
      other.commit("Base", { "util.py": lines({}) });
      other.checkout("topic", true);
      other.commit("Topic edits line 3", { "util.py": lines({ 3: "v3 = 'topic'" }) });
      other.checkout("main");
      other.commit("Main edits line 3", { "util.py": lines({ 3: "v3 = 'main'" }) });
      other.merge("topic", { "util.py": lines({ 3: "v3 = 'both'", 15: "v15 = 'sneaked in'" }) });
      const pins = path.join(path.dirname(pinsFile), "two.yaml");
      writeFileSync(pins, `repositories:\n  - name: acme/util\n    commit: ${other.git("rev-parse", "HEAD")}\n    path: ${JSON.stringify(other.dir)}\n  - name: acme/calc\n    commit: ${head}\n    path: ${JSON.stringify(fx.dir)}\n`);
      const out = `${dirs.out}-two`;
      await buildRelease({ pins: readPins(pins), window: { since: SINCE, until: null }, out, clone: false, cacheDir: `${dirs.out}-cache`, jobs: 2 });
      const manifest = JSON.parse(readFileSync(path.join(out, "manifest.json"), "utf8")) as {
        repositories: { name: string; mined: { merge: number }; kept: { merge: number } }[];
        gate: { drops: { repository: string; scenario: string; reason: string }[]; dropped_by_reason: Record<string, { count: number }> };
      };
      expect(manifest.repositories.map((r) => r.name)).toEqual(["acme/calc", "acme/util"]);
      expect(manifest.repositories[1]).toMatchObject({ mined: { merge: 1 }, kept: { merge: 0 } });
      expect(manifest.gate.drops).toEqual([expect.objectContaining({ repository: "acme/util", scenario: "MCR", reason: "unresolvable" })]);
      expect(manifest.gate.dropped_by_reason["unresolvable"]?.count).toBe(1);
      const ids = readFileSync(path.join(out, "samples.jsonl"), "utf8").trim().split("\n").map((l) => (JSON.parse(l) as Sample).name);
      expect(new Set(ids)).toEqual(new Set(["acme/calc"]));
    } finally {
      other.remove();
    }
  }, 240_000);

  it("writes the same bytes on a second build, into a new directory or over its own release", async () => {
    const first = treeDigests(`${dirs.out}-a`);
    const out = `${dirs.out}-b`;
    await build(out);
    expect(treeDigests(out)).toEqual(first);
    await build(out);
    expect(treeDigests(out)).toEqual(first);
  }, 240_000);

  it("refuses, in one line, a non-empty directory that is not a release of the same pins", async () => {
    const other = `${dirs.out}-other`;
    mkdirSync(other, { recursive: true });
    writeFileSync(path.join(other, "notes.txt"), "mine\n");
    const pins = path.join(path.dirname(pinsFile), "other.yaml");
    const parent = fx.git("rev-parse", "HEAD~1");
    writeFileSync(pins, `repositories:\n  - name: acme/calc\n    commit: ${parent}\n    path: ${JSON.stringify(fx.dir)}\n`);
    for (const [file, out] of [
      [pinsFile, other],
      [pins, `${dirs.out}-a`],
    ] as const) {
      const r = await gitgood(["live", "build", file, "--since", "2024-01-01T00:03:00Z", "--out", out]);
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
      expect(r.stderr).toMatch(/not a release of these pins/);
    }
    expect(readFileSync(path.join(other, "notes.txt"), "utf8")).toBe("mine\n");
    const bad = path.join(path.dirname(pinsFile), "bad.yaml");
    writeFileSync(bad, "repositories:\n  - name: acme/calc\n    commit: HEAD\n");
    const r = await gitgood(["live", "build", bad, "--since", "2024-01-01", "--out", `${dirs.out}-never`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/commit: a full lower-case commit id/);
    expect(existsSync(`${dirs.out}-never`)).toBe(false);
  }, 60_000);

  it("clones a repository with no path from the pins' url_pattern into --repos with --clone", async () => {
    const root = path.dirname(path.dirname(fx.dir));
    const pins = path.join(path.dirname(pinsFile), "remote.yaml");
    // The fixture lives at ROOT/<tmp>/repo: a file:// pattern names it as owner/repo.
    const name = `${path.basename(path.dirname(fx.dir))}/repo`;
    writeFileSync(pins, `url_pattern: file://${root}/{name}\nrepositories:\n  - name: ${name}\n    commit: ${head}\n`);
    const without = await gitgood(["live", "build", pins, "--since", "2024-01-01", "--out", `${dirs.out}-noclone`]);
    expect(without.code).toBe(2);
    expect(without.stderr).toMatch(/give --clone/);
    const out = `${dirs.out}-clone`;
    const r = await gitgood(["live", "build", pins, "--since", "2024-01-01T00:03:00Z", "--out", out, "--clone", "--repos", `${dirs.out}-cache`, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(path.join(`${dirs.out}-cache`, name, "HEAD"))).toBe(true);
    const a = readFileSync(path.join(`${dirs.out}-a`, "samples.jsonl"), "utf8").trim().split("\n").length;
    expect(readFileSync(path.join(out, "samples.jsonl"), "utf8").trim().split("\n")).toHaveLength(a);
  }, 240_000);
});
