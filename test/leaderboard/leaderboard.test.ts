import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, describe, expect, it } from "vitest";
import { LEADERBOARD_SCHEMA_FILE, renderLeaderboardSchema } from "../../src/cli/cli-reference.js";
import { leaderboardOf } from "../../src/leaderboard/leaderboard.js";
import { readCutoffs } from "../../src/leaderboard/models.js";
import type { Leaderboard, LeaderboardEntry } from "../../src/leaderboard/schema.js";
import { renderLeaderboardPage } from "../../src/leaderboard/site.js";
import { gitgood } from "../helpers/cli.js";
import { scratch, writeRankedRun, type WrittenAttempt } from "./written-runs.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const sc = scratch();
afterAll(() => sc.cleanup());

/** The published schema, compiled: the problems it finds in a value. */
function validator(): (value: unknown) => string[] {
  const schema = JSON.parse(readFileSync(path.join(root, LEADERBOARD_SCHEMA_FILE), "utf8")) as Record<string, unknown>;
  const validate = new Ajv2020({ strict: false, allErrors: true }).compile(schema);
  return (value) => (validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ""}`));
}

/*
 * Four tasks over two repositories and two families (MCR, and a scenario no family registers, which is its
 * own family): dated before, on and after the cut-off of model `m/a`, and one undated. Each attempted twice.
 */
const TASKS = [
  { sample_id: "t1", scenario: "MCR", repository: "acme/one", date: "2024-05-31T23:00:00Z" },
  { sample_id: "t2", scenario: "MCR", repository: "acme/two", date: "2024-06-01T10:00:00Z" },
  { sample_id: "t3", scenario: "MCR", repository: "acme/two", date: "2024-06-02T00:00:00Z" },
  { sample_id: "t4", scenario: "TOY", repository: "acme/one", date: null },
];
const DIGEST = "sha256:same";

function attempts(solved: (task: number, repeat: number) => boolean, extra: Partial<WrittenAttempt> = {}): WrittenAttempt[] {
  return TASKS.flatMap((t, i) => [0, 1].map((repeat) => ({ ...t, repeat, solved: solved(i, repeat), ...extra })));
}

// a: model m/a, priced, solves t1 twice, t2 once, t3 never, t4 twice. b: model m/b, usage never measured. oracle: no model, solves all.
const runA = writeRankedRun(path.join(sc.root, "a"), { agent: "llm:a", model: "m/a", digest: DIGEST, repeats: 2 }, attempts((i, r) => i === 0 || i === 3 || (i === 1 && r === 0), { cost_usd: 0.5, history_probes: 1 }));
// b ran with versioned memory: which agent ran, not what it was evaluated on, so it ranks beside a.
const runB = writeRankedRun(path.join(sc.root, "b"), { agent: "llm:b", model: "m/b", digest: DIGEST, repeats: 2, memory: true }, attempts((i) => i === 2, { usage_known: false }));
const runO = writeRankedRun(path.join(sc.root, "o"), { agent: "oracle", model: null, digest: DIGEST, repeats: 2 }, attempts(() => true, { history_probes: 0 }));
const dirs = [runA, runB, runO].map((dir) => ({ dir, label: path.basename(dir) }));
const cutoffs = new Map([["m/a", "2024-06-01"]]);

const viewOf = (board: Leaderboard, family: string | null, repository: string | null, tasks: "all" | "after_cutoff") =>
  board.views.find((v) => v.family === family && v.repository === repository && v.tasks === tasks);
const entryOf = (board: Leaderboard, name: string, family: string | null = null, repository: string | null = null, tasks: "all" | "after_cutoff" = "all"): LeaderboardEntry => {
  const entry = viewOf(board, family, repository, tasks)?.entries.find((e) => e.name === name);
  if (!entry) throw new Error(`no entry ${name}`);
  return entry;
};

describe("gitgood leaderboard: the numbers", () => {
  const board = leaderboardOf(dirs, { title: "t", cutoffs, allowMixed: false });

  it("validates against the schema published in docs/ (and that file is the schema's current rendering)", () => {
    expect(readFileSync(path.join(root, LEADERBOARD_SCHEMA_FILE), "utf8"), "docs/leaderboard.schema.json is out of date: run npm run docs").toBe(renderLeaderboardSchema());
    const validate = validator();
    expect(validate(board)).toEqual([]);
    expect(validate({ ...board, views: [{ family: null, repository: null, tasks: "some", entries: [] }] })).not.toEqual([]);
  });

  it("gives solve rate with its standard error over repeats and pass@k, ranked best first", () => {
    const a = entryOf(board, "a");
    // Shares per task 1, 0.5, 0, 1: mean 62.5 %, sample sd 0.4787, SE 0.2394.
    expect(a).toMatchObject({ tasks: 4, attempts: 8, k: 2, solved: 5, solve_rate: 62.5, standard_error: 23.94, pass_at_k: { "1": 62.5, "2": 75 } });
    expect(viewOf(board, null, null, "all")?.entries.map((e) => [e.name, e.rank])).toEqual([["o", 1], ["a", 2], ["b", 3]]);
    expect(a.history_probes).toEqual({ audited: 8, probing: 8, probes: 8, rate: 100 });
    expect(entryOf(board, "b").history_probes).toEqual({ audited: 0, probing: 0, probes: 0, rate: null });
  });

  it("gives cost per solved task with its interval from measured usage; unknown usage is unknown, never $0", () => {
    const a = entryOf(board, "a");
    expect(a.cost_usd).toBe(4);
    expect(a.cost_per_attempt_usd).toBe(0.5);
    expect(a.cost_per_solved?.usd).toBe(0.8);
    expect(a.cost_per_solved!.low).toBeLessThan(0.8);
    expect(a.cost_per_solved!.high).toBeGreaterThan(0.8);
    const b = entryOf(board, "b");
    expect(b).toMatchObject({ cost_usd: null, cost_per_attempt_usd: null, cost_per_solved: null, cost_unknown: 8, usage_unknown: 8, tokens_per_attempt: null });
    // The oracle asks no model: it spends nothing, which is known.
    expect(entryOf(board, "o")).toMatchObject({ cost_usd: 0, cost_per_attempt_usd: 0, cost_unknown: 0 });
    expect(entryOf(board, "o").cost_per_solved?.usd).toBe(0);
  });

  it("puts on the Pareto front only the rows nothing beats on cost and solve rate", () => {
    const entries = viewOf(board, null, null, "all")?.entries ?? [];
    expect(entries.filter((e) => e.pareto).map((e) => e.name)).toEqual(["o"]);
  });

  it("has a view per family and per repository, each counting only its tasks", () => {
    expect(board.families).toEqual(["GitGoodBench", "TOY"]);
    expect(board.repositories).toEqual(["acme/one", "acme/two"]);
    expect(entryOf(board, "a", "TOY")).toMatchObject({ tasks: 1, solve_rate: 100 });
    expect(entryOf(board, "a", "GitGoodBench")).toMatchObject({ tasks: 3, solve_rate: 50 });
    expect(entryOf(board, "a", null, "acme/two")).toMatchObject({ tasks: 2, solve_rate: 25 });
    // No TOY task comes from acme/two: no such view.
    expect(viewOf(board, "TOY", "acme/two", "all")).toBeUndefined();
  });

  it("marks the tasks dated on or before a model's cut-off (and the undated ones) possibly contaminated, and leaves them out of that model's after-cut-off row", () => {
    const marks = Object.fromEntries(board.tasks.map((t) => [t.sample_id, t.possibly_contaminated_for]));
    expect(marks).toEqual({ t1: ["m/a"], t2: ["m/a"], t3: [], t4: ["m/a"] });
    expect(board.tasks.find((t) => t.sample_id === "t4")?.date).toBeNull();
    const a = entryOf(board, "a", null, null, "after_cutoff");
    expect(a).toMatchObject({ contamination: "cutoff_known", cutoff: "2024-06-01", tasks: 1, excluded_tasks: 3, solve_rate: 0 });
    // b's model states no cut-off: nothing can be shown as uncontaminated. The oracle asks no model: all of it counts.
    expect(entryOf(board, "b", null, null, "after_cutoff")).toMatchObject({ contamination: "cutoff_unknown", tasks: 0, excluded_tasks: 4, solve_rate: null });
    expect(entryOf(board, "o", null, null, "after_cutoff")).toMatchObject({ contamination: "no_model", tasks: 4, excluded_tasks: 0 });
  });

  it("reads models.yaml, and refuses one that does not map names to dates in one line", () => {
    const good = path.join(sc.root, "models.yaml");
    writeFileSync(good, "m/a: 2024-06-01\nm/b: 2025-01-31T12:00:00Z\n");
    expect([...readCutoffs(good)]).toEqual([["m/a", "2024-06-01"], ["m/b", "2025-01-31T12:00:00Z"]]);
    const bad = path.join(sc.root, "bad.yaml");
    writeFileSync(bad, "m/a: last spring\n");
    expect(() => readCutoffs(bad)).toThrow(/gives "m\/a" the cut-off "last spring"/);
    writeFileSync(bad, "- m/a\n");
    expect(() => readCutoffs(bad)).toThrow(/must map model names to cut-off dates/);
  });

  it("keeps the data inert in the page: nothing a record says can end its script element", () => {
    const hostile = { ...board, title: "</script><script>alert(1)</script>", tasks: [{ ...board.tasks[0]!, sample_id: "</script><img src=x onerror=alert(1)>" }] };
    const page = renderLeaderboardPage(hostile);
    expect(page).not.toContain("<img src=x");
    expect(page.match(/<\/script>/g)?.length).toBe(2);
    expect(page).toContain("<title>&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;</title>");
  });
});

describe("gitgood leaderboard: runs over other samples or settings", () => {
  // Over other samples (its digest), with another turn limit, and without t4's attempts.
  const other = writeRankedRun(path.join(sc.root, "other"), { agent: "llm:c", model: "m/c", digest: "sha256:other", maxTurns: 30, repeats: 2 }, attempts(() => false).filter((a) => a.sample_id !== "t4"));

  it("refuses to rank them, one line per difference, with a non-zero exit", async () => {
    const out = path.join(sc.root, "site-refused");
    const r = await gitgood(["leaderboard", runA, other, "--out", out]);
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split("\n");
    expect(lines[0]).toMatch(/^gitgood: the runs are not over the same samples and settings/);
    expect(lines.slice(1)).toEqual([
      '  other: its samples ("sha256:other") are not those of a ("sha256:same")',
      "  other: spec.max_turns is 30 where a has 10",
      '  other: lacks 2 of the 8 attempts a holds ("t4.TOY", "t4.TOY#1")',
    ]);
    expect(existsSync(out)).toBe(false);
  });

  it("ranks them with --allow-mixed, saying in the site what differs", async () => {
    const out = path.join(sc.root, "site-mixed");
    const r = await gitgood(["leaderboard", runA, other, "--out", out, "--allow-mixed"]);
    expect(r.code).toBe(0);
    const board = JSON.parse(readFileSync(path.join(out, "leaderboard.json"), "utf8")) as Leaderboard;
    expect(board.mixed).toHaveLength(3);
    expect(validator()(board)).toEqual([]);
    // The page carries the same lines, which its script shows above the ranking.
    const data = /<script type="application\/json" id="lb-data">(.*?)<\/script>/s.exec(readFileSync(path.join(out, "index.html"), "utf8"))?.[1] ?? "null";
    expect((JSON.parse(data) as Leaderboard).mixed).toEqual(board.mixed);
  });

  it("ranks runs over the same samples, and stops in one line on a bad models file", async () => {
    const out = path.join(sc.root, "site");
    const models = path.join(sc.root, "m.yaml");
    writeFileSync(models, "m/a: 2024-06-01\n");
    const r = await gitgood(["leaderboard", runA, runB, runO, "--out", out, "--models", models]);
    expect(r.stderr).toContain(`wrote ${path.join(out, "index.html")}`);
    expect(r.code).toBe(0);
    writeFileSync(models, "m/a: [2024]\n");
    const bad = await gitgood(["leaderboard", runA, runB, "--out", out, "--models", models]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split("\n")).toHaveLength(1);
  });
});
