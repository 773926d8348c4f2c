import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ticketScenarioSettings } from "../../src/families/options.js";
import { createAgent } from "../../src/agents/index.js";
import type { Sample } from "../../src/dataset/sample.js";
import { runConfig } from "../../src/runs/config.js";
import { planJobs } from "../../src/runs/plan.js";
import { RunStore } from "../../src/runs/store.js";
import { runTicket, ticketFor } from "../../src/runs/ticket.js";
import { bwrapUnavailable } from "../../src/sandbox/isolation.js";
import type { Fixture } from "../helpers/fixture.js";
import { buildRunFixture, builtInTicketBase, tempDirs } from "../helpers/runs.js";

/*
 * A ticket's job runs under the jail its spec asks for: the spec's limits and timeout reach the isolation its
 * agent program runs in, whatever the defaults. `gitgood worker` gives runTicket no isolation of its own, so this
 * is what a worker applies. The oracle is the program's own view of its limits (/proc/self/limits, set by prlimit).
 */

const noBwrap = bwrapUnavailable();
if (noBwrap) process.stderr.write(`ticket isolation tests skipped: ${noBwrap}\n`);

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

/** What a program run as a ticket's agent says of its file size and CPU time limits. */
const PRINT_LIMITS = "grep -E '^Max (file size|cpu time)' /proc/self/limits";

describe("a ticket's jail", () => {
  it("has the limits and CPU time its spec asks for, not the defaults", async (ctx) => {
    if (noBwrap) ctx.skip();
    const agent = createAgent("command", { command: PRINT_LIMITS });
    const dir = `${dirs.out}-jail`;
    RunStore.open(dir, runConfig({ samples: ["fixture"], agent: agent.name, where: { repo: fx.dir } }, (p) => p));
    const base = builtInTicketBase(dir, "command");
    const job = planJobs(samples, agent).jobs.find((j) => j.scenario.name === "MCR");
    if (!job) throw new Error("the fixture gives no MCR job");
    const disk = 3 * 1024 * 1024;
    const ticket = {
      ...ticketFor(base, job),
      spec: { ...base.spec, command: PRINT_LIMITS, isolation: "namespace", max_disk: disk, timeout_s: 77 },
    };
    const { trajectory } = await runTicket(JSON.parse(JSON.stringify(ticket)) as typeof ticket, { where: { repo: fx.dir }, settings: ticketScenarioSettings });
    const said = trajectory.events.map((e) => ("text" in e && typeof e.text === "string" ? e.text : "")).join("\n");
    expect(said).toMatch(new RegExp(`Max file size\\s+${disk}\\s+${disk}\\s+bytes`));
    // CPU time per process is the attempt's timeout (the hard limit a grace period above it).
    expect(said).toMatch(/Max cpu time\s+77\s+82\s+seconds/);
  });
});
