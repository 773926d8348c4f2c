import { describe, expect, it } from "vitest";
import { renderStaticPage } from "../../src/report/html.js";
import { readStaticPage } from "../../src/report/html-read.js";
import { passAtK } from "../../src/report/repeats.js";
import { buildReport, type RateRow } from "../../src/report/summary.js";
import { formatReport } from "../../src/report/text.js";
import type { ResultRecord } from "../../src/runs/record.js";
import { rec } from "./records.js";

const mcr = (id: string, difficulty: ResultRecord["difficulty"], language: string, resolvable: boolean | null, solved: boolean) =>
  rec(id, "MCR", { difficulty, programming_language: language, resolvable, solved });

/** Six merges (four resolvable) and a chain, in three languages. */
const records = [
  mcr("m1", "easy", "Python", true, true),
  mcr("m2", "easy", "Python", true, false),
  mcr("m3", "easy", "Java", false, false),
  mcr("m4", "easy", "Java", true, true),
  mcr("h1", "hard", "Kotlin", false, false),
  mcr("h2", "hard", "Python", true, false),
  rec("c1", "IR", { programming_language: "Python", resolvable: null }),
];

const ceilingOf = (r: RateRow | undefined) => [r?.samples, r?.resolvable, r?.ceiling, r?.solve_rate, r?.solve_rate_resolvable];

describe("the MCR ceiling", () => {
  it("gives the share of resolvable samples beside the solve rate, and the solve rate among them, per scenario and difficulty", () => {
    const report = buildReport({ records });
    const total = (s: string) => report.totals.find((r) => r.scenario === s);
    const byDifficulty = (d: string) => report.by_difficulty.find((r) => r.scenario === "MCR" && r.difficulty === d);
    expect(ceilingOf(total("MCR"))).toEqual([6, 4, 66.67, 33.33, 50]);
    expect(ceilingOf(byDifficulty("easy"))).toEqual([4, 3, 75, 50, 66.67]);
    expect(ceilingOf(byDifficulty("hard"))).toEqual([2, 1, 50, 0, 0]);
    // Chains have no ceiling, so neither has a total over both.
    expect(ceilingOf(total("IR"))).toEqual([1, 0, null, 100, null]);
    expect(total("total")?.ceiling).toBeNull();
  });

  it("gives no ceiling for a group where some record does not say (older results), nor a solve rate among resolvable with unjudged ones", () => {
    const report = buildReport({ records: [mcr("m1", "easy", "Python", true, true), rec("m0", "MCR", { programming_language: "Python" })] });
    expect(ceilingOf(report.totals.find((r) => r.scenario === "MCR"))).toEqual([2, 1, null, 100, null]);
    const unjudged = buildReport({ records: [mcr("m1", "easy", "Python", true, true), rec("m2", "MCR", { resolvable: true, solved: null })] });
    expect(unjudged.totals.find((r) => r.scenario === "MCR")).toMatchObject({ ceiling: 100, solve_rate: null, solve_rate_resolvable: null });
  });

  it("shows the ceiling columns in the text only when samples say which are resolvable", () => {
    const text = formatReport(buildReport({ records }));
    expect(text).toMatch(/^scenario\s+samples\s+completed\s+solved\s+infra errors\s+agent errors\s+other errors\s+ceiling\s+solve \(resolvable\)$/m);
    expect(text).toMatch(/^MCR\s+6\s+100\.00\s+33\.33\s+0\s+0\s+0\s+66\.67\s+50\.00$/m);
    expect(text).toMatch(/^MCR\s+easy\s+4\s+100\.00\s+50\.00\s+0\s+0\s+0\s+75\.00\s+66\.67$/m);
    expect(text).toMatch(/^IR\s+1\s+100\.00\s+100\.00\s+0\s+0\s+0\s+-\s+-$/m);
    expect(formatReport(buildReport({ records: [rec("c1", "IR")] }))).not.toContain("ceiling");
  });
});

describe("per-language tables", () => {
  it("give success and solve per scenario and in total for each language, from the records' programming_language", () => {
    const rows = buildReport({ records }).by_language.map((r) => [r.language, r.scenario, r.samples, r.success_rate, r.solve_rate]);
    expect(rows).toEqual([
      ["Java", "MCR", 2, 100, 50],
      ["Java", "total", 2, 100, 50],
      ["Kotlin", "MCR", 1, 100, 0],
      ["Kotlin", "total", 1, 100, 0],
      ["Python", "IR", 1, 100, 100],
      ["Python", "MCR", 3, 100, 33.33],
      ["Python", "total", 4, 100, 50],
    ]);
    const text = formatReport(buildReport({ records }));
    expect(text).toMatch(/^Per language\nlanguage\s+scenario\s+samples/m);
    expect(text).toMatch(/^Python\s+MCR\s+3\s+100\.00\s+33\.33\s/m);
  });

  it("puts records without a language under 'unknown', and leaves the section out when no record names one", () => {
    const report = buildReport({ records: [rec("c1", "IR"), rec("c2", "IR", { programming_language: null })] });
    expect(report.by_language.map((r) => [r.language, r.scenario, r.samples])).toEqual([
      ["unknown", "IR", 2],
      ["unknown", "total", 2],
    ]);
    expect(formatReport(report)).not.toContain("Per language");
  });
});

describe("repeats", () => {
  it("pass@k is the unbiased estimator: the chance that k attempts drawn from n include a solved one", () => {
    // The oracle: count the k-subsets of n attempts (c of them solved) that hold a solved one.
    const bruteForce = (n: number, c: number, k: number) => {
      let hit = 0;
      let all = 0;
      for (let mask = 0; mask < 1 << n; mask++) {
        let bits = 0;
        for (let i = 0; i < n; i++) if (mask & (1 << i)) bits++;
        if (bits !== k) continue;
        all++;
        if ((mask & ((1 << c) - 1)) !== 0) hit++;
      }
      return hit / all;
    };
    for (let n = 1; n <= 6; n++) {
      for (let c = 0; c <= n; c++) {
        for (let k = 1; k <= n; k++) expect(passAtK(n, c, k), `n=${n} c=${c} k=${k}`).toBeCloseTo(bruteForce(n, c, k), 12);
      }
    }
    expect(passAtK(5, 2, 2)).toBeCloseTo(0.7, 12);
    expect(() => passAtK(3, 1, 4)).toThrow(RangeError);
  });

  // s1 solved 3 of 3, s2 1 of 3 (both easy), s3 0 of 3 (hard).
  const repeated = [
    ...[0, 1, 2].map((r) => rec("s1", "MCR", { repeat: r, solved: true })),
    ...[0, 1, 2].map((r) => rec("s2", "MCR", { repeat: r, solved: r === 1 })),
    ...[0, 1, 2].map((r) => rec("s3", "MCR", { repeat: r, solved: false, difficulty: "hard" })),
  ];

  it("gives the mean solve rate over samples, its standard error and pass@k per scenario and difficulty", () => {
    const report = buildReport({ records: repeated });
    const row = (difficulty: string) => report.repeats.find((r) => r.scenario === "MCR" && r.difficulty === difficulty);
    // Shares 1, 1/3, 0: mean 4/9; sample variance 42/81 ÷ 2; SE = √(21/81 ÷ 3) = 0.29397.
    expect(row("all")).toMatchObject({ samples: 3, attempts: 9, k: 3, mean_solve_rate: 44.44, standard_error: 29.4, pass_at_k: { "1": 44.44, "2": 55.56, "3": 66.67 } });
    // Shares 1 and 1/3: mean 2/3, SE = √((1/9 + 1/9) ÷ 1 ÷ 2) = 1/3; pass@2 = (1 + 2/3) / 2.
    expect(row("easy")).toMatchObject({ samples: 2, mean_solve_rate: 66.67, standard_error: 33.33, pass_at_k: { "1": 66.67, "2": 83.33, "3": 100 } });
    // One sample: no standard error.
    expect(row("hard")).toMatchObject({ samples: 1, mean_solve_rate: 0, standard_error: null, pass_at_k: { "1": 0, "2": 0, "3": 0 } });
    // The pooled rate of the usual table is the mean over attempts.
    expect(report.totals.find((r) => r.scenario === "MCR")).toMatchObject({ samples: 9, solved: 4, solve_rate: 44.44 });
    const text = formatReport(report);
    expect(text).toMatch(/^scenario\s+difficulty\s+samples\s+k\s+mean solve\s+± SE\s+pass@1\s+pass@k$/m);
    expect(text).toMatch(/^MCR\s+all\s+3\s+3\s+44\.44\s+29\.40\s+44\.44\s+66\.67$/m);
    expect(text).toMatch(/^s2\s+MCR\s+easy\s+1\s+success\s+solved\s/m);
  });

  it("gives pass@k only up to the fewest attempts of a sample, no rates over unjudged attempts, and no section without repeats", () => {
    const uneven = buildReport({ records: [...repeated, rec("s4", "MCR", { solved: true })] });
    expect(uneven.repeats.find((r) => r.scenario === "MCR" && r.difficulty === "all")).toMatchObject({ k: 1, pass_at_k: { "1": 58.33 } });
    const unjudged = buildReport({ records: [rec("c1", "IR", { solved: null }), rec("c1", "IR", { repeat: 1 })] });
    expect(unjudged.repeats.find((r) => r.scenario === "IR" && r.difficulty === "all")).toMatchObject({ unjudged: 1, mean_solve_rate: null, pass_at_k: null });
    const single = buildReport({ records });
    expect(single.repeats).toEqual([]);
    expect(formatReport(single)).not.toContain("Repeats");
  });
});

describe("usage", () => {
  it("sums judge tokens and cost and cache hits where records have them, ignoring malformed values", () => {
    const report = buildReport({ records: [
      rec("a", "IR", { cache_hits: 2, judge_tokens: { prompt: 100, completion: 20 }, judge_cost_usd: 0.001 }),
      rec("b", "IR", { cache_hits: 3, judge_tokens: { prompt: 25, completion: 5 }, judge_cost_usd: 0.002 }),
      // A record written by hand, its judge_tokens not as gitgood writes them, is ignored.
      rec("c", "IR", { judge_tokens: "lots" as never }),
    ] });
    expect([report.cache_hits, report.judge_tokens, report.judge_cost_usd]).toEqual([5, 150, 0.003]);
    expect(report.samples.map((s) => s.cache_hits)).toEqual([2, 3, null]);
    expect(formatReport(report)).toMatch(/^tokens: 30 prompt \+ 15 completion, judge tokens 150, judge cost \$0\.0030, cache hits 5$/m);
    const none = buildReport({ records: [rec("a", "IR")] });
    expect([none.cache_hits, none.judge_tokens, none.judge_cost_usd]).toEqual([null, null, null]);
    expect(formatReport(none)).toMatch(/^tokens: 10 prompt \+ 5 completion$/m);
  });

  it("says an unpriced judge is not priced, never $0, in the text and the HTML", () => {
    const report = buildReport({ records: [
      rec("a", "MCR", { judge_tokens: { prompt: 100, completion: 20 }, judge_cost_usd: null }),
      // An attempt no judge looked at records no cost.
      rec("b", "IR", { judge_tokens: { prompt: 0, completion: 0 }, judge_cost_usd: 0 }),
    ] });
    expect(report.judge_cost_usd).toBeNull();
    expect(formatReport(report)).toMatch(/judge tokens 120, judge cost not priced$/m);
    const usage = staticPage([rec("a", "MCR", { judge_tokens: { prompt: 100, completion: 20 }, judge_cost_usd: null }), rec("b", "IR", { judge_tokens: { prompt: 0, completion: 0 }, judge_cost_usd: 0 })]).data.index.runs[0]?.usage;
    expect(usage).toContain("judge tokens 120 · judge cost not priced");
    expect(usage).not.toContain("judge cost $");
  });
});

describe("the HTML page", () => {
  it("carries every attempt's row with its fields as they are, draws them only as text, and runs nothing but its own script", () => {
    const hostile = `<img src=x onerror="alert('x')">&`;
    const report = [mcr(hostile, "easy", `"><script>alert(1)</script>`, true, true), mcr("m2", "hard", "Java", true, false), rec("c1", "IR", { programming_language: "Java", difficulty: "medium" })];
    const { html, data } = staticPage(report);
    expect(data.index.rows.map((r) => [r.sample_id, r.language, r.difficulty, r.verdict])).toEqual([
      ["c1", "Java", "medium", "solved"],
      [hostile, `"><script>alert(1)</script>`, "easy", "solved"],
      ["m2", "Java", "hard", "unsolved"],
    ]);
    expect(html).not.toContain("<img");
    expect(html).not.toContain("<script>alert");
    // One script runs: the page's own, allowed by its hash; the data blocks are text/plain.
    expect(html.match(/<script>/g)).toHaveLength(1);
    expect(html.match(/<script[^>]*>/g)?.filter((t) => t !== "<script>" && !t.startsWith('<script type="text/plain"'))).toEqual([]);
    expect(html).toMatch(/<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-[A-Za-z0-9+/=]+'; style-src 'sha256-/);
    // Nothing loads from the network (the one URL in the page is the SVG namespace, a name, not an address).
    expect(html.replaceAll("http://www.w3.org/2000/svg", "")).not.toMatch(/<script[^>]*\ssrc=|<link|https?:\/\//);
  });
});

/** The static page of some records (no run directory: no trajectories), and its data read back. */
function staticPage(records: readonly ResultRecord[]) {
  const html = renderStaticPage([{ dir: "/nonexistent/gitgood-run", records, agent: "llm:tiny", label: "t" }], { title: "t" });
  return { html, data: readStaticPage(html) };
}
