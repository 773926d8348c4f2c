import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleToJson, type Sample } from "../../src/dataset/sample.js";
import { mine } from "../../src/mining/mine.js";
import { compareReports, runLabels } from "../../src/report/compare.js";
import { readStaticPage } from "../../src/report/html-read.js";
import { buildReport } from "../../src/report/summary.js";
import { formatComparison } from "../../src/report/text.js";
import { gitgood } from "../helpers/cli.js";
import { Fixture } from "../helpers/fixture.js";
import { rec, writeRun } from "./records.js";

let fx: Fixture;
let samples: Sample[];
let env: Record<string, string>;
let runs: { theirs: string; ours: string };

const io = (l3: string) => Fixture.lines("io", 20).replace("io3\n", `${l3}\n`);
const calc = (l5: string) => Fixture.lines("c", 20).replace("c5\n", `${l5}\n`);

/**
 * Two merges whose recorded resolutions took the merged branch's side ("theirs") of every conflict:
 * a clean one, and an evil one that also edited a file without conflicts. The `theirs` baseline
 * reproduces the conflicted files of both, but only the clean merge's tree; `ours` neither.
 */
beforeAll(async () => {
  fx = new Fixture();
  fx.git("remote", "add", "origin", "https://github.com/acme/calc.git");
  fx.commit("Initial", { "io.py": Fixture.lines("io", 20), "calc.py": Fixture.lines("c", 20), "other.py": Fixture.lines("o", 10) });
  fx.checkout("topic", true);
  fx.commit("Topic io", { "io.py": io("io3 = 'topic'") });
  fx.checkout("main");
  fx.commit("Main io", { "io.py": io("io3 = 'main'") });
  fx.merge("topic", { "io.py": io("io3 = 'topic'") });
  fx.checkout("evil", true);
  fx.commit("Evil side", { "calc.py": calc("c5 = 'evil'") });
  fx.checkout("main");
  fx.commit("Main calc", { "calc.py": calc("c5 = 'main'") });
  fx.merge("evil", { "calc.py": calc("c5 = 'evil'"), "other.py": Fixture.lines("o", 10).replace("o2\n", "o2 = 'edited in the merge'\n") });
  fx.git("branch", "-D", "topic", "evil");
  ({ samples } = await mine({ repoPath: fx.dir, name: "acme/calc", type: "merge" }));
  const samplesFile = path.join(fx.scratch("data"), "samples.jsonl");
  writeFileSync(samplesFile, samples.map((s) => `${sampleToJson(s)}\n`).join(""));
  env = { GITGOOD_SANDBOX_ROOT: fx.scratch("sandboxes") };
  runs = { theirs: path.join(fx.scratch("runs"), "theirs"), ours: path.join(fx.scratch("runs"), "ours") };
  for (const agent of ["theirs", "ours"] as const) {
    const r = await gitgood(["run", samplesFile, "--repo", fx.dir, "--agent", agent, "--out", runs[agent]], { env });
    if (r.code !== 0) throw new Error(`the ${agent} run failed: ${r.stderr}`);
  }
});
afterAll(() => fx.remove());

/** Each run's verdict per sample, read from its results file: the oracle for what the comparison says. */
const verdicts = (dir: string): Map<string, string> =>
  new Map(
    readFileSync(path.join(dir, "results.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { sample_id: string; verdict: string })
      .map((r) => [r.sample_id, r.verdict]),
  );

describe("gitgood report RUN_A RUN_B", () => {
  it("lists the samples one run solves and the other does not, in text and JSON", async () => {
    expect(samples.map((s) => s.id)).toEqual(["acme_calc_merge_0000", "acme_calc_merge_0001"]);
    const theirs = verdicts(runs.theirs);
    const ours = verdicts(runs.ours);
    const differing = samples.map((s) => s.id).filter((id) => theirs.get(id) !== ours.get(id));
    expect(differing).toEqual(["acme_calc_merge_0000"]);
    const languages = readFileSync(path.join(runs.theirs, "results.jsonl"), "utf8").trim().split("\n").map((l) => (JSON.parse(l) as { programming_language: unknown }).programming_language);
    expect(languages).toEqual(samples.map((s) => s.programming_language));
    expect(languages[0]).toBe("Python");

    const text = await gitgood(["report", runs.theirs, runs.ours], { env });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^scenario\s+theirs completed\s+theirs solved\s+ours completed\s+ours solved$/m);
    expect(text.stdout).toMatch(/^MCR\s+100\.00\s+50\.00\s+100\.00\s+0\.00$/m);
    expect(text.stdout).toMatch(/^MCR\s+easy\s+100\.00\s+50\.00\s+100\.00\s+0\.00$/m);
    expect(text.stdout).toContain("Samples solved in one run and not in another: 1\n");
    expect(text.stdout).toMatch(/^acme_calc_merge_0000\s+MCR\s+easy\s+solved\s+unsolved$/m);
    expect(text.stdout).not.toMatch(/^acme_calc_merge_0001/m);

    const json = await gitgood(["report", runs.theirs, runs.ours, "--json"], { env });
    const c = JSON.parse(json.stdout) as ReturnType<typeof compareReports>;
    expect(c.runs.map((r) => [r.label, r.dir])).toEqual([
      ["theirs", runs.theirs],
      ["ours", runs.ours],
    ]);
    expect(c.differences.map((d) => [d.sample_id, ...d.outcomes.map((o) => o?.verdict)])).toEqual(differing.map((id) => [id, theirs.get(id), ours.get(id)]));
    expect(c.totals.find((r) => r.scenario === "MCR")?.cells.map((x) => x?.solve_rate)).toEqual([50, 0]);
  });

  it("writes one HTML page with both runs, every attempt with its transcript, and links to each run's trajectories", async () => {
    const page = path.join(fx.scratch("pages"), "compare.html");
    const r = await gitgood(["report", runs.theirs, runs.ours, "--html", page], { env });
    expect([r.code, r.stderr]).toEqual([0, `wrote ${page}\n`]);
    const data = readStaticPage(readFileSync(page, "utf8"));
    expect(data.index.runs.map((x) => x.label)).toEqual(["theirs", "ours"]);
    // The samples the runs disagree on are the comparison's (the page's "disagree" filter is clicked in test/report/html-browser.test.ts).
    const verdicts = (run: number) => new Map(data.index.rows.filter((x) => x.run === run).map((x) => [`${x.sample_id}/${x.scenario}`, x.verdict]));
    const [a, b] = [verdicts(0), verdicts(1)];
    expect([...a.keys()].filter((k) => b.has(k) && a.get(k) !== b.get(k))).toEqual(["acme_calc_merge_0000/MCR"]);
    const attempts = data.attempts();
    const links = attempts.flatMap((x) => (x.href ? [x.href] : []));
    expect(links).toHaveLength(4);
    for (const link of links) {
      expect(link).toMatch(/^\.\.\/runs\/(theirs|ours)\/trajectories\//);
      expect(existsSync(path.resolve(path.dirname(page), decodeURIComponent(link)))).toBe(true);
    }
    expect(attempts.some((x) => x.turns.some((t) => t.calls.some((c) => c.name === "resolve_current_merge_conflict_with")))).toBe(true);
  });

  it("shows the whole tree against the ground truth: the file the merge edited without a conflict too, and calls only a whole-tree match identical", async () => {
    const trajectory = (dir: string, id: string) =>
      JSON.parse(readFileSync(path.join(dir, "trajectories", `${id}.MCR.json`), "utf8")) as { ground_truth_diff: string; scores: { exact_match: { tree_matches: boolean } } };
    // The conflicted file matches in both merges; only the clean one's tree does: the evil one's edit of other.py is missing.
    expect(trajectory(runs.theirs, "acme_calc_merge_0000")).toMatchObject({ ground_truth_diff: "", scores: { exact_match: { tree_matches: true } } });
    const evil = trajectory(runs.theirs, "acme_calc_merge_0001");
    expect(evil.scores.exact_match.tree_matches).toBe(false);
    const lines = evil.ground_truth_diff.split("\n");
    expect(lines[1]).toMatch(/^index [0-9a-f]+\.\.[0-9a-f]+ 100644$/);
    expect([lines[0], ...lines.slice(2)]).toEqual([
      "diff --git a/other.py b/other.py",
      "--- a/other.py",
      "+++ b/other.py",
      "@@ -1,6 +1,6 @@",
      " o0",
      " o1",
      "-o2 = 'edited in the merge'",
      "+o2",
      " o3",
      " o4",
      " o5",
      "",
    ]);
    // `ours` differs from the recorded merge in the conflicted file and in the clean one.
    const ours = trajectory(runs.ours, "acme_calc_merge_0001").ground_truth_diff;
    expect(ours.match(/^diff --git .*$/gm)).toEqual(["diff --git a/calc.py b/calc.py", "diff --git a/other.py b/other.py"]);
    expect(ours).toContain("-c5 = 'evil'\n+c5 = 'main'\n");
    const page = path.join(fx.scratch("pages"), "theirs.html");
    expect((await gitgood(["report", runs.theirs, "--html", page], { env })).code).toBe(0);
    const data = readStaticPage(readFileSync(page, "utf8"));
    const item = (id: string) => JSON.stringify(data.attempt(0, `${id}.MCR`)?.family ?? []);
    expect(item("acme_calc_merge_0000")).toContain("Identical to the ground truth.");
    expect(item("acme_calc_merge_0001")).not.toContain("Identical");
    expect(item("acme_calc_merge_0001")).toContain("+o2\\n");
  });

  it("takes the directory gitgood bench printed (its run is in run/) and labels the run by it", async () => {
    const benchA = fx.scratch("bench-a");
    const benchB = fx.scratch("bench-b");
    writeRun(path.join(benchA, "run"), [rec("s1", "IR")]);
    writeRun(path.join(benchB, "run"), [rec("s1", "IR", { solved: false })]);
    const one = await gitgood(["report", benchA]);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toMatch(/^IR\s+1\s/m);
    const both = await gitgood(["report", benchA, benchB, "--json"]);
    expect(both.code, both.stderr).toBe(0);
    expect((JSON.parse(both.stdout) as { runs: { label: string }[] }).runs.map((r) => r.label)).toEqual(["bench-a", "bench-b"]);
  });

  it("refuses a run given twice, and a directory that is not a run, in one line", async () => {
    expect(await gitgood(["report", runs.theirs, `${runs.theirs}/`])).toEqual({ code: 2, stdout: "", stderr: `gitgood: the run directory ${runs.theirs}/ is given twice\n` });
    const r = await gitgood(["report", runs.theirs, fx.dir]);
    expect([r.code, r.stderr]).toEqual([1, `gitgood: ${fx.dir} is not a gitgood run directory (no run.json)\n`]);
  });
});

describe("compareReports", () => {
  it("compares repeats by their share of solved attempts, a memory variant apart, and ignores samples only one run has", () => {
    const a = buildReport({ records: [
      rec("s1", "IR", { solved: true }),
      rec("s1", "IR", { solved: false, repeat: 1 }),
      rec("s2", "IR", { solved: true }),
      rec("s2", "IR", { solved: true, agent: "llm:tiny+memory" }),
      rec("only-a", "IR", { solved: true }),
    ] });
    const b = buildReport({ records: [
      rec("s1", "IR", { solved: false }),
      rec("s1", "IR", { solved: true, repeat: 1 }),
      rec("s2", "IR", { solved: true }),
      rec("s2", "IR", { solved: false, agent: "llm:tiny+memory" }),
      rec("only-b", "IR", { solved: false }),
    ] });
    const c = compareReports([
      { label: "a", dir: "runs/a", report: a },
      { label: "b", dir: "runs/b", report: b },
    ]);
    expect(c.columns.map((col) => col.name)).toEqual(["a llm:tiny", "a llm:tiny+memory", "b llm:tiny", "b llm:tiny+memory"]);
    expect(c.differences.map((d) => [`${d.sample_id}${d.variant}`, ...d.outcomes.map((o) => (o ? `${o.solved}/${o.attempts} ${o.verdict}` : null))])).toEqual([
      ["s2+memory", "1/1 solved", "0/1 unsolved"],
    ]);
    const text = formatComparison(c);
    expect(text).toMatch(/^s2\+memory\s+IR\s+easy\s+solved\s+unsolved$/m);
    const mixed = compareReports([
      { label: "a", dir: "a", report: a },
      { label: "c", dir: "c", report: buildReport({ records: [rec("s1", "IR", { solved: false }), rec("s1", "IR", { solved: false, repeat: 1 })] }) },
    ]);
    expect(formatComparison(mixed)).toMatch(/^s1\s+IR\s+easy\s+1\/2 solved\s+0\/2 solved$/m);
  });

  it("compares cost, tokens, turns, time and errors on the shared samples only, each mean with the attempts it counts", () => {
    const a = buildReport({ records: [
      rec("s1", "IR", { cost_usd: 0.02, turns: 4, duration_ms: 2000 }),
      rec("s2", "IR", { cost_usd: 0.04, turns: 6, duration_ms: 4000, tokens: { prompt: 100, completion: 20 } }),
      // Only in a: left out of every measure, as of the rates.
      rec("only-a", "IR", { cost_usd: 9, turns: 99, duration_ms: 99_000 }),
    ] });
    const b = buildReport({ records: [
      rec("s1", "IR", { turns: 2, duration_ms: 1000 }),
      rec("s2", "IR", { status: "error", solved: false, turns: 0, duration_ms: 500, usage_known: false, error: { code: "MODEL_ERROR", message: "m" } }),
    ] });
    const c = compareReports([
      { label: "a", dir: "a", report: a },
      { label: "b", dir: "b", report: b },
    ]);
    expect(c.overlap).toEqual({ shared: 2, only: [1, 0] });
    const [ca, cb] = c.totals.find((r) => r.scenario === "total")?.cells ?? [];
    expect(ca).toMatchObject({ samples: 2, errors: 0, cost_usd: { total: 0.06, of: 2 }, tokens: { total: 135, mean: 67.5, of: 2 }, turns: { total: 10, mean: 5, of: 2 }, duration_ms: { mean: 3000, of: 2 } });
    expect(ca?.cost_usd?.mean).toBeCloseTo(0.03);
    // b is unpriced (no cost, not $0) and one attempt's usage is unknown: its tokens count over the other one.
    expect(cb).toMatchObject({ samples: 2, errors: 1, cost_usd: null, tokens: { total: 15, of: 1 }, turns: { mean: 1, of: 2 }, duration_ms: { mean: 750, of: 2 } });
    const text = formatComparison(c);
    expect(text).toMatch(/^total\s+cost\/attempt\s+\$0\.0300 \(n=2\)\s+-$/m);
    expect(text).toMatch(/^total\s+tokens\/attempt\s+68 \(n=2\)\s+15 \(n=1\)$/m);
    expect(text).toMatch(/^IR\s+turns\/attempt\s+5\.0 \(n=2\)\s+1\.0 \(n=2\)$/m);
    expect(text).toMatch(/^IR\s+time\/attempt\s+3\.0s \(n=2\)\s+0\.8s \(n=2\)$/m);
    expect(text).toMatch(/^IR\s+errors\s+0\/2\s+1\/2$/m);
  });

  it("labels runs by their directory's name, and by the path where two names clash", () => {
    expect(runLabels(["runs/gpt", "runs/claude/"])).toEqual(["gpt", "claude"]);
    expect(runLabels(["a/run", "b/run", "c/other"])).toEqual(["a/run", "b/run", "other"]);
  });
});
