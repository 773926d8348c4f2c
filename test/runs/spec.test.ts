import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parseAssessment } from "../../src/a2a/assessment.js";
import { buildProgram } from "../../src/cli/main.js";
import { planJobs } from "../../src/runs/plan.js";
import { beyondSpec, declareFamilySettings, defineRunSetting, familySetting, narrowedSpec, parseRunSpec, runSpecJsonSchema, specFromOptions, undeclareFamilySettings } from "../../src/runs/spec.js";
import { RunStore } from "../../src/runs/store.js";
import { parseTicket, ticketBase, ticketFor } from "../../src/runs/ticket.js";
import { createAgent } from "../../src/agents/index.js";
import { useOneMerge } from "../helpers/one-merge.js";

/*
 * A run setting is declared in one place and reaches every surface of a run. This file is that one
 * place for a made-up limit: nothing else in src/ knows `fake_limit`, and yet the CLI, the configuration
 * file, run.json, a queue ticket and the A2A request schema all take it.
 */
const FAKE_LIMIT = defineRunSetting<number>({
  key: "fake_limit",
  option: "fake-limit",
  value: "<n>",
  help: "a made-up limit of the spec's test",
  schema: z.number().int().min(1),
  parse: (text, option) => {
    const n = Number(text);
    if (!Number.isInteger(n) || n < 1) throw new Error(`${option} takes a whole number of at least 1, not '${text}'`);
    return n;
  },
  default: 100,
  identity: true,
  request: "at-most",
  kind: "limit",
  group: "test",
});

const merge = useOneMerge();
const { silent } = merge;

describe("a run setting declared once", () => {
  it("is an option of run, bench and a2a serve, with its help and default", async () => {
    for (const verb of ["run", "bench"]) {
      const cmd = (await buildProgram(silent, verb)).commands.find((c) => c.name() === verb);
      expect(cmd?.helpInformation()).toMatch(/--fake-limit <n>\s+a made-up limit of the spec's test \(default: 100\)/);
    }
    const a2a = (await buildProgram(silent, "a2a")).commands.find((c) => c.name() === "a2a");
    expect(a2a?.commands.find((c) => c.name() === "serve")?.helpInformation()).toContain("--fake-limit <n>");
  });

  it("is read from the configuration file into run.json's spec and identity, and a resume with another value is refused", async () => {
    const out = path.join(merge.fx.scratch("runs"), "configured");
    const config = path.join(merge.fx.scratch("config"), "gitgood.config.yaml");
    writeFileSync(config, "fake-limit: 7\n");
    const r = await merge.run(out, ["--config", config]);
    expect(r.stderr).not.toMatch(/error/i);
    expect(r.code).toBe(0);
    const run = JSON.parse(readFileSync(path.join(out, "run.json"), "utf8")) as { spec: Record<string, unknown>; identity: { spec?: Record<string, unknown> } };
    expect(r.stderr).toContain("[1/1]");
    expect(run.spec.fake_limit).toBe(7);
    expect(run.spec.max_processes).toBe(512);
    expect(run.identity.spec).toEqual({ fake_limit: 7 });
    const again = await merge.run(out, ["--fake-limit", "8"]);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/fake_limit: 7 -> 8/);
  });

  it("refuses a bad value from the command line or the file in one line", async () => {
    const r = await merge.run(path.join(merge.fx.scratch("runs"), "bad"), ["--fake-limit", "0"]);
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toContain("--fake-limit takes a whole number of at least 1, not '0'");
    const config = path.join(merge.fx.scratch("config-bad"), "gitgood.config.yaml");
    writeFileSync(config, "fake-limit: many\n");
    const f = await merge.run(path.join(merge.fx.scratch("runs"), "bad2"), ["--config", config]);
    expect(f.code).not.toBe(0);
    expect(f.stderr).toMatch(/fake-limit.*not 'many'/);
  });

  it("travels in a queue ticket, and a worker refuses a ticket whose spec it cannot honour", async () => {
    const out = path.join(merge.fx.scratch("runs"), "ticketed");
    const r = await merge.run(out, ["--fake-limit", "9"]);
    expect(r.code).toBe(0);
    const config = RunStore.readConfig(out);
    const base = ticketBase(config, {
      agent: { name: "oracle", model: null, options: {} },
      modelPrices: {},
      agentModel: null,
    });
    const [job] = planJobs([merge.sample], createAgent("oracle")).jobs;
    if (!job) throw new Error("no job planned");
    const ticket = parseTicket(JSON.parse(JSON.stringify(ticketFor(base, job))));
    expect(ticket.spec?.fake_limit).toBe(9);
    expect(() => parseTicket({ ...ticket, spec: { ...ticket.spec, fake_limit: "nine" } })).toThrow(/BAD_TICKET|spec\.fake_limit/);
    expect(() => parseTicket({ ...ticket, spec: { ...ticket.spec, not_declared_here: 1 } })).toThrow(/spec/);
  });

  it("is in the A2A request schema, kept within the operator's value, and refused when malformed", () => {
    const request = (config: Record<string, unknown>) => JSON.stringify({ participants: { agent: "http://127.0.0.1:9/" }, config: { dataset: "d.jsonl", repo: "r", ...config } });
    const asked = parseAssessment(request({ fake_limit: 3 }));
    expect(asked.requested).toEqual({ fake_limit: 3 });
    expect(asked.warnings).toEqual([]);
    const operator = specFromOptions({ fakeLimit: 7 });
    expect(narrowedSpec(operator, asked.requested).fake_limit).toBe(3);
    expect(narrowedSpec(operator, parseAssessment(request({ fake_limit: 50 })).requested).fake_limit).toBe(7);
    expect(() => parseAssessment(request({ fake_limit: "lots" }))).toThrow(/invalid params: config\.fake_limit/);
    expect(() => narrowedSpec(operator, { accept_weak_limits: true })).toThrow(/operator/);
  });

  it("a limit whose default is no limit (null) narrows and bounds like an infinite one", () => {
    const none = specFromOptions({});
    expect(none.budget_usd).toBeNull();
    expect(narrowedSpec(none, { budget_usd: 5 }).budget_usd).toBe(5);
    expect(narrowedSpec({ ...none, budget_usd: 10 }, { budget_usd: null }).budget_usd).toBe(10);
    expect(beyondSpec(none, { budget_usd: 5 })).toBeNull();
    expect(beyondSpec({ ...none, budget_usd: 10 }, { budget_usd: null })?.key).toBe("budget_usd");
    expect(beyondSpec({ ...none, budget_usd: 10 }, { budget_usd: 11 })?.key).toBe("budget_usd");
    expect(beyondSpec({ ...none, budget_usd: 10 }, { budget_usd: 9 })).toBeNull();
  });

  it("is in the spec's JSON Schema with its default, and a spec with an unknown key is refused", () => {
    const schema = runSpecJsonSchema() as { properties: Record<string, { default?: unknown }> };
    expect(schema.properties.fake_limit?.default).toBe(100);
    expect(parseRunSpec({}, "run.json spec", "BAD_CONFIG").fake_limit).toBe(FAKE_LIMIT.default);
    expect(() => parseRunSpec({ surprise: 1 }, "run.json spec", "BAD_CONFIG")).toThrow(/run\.json spec/);
  });

  it("is read with the settings declared at the time: a family's, declared after a spec was read, and refused again once undeclared", () => {
    expect(() => parseRunSpec({ lately: { depth: 2 } }, "run.json spec", "BAD_CONFIG")).toThrow(/run\.json spec/);
    const depth = familySetting<number>("lately", { key: "depth", option: "lately-depth", value: "<n>", help: "a family declared late", schema: z.number().int(), parse: Number, default: 1, identity: true, verbs: ["run"] });
    declareFamilySettings("lately", [depth]);
    try {
      expect(parseRunSpec({ lately: { depth: 2 } }, "run.json spec", "BAD_CONFIG").lately).toEqual({ depth: 2 });
    } finally {
      undeclareFamilySettings("lately");
    }
    expect(() => parseRunSpec({ lately: { depth: 2 } }, "run.json spec", "BAD_CONFIG")).toThrow(/run\.json spec/);
  });

  it("refuses a switch whose default is not true or false, and a repeatable option whose value is not a list", () => {
    const base = { help: "h", identity: false, kind: "choice", group: "g" } as const;
    expect(() => defineRunSetting<number>({ ...base, key: "fake_switch", option: "fake-switch", schema: z.number(), default: 3 })).toThrow(/is a switch: its default must be true or false/);
    expect(() => defineRunSetting<number>({ ...base, key: "fake_repeat", option: "fake-repeat", value: "<n>", schema: z.number(), default: 5, repeatable: true })).toThrow(/is repeatable: its value must be a list/);
  });
});
