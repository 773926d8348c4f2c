import { writeFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli/main.js";
import { RunStore } from "../../src/runs/store.js";
import { createAgent } from "../../src/agents/index.js";
import { planJobs } from "../../src/runs/plan.js";
import { ticketScenarioSettings } from "../../src/families/options.js";
import { parseTicket, runTicket, ticketBase, ticketFor } from "../../src/runs/ticket.js";
import { useOneMerge } from "../helpers/one-merge.js";
import { oracleTicket } from "../helpers/runs.js";

/*
 * How models are asked (`--temperature`, `--max-tokens`, `--seed`, `--max-connections`, `--no-cache`) as run
 * settings: options of run and bench (and of score, mcp and serve) made from their declarations, recorded in
 * run.json's spec, the sampling parameters in identity.spec too, carried by a queue ticket's spec. A run.json
 * written before they moved (the parameters in identity.model, a top-level `models`) resumes with the same flags.
 * The agent's prices (`--price-in`, `--price-out`) likewise, not in the identity.
 */

const merge = useOneMerge([]);
const { silent } = merge;
let script: string;

beforeAll(() => {
  // A scripted model answers the llm agent: no endpoint, the same answers every session.
  script = path.join(merge.fx.scratch("data"), "talker.json");
  writeFileSync(script, JSON.stringify(["I looked.", "Done."]));
});

const llm = (out: string, extra: string[]) =>
  merge.run(out, ["--agent", "llm", "--model", `scripted/${script}`, "--scenario", "mcr", "--max-turns", "2", ...extra]);

type RunJson = { identity: Record<string, unknown> & { spec?: Record<string, unknown>; model?: Record<string, unknown> | null }; spec?: Record<string, unknown>; models?: unknown };

const readRunJson = (dir: string) => merge.readRunJson<RunJson>(dir);

const MODEL_KEYS = ["temperature", "max_tokens", "seed", "max_connections", "cache"];

/**
 * Rewrites a run's run.json as gitgood wrote it before these settings were run settings: the sampling
 * parameters in identity.model (`temperature` always, null when not given; `max_tokens` and `seed` when
 * given), every one of them in a top-level `models`, none in `spec` or `identity.spec`.
 */
function toPreviousLayout(dir: string): void {
  const json = readRunJson(dir);
  const { spec: identitySpec = {}, model, ...identity } = json.identity;
  const without = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([k]) => !MODEL_KEYS.includes(k)));
  const models = Object.fromEntries(MODEL_KEYS.map((k) => [k, json.spec?.[k]]));
  const given = (k: string) => (models[k] !== null ? { [k]: models[k] } : {});
  const kept = without(identitySpec);
  const previous = {
    ...json,
    identity: {
      ...identity,
      model: model ? { ...model, temperature: models.temperature, ...given("max_tokens"), ...given("seed") } : null,
      ...(Object.keys(kept).length > 0 ? { spec: kept } : {}),
    },
    models,
    spec: without(json.spec ?? {}),
  };
  writeFileSync(path.join(dir, "run.json"), `${JSON.stringify(previous, null, 2)}\n`);
}

describe("how models are asked as run settings", () => {
  it("are options of run, bench, score, mcp and serve made from their declarations", async () => {
    for (const verb of ["run", "bench", "score", "mcp", "serve"]) {
      const help = (await buildProgram(silent, verb)).commands.find((c) => c.name() === verb)?.helpInformation() ?? "";
      expect(help, verb).toMatch(/--temperature <t>\s+sampling temperature of every model request/);
      for (const option of ["--max-tokens <n>", "--seed <n>", "--max-connections <n>", "--no-cache"]) expect(help, verb).toContain(option);
    }
    const worker = (await buildProgram(silent, "worker")).commands.find((c) => c.name() === "worker")?.helpInformation() ?? "";
    expect(worker).not.toMatch(/--temperature|--seed|--no-cache/);
  });

  it("are recorded in run.json's spec, the sampling parameters in identity.spec: the same flags resume, another temperature is refused", async () => {
    const out = path.join(merge.fx.scratch("runs"), "asked");
    const params = ["--temperature", "0.5", "--max-tokens", "64", "--seed", "4"];
    const first = await llm(out, [...params, "--max-connections", "2", "--no-cache"]);
    expect(first.code, first.stderr).toBe(0);
    const json = readRunJson(out);
    expect(json.spec).toMatchObject({ temperature: 0.5, max_tokens: 64, seed: 4, max_connections: 2, cache: false });
    expect(json.identity.spec).toEqual({ temperature: 0.5, max_tokens: 64, seed: 4, max_turns: 2, scenarios: ["MCR"] });
    expect(Object.keys(json.identity.model ?? {}).sort()).toEqual(["endpoint", "name"]);
    expect(json).not.toHaveProperty("models");

    // How requests are made (connections, the cache) is not what is evaluated: another session may change it.
    const again = await llm(out, params);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/already done/);
    expect(readRunJson(out).spec).toMatchObject({ max_connections: null, cache: true });
    const warmer = await llm(out, ["--temperature", "0.7", "--max-tokens", "64", "--seed", "4"]);
    expect(warmer.code).toBe(2);
    expect(warmer.stderr).toMatch(/holds a run with other settings \(spec\.temperature: 0\.5 -> 0\.7\)/);
    const unseeded = await llm(out, ["--temperature", "0.5", "--max-tokens", "64"]);
    expect(unseeded.code).toBe(2);
    expect(unseeded.stderr).toMatch(/spec\.seed: 4 -> none/);
  });

  it("are read from the configuration file by their options' names", async () => {
    const out = path.join(merge.fx.scratch("runs"), "configured");
    const config = path.join(merge.fx.scratch("config"), "gitgood.config.yaml");
    writeFileSync(config, "temperature: 0.25\nno-cache: true\nrun:\n  max-connections: 3\n");
    const r = await llm(out, ["--config", config]);
    expect(r.code, r.stderr).toBe(0);
    expect(readRunJson(out).spec).toMatchObject({ temperature: 0.25, cache: false, max_connections: 3 });
  });

  it("a run.json of the previous layout (identity.model's parameters, a top-level models) resumes with the same flags and is refused with others", async () => {
    const out = path.join(merge.fx.scratch("runs"), "previous");
    const params = ["--temperature", "0.5", "--seed", "4"];
    expect((await llm(out, [...params, "--max-connections", "2"])).code).toBe(0);
    toPreviousLayout(out);
    const previous = readRunJson(out);
    expect(previous.identity.model).toMatchObject({ temperature: 0.5, seed: 4 });
    expect(previous.identity.model).not.toHaveProperty("max_tokens");
    expect(previous.models).toEqual({ temperature: 0.5, max_tokens: null, seed: 4, max_connections: 2, cache: true });
    const read = RunStore.readConfig(out);
    expect(read.identity.spec).toEqual({ temperature: 0.5, seed: 4, max_turns: 2, scenarios: ["MCR"] });
    expect(read.spec).toMatchObject({ temperature: 0.5, max_tokens: null, seed: 4, max_connections: 2, cache: true });
    expect(read).not.toHaveProperty("models");
    const again = await llm(out, params);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/already done/);

    // A run.json older still, written before the top-level models, keeps them in identity.model alone.
    toPreviousLayout(out);
    const { models: _models, ...older } = readRunJson(out);
    writeFileSync(path.join(out, "run.json"), JSON.stringify(older));
    expect(RunStore.readConfig(out).identity.spec).toEqual({ temperature: 0.5, seed: 4, max_turns: 2, scenarios: ["MCR"] });
    expect((await llm(out, params)).code).toBe(0);

    toPreviousLayout(out);
    const warmer = await llm(out, ["--temperature", "0.7", "--seed", "4"]);
    expect(warmer.code).toBe(2);
    expect(warmer.stderr).toMatch(/spec\.temperature: 0\.5 -> 0\.7/);
  });

  it("a previous run.json of an agent without a model resumes with the flags of its latest session", async () => {
    const out = path.join(merge.fx.scratch("runs"), "previous-oracle");
    const run = (extra: string[]) => merge.run(out, ["--agent", "oracle", ...extra]);
    expect((await run(["--seed", "7"])).code).toBe(0);
    toPreviousLayout(out);
    expect(readRunJson(out).identity).not.toHaveProperty("spec");
    expect(RunStore.readConfig(out).identity.spec).toEqual({ seed: 7 });
    const again = await run(["--seed", "7"]);
    expect(again.code, again.stderr).toBe(0);
  });

  it("travel in a queue ticket's spec, and a ticket of an older producer with models beside its spec is refused", async () => {
    const out = path.join(merge.fx.scratch("runs"), "ticketed");
    expect((await merge.run(out, ["--agent", "oracle", "--temperature", "0.3", "--no-cache"])).code).toBe(0);
    const ticket = oracleTicket(out, merge.sample);
    expect(ticket.spec).toMatchObject({ temperature: 0.3, cache: false, max_connections: null });
    expect(ticket).not.toHaveProperty("models");
    expect(() => parseTicket({ ...ticket, spec: { ...ticket.spec, temperature: "warm" } })).toThrow(/spec\.temperature/);
    const old = { models: { temperature: 0.3, max_tokens: null, seed: null, max_connections: null, cache: false } };
    expect(() => parseTicket({ ...ticket, ...old })).toThrow(/^not a job ticket of this gitgood: models travel in its spec now; run the producer and the workers at the same version$/);
  });
});

describe("the agent's prices as run settings", () => {
  it("are recorded in run.json's spec, not its identity, and price the agent's tokens where a queue's worker runs its ticket as here", async () => {
    const out = path.join(merge.fx.scratch("runs"), "priced");
    const first = await llm(out, ["--price-in", "3000", "--price-out", "15000"]);
    expect(first.code, first.stderr).toBe(0);
    const config = RunStore.readConfig(out);
    expect(config.spec).toMatchObject({ price_in: 3000, price_out: 15000 });
    expect(config.identity.spec ?? {}).not.toHaveProperty("price_in");
    const [local] = RunStore.read(out).records;
    expect(local?.cost_usd).toBeGreaterThan(0);

    // The run's ticket, as `gitgood run --queue` makes it: the prices travel in its spec, none beside it.
    const model = `scripted/${script}`;
    const base = ticketBase(config, { agent: { name: "llm", model, options: {} }, modelPrices: {}, agentModel: model });
    const [job] = planJobs([merge.sample], createAgent("oracle"), { scenarios: ["MCR"] }).jobs;
    if (!job) throw new Error("no MCR job planned");
    const ticket = parseTicket(JSON.parse(JSON.stringify(ticketFor(base, job))));
    expect(ticket).not.toHaveProperty("prices");
    expect(ticket.model_prices).toEqual({});
    const settled = await runTicket(ticket, { where: { repo: merge.fx.dir }, settings: ticketScenarioSettings });
    expect(settled.record.cost_usd).toBe(local?.cost_usd);

    // The configuration's prices of the model are the worker's too when the spec gives none.
    const { price_in: _in, price_out: _out, ...unpriced } = ticket.spec ?? {};
    const fromConfig = await runTicket({ ...ticket, spec: unpriced, model_prices: { [model]: { input: 3000, output: 15000 } } }, { where: { repo: merge.fx.dir }, settings: ticketScenarioSettings });
    expect(fromConfig.record.cost_usd).toBe(local?.cost_usd);
    expect((await runTicket({ ...ticket, spec: unpriced }, { where: { repo: merge.fx.dir }, settings: ticketScenarioSettings })).record.cost_usd).toBeNull();

    // Other prices are the same run: they change what it costs, not what is evaluated.
    const repriced = await llm(out, ["--price-in", "1", "--price-out", "2"]);
    expect(repriced.code, repriced.stderr).toBe(0);
    expect(RunStore.readConfig(out).spec).toMatchObject({ price_in: 1, price_out: 2 });
  });

  it("a ticket of an older producer with prices beside its spec is refused", async () => {
    const out = path.join(merge.fx.scratch("runs"), "ticket-priced");
    expect((await merge.run(out, ["--agent", "oracle", "--price-in", "1", "--price-out", "2"])).code).toBe(0);
    const ticket = oracleTicket(out, merge.sample);
    expect(ticket.spec).toMatchObject({ price_in: 1, price_out: 2 });
    const old = { prices: { agent: { input: 1, output: 2 }, models: {} } };
    expect(() => parseTicket({ ...ticket, ...old })).toThrow(/^not a job ticket of this gitgood: prices travel in its spec now/);
  });
});
