import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli/main.js";
import { runJudges } from "../../src/runs/config.js";
import { RunStore } from "../../src/runs/store.js";
import { parseTicket, type JobTicket } from "../../src/runs/ticket.js";
import { completion, fakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.js";
import { useOneMerge } from "../helpers/one-merge.js";
import { oracleTicket } from "../helpers/runs.js";

/*
 * The judges (`--judge`) as a run setting: an option of run and bench (and of mcp and serve) made from its
 * declaration, recorded in run.json's spec and not in its identity (other judges resume the same run, as
 * `gitgood score` re-scores it with others), carried by a queue ticket's spec. A run.json written before
 * they moved into the spec (a top-level `judges`) is read with the same judges.
 */

const merge = useOneMerge();
const { run, silent } = merge;
let endpoint: FakeOpenAI;

beforeAll(async () => {
  // The judges are checked before a run by one request each: a local endpoint answers them (the merge's MCR asks no judge).
  endpoint = await fakeOpenAI([{ body: completion({ content: "OK" }) }]);
  Object.assign(merge.env, { OPENAI_BASE_URL: endpoint.url, OPENAI_API_KEY: "test-key", GITGOOD_CACHE_DIR: merge.fx.scratch("cache") });
});
afterAll(() => endpoint.close());

type RunJson = { identity: Record<string, unknown> & { spec?: Record<string, unknown> }; spec?: Record<string, unknown>; judges?: unknown };

const readRunJson = (dir: string) => merge.readRunJson<RunJson>(dir);

/** Rewrites a run's run.json as gitgood wrote it before the judges were a run setting: a top-level `judges`, none in `spec`. */
function toPreviousLayout(dir: string): void {
  const json = readRunJson(dir);
  const { judges, ...spec } = json.spec ?? {};
  writeFileSync(path.join(dir, "run.json"), `${JSON.stringify({ ...json, judges, spec }, null, 2)}\n`);
}

/** The ticket of the run's one job, as a worker parses it. */
const ticketOf = (dir: string): JobTicket => oracleTicket(dir, merge.sample);

describe("the judges as a run setting", () => {
  it("are an option of run, bench, mcp and serve made from their declaration", async () => {
    for (const verb of ["run", "bench", "mcp", "serve"]) {
      const help = (await buildProgram(silent, verb)).commands.find((c) => c.name() === verb)?.helpInformation() ?? "";
      expect(help, verb).toMatch(/--judge <models>\s+judge models for IR\/ICC, comma-separated \(pairwise,\s+positions swapped\)\s+\(default: none\)/);
    }
  });

  it("are recorded in run.json's spec only, and other judges resume the same run", async () => {
    const out = path.join(merge.fx.scratch("runs"), "judged");
    const first = await run(out, ["--judge", "judge-a,judge-b"]);
    expect(first.code, first.stderr).toBe(0);
    const json = readRunJson(out);
    expect(json.spec?.judges).toEqual(["judge-a", "judge-b"]);
    expect(json).not.toHaveProperty("judges");
    expect(json.identity.spec ?? {}).not.toHaveProperty("judges");
    const other = await run(out, ["--judge", "judge-c"]);
    expect(other.code, other.stderr).toBe(0);
    expect(runJudges(RunStore.readConfig(out))).toEqual(["judge-c"]);
    const none = await run(out, []);
    expect(none.code, none.stderr).toBe(0);
    expect(readRunJson(out).spec?.judges).toEqual([]);
  });

  it("travel in a queue ticket's spec, and a ticket whose judges are not model names is refused", async () => {
    const out = path.join(merge.fx.scratch("runs"), "ticketed");
    expect((await run(out, ["--judge", "judge-a"])).code).toBe(0);
    const ticket = ticketOf(out);
    expect(ticket.spec).toMatchObject({ judges: ["judge-a"] });
    expect(ticket).not.toHaveProperty("judges");
    expect(() => parseTicket({ ...ticket, spec: { ...ticket.spec, judges: "judge-a" } })).toThrow(/spec\.judges/);
    // An older producer's ticket (judges, history, limits or the run's flags beside the spec) is refused, not run
    // unjudged or without the families' settings (its flags were what a worker made them from).
    for (const old of [{ judges: ["judge-a"] }, { history: 10 }, { limits: { timeout_s: 60 } }, { flags: { hints: true } }]) {
      expect(() => parseTicket({ ...ticket, ...old })).toThrow(/^not a job ticket of this gitgood: (judges|history|limits|flags) travel in its spec now; run the producer and the workers at the same version$/);
    }
  });

  it("a run.json of the previous layout (top-level judges) is read with the same judges, in run.json and in its tickets", async () => {
    const out = path.join(merge.fx.scratch("runs"), "previous");
    expect((await run(out, ["--judge", "judge-a,judge-b"])).code).toBe(0);
    toPreviousLayout(out);
    expect(readRunJson(out)).toMatchObject({ judges: ["judge-a", "judge-b"] });
    expect(readRunJson(out).spec).not.toHaveProperty("judges");
    expect(runJudges(RunStore.readConfig(out))).toEqual(["judge-a", "judge-b"]);
    expect(ticketOf(out).spec).toMatchObject({ judges: ["judge-a", "judge-b"] });
    // The next session writes today's layout.
    expect((await run(out, ["--judge", "judge-a,judge-b"])).code).toBe(0);
    expect(readRunJson(out)).not.toHaveProperty("judges");
    expect(readRunJson(out).spec?.judges).toEqual(["judge-a", "judge-b"]);
  });
});
