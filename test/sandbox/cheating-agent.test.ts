import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/agents/index.js";
import type { ChainSample, MergeSample, Sample } from "../../src/dataset/sample.js";
import { runConfig } from "../../src/runs/config.js";
import type { ResultRecord } from "../../src/runs/record.js";
import { runBenchmark } from "../../src/runs/runner.js";
import { RunStore } from "../../src/runs/store.js";
import { bwrapUnavailable, chooseIsolation } from "../../src/sandbox/isolation.js";
import type { Fixture } from "../helpers/fixture.js";
import { buildRunFixture, tempDirs } from "../helpers/runs.js";

const noBwrap = bwrapUnavailable();
if (noBwrap) process.stderr.write(`cheating-agent tests skipped: ${noBwrap}\n`);

let fx: Fixture;
let samples: Sample[];
let dirs: ReturnType<typeof tempDirs>;

beforeAll(async () => {
  ({ fx, samples } = await buildRunFixture());
  dirs = tempDirs();
});
afterAll(() => {
  dirs.cleanup();
  fx.remove();
});

/** Every commit of the source that an attempt must not see: those not reachable from its starting points. */
function answers(...starts: string[]): string[] {
  return fx.git("rev-list", "--all", ...starts.map((s) => `^${s}`)).trim().split("\n").filter(Boolean);
}

/**
 * A cheating agent: it lists every object and ref of its repository, walks the file system above and
 * around its work tree, and greps everything it can read for the answer's commit ids (which the test,
 * omniscient, hands it: a real cheater would look for any commit whose parents are HEAD and MERGE_HEAD).
 */
function cheater(wanted: readonly string[]): string {
  const pattern = wanted.map((oid) => `-e ${oid.slice(0, 12)}`).join(" ");
  return [
    "echo '== objects'; git cat-file --batch-all-objects --batch-check",
    "echo '== log'; git log --all --format=%H",
    "echo '== refs'; git for-each-ref; git reflog --all 2>&1; git remote -v; cat .git/objects/info/alternates 2>&1",
    "echo '== around'; for d in .. ../.. ../../.. / /tmp \"$HOME\"; do ls -la \"$d\" 2>&1; done",
    `echo '== grep'; grep -rIl ${pattern} . .. ../.. /tmp "$HOME" 2>/dev/null | sed 's/^/FOUND /'`,
    "echo '== end'",
  ].join("; ");
}

async function cheat(sample: Sample, wanted: readonly string[], scenario: string): Promise<string> {
  const agent = createAgent("command", { command: cheater(wanted) });
  const out = `${dirs.out}-${sample.id}-${scenario}`;
  const summary = await runBenchmark({
    samples: [sample],
    where: { repo: fx.dir },
    agent,
    store: RunStore.open(out, runConfig({ samples: ["t"], agent: agent.name }, (p) => p)),
    jobs: 1,
    spec: { timeout_s: 120, max_turns: 5 },
    judges: [],
    isolation: chooseIsolation({ mode: "namespace" }),
  });
  const record = summary.records.find((r) => r.scenario === scenario) as ResultRecord;
  expect(record.status, JSON.stringify(record.error)).toBe("success");
  const t = JSON.parse(readFileSync(path.join(out, record.trajectory ?? ""), "utf8")) as { events: { type: string; text?: string }[] };
  return t.events.filter((e) => e.type === "note").map((e) => e.text ?? "").join("\n");
}

describe("a cheating agent with a shell", () => {
  it.for(["MCR", "IR", "ICC"])("finds no answer anywhere it can reach (%s)", async (scenario, ctx) => {
    if (noBwrap) ctx.skip();
    const sample = samples.find((s) => (scenario === "MCR" ? s.sample_type === "merge" : s.sample_type === "file_commit_chain")) as Sample;
    let wanted: string[];
    let visible: string;
    if (scenario === "MCR") {
      const [p1, p2] = (sample as MergeSample).scenario.parents;
      wanted = answers(p1, p2);
      expect(wanted).toContain((sample as MergeSample).scenario.merge_commit_hash);
      visible = p2;
    } else {
      const chain = (sample as ChainSample).scenario;
      const base = fx.git("rev-parse", `${chain.oldest_commit}^`).trim();
      wanted = scenario === "IR" ? answers(chain.newest_commit) : answers(base);
      visible = scenario === "IR" ? chain.newest_commit : base;
    }
    expect(wanted.length).toBeGreaterThan(0);
    const seen = await cheat(sample, wanted, scenario);
    // The search ran: it listed objects, including the starting point, and reached its last step.
    expect(seen).toContain("== objects");
    expect(seen).toContain(visible);
    expect(seen).toContain("== end");
    expect(seen).not.toContain("FOUND ");
    for (const oid of wanted) expect(seen).not.toContain(oid.slice(0, 12));
  });
});
