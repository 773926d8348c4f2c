import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli/main.js";
import { DEFAULT_HISTORY } from "../../src/git/store.js";
import { specFromOptions } from "../../src/runs/spec.js";
import { RunStore } from "../../src/runs/store.js";
import { parseTicket } from "../../src/runs/ticket.js";
import { useOneMerge } from "../helpers/one-merge.js";
import { oracleTicket } from "../helpers/runs.js";

/*
 * What each sandbox gets (`--history`, `--mcr-tools`) and which samples and scenarios run (`--ids`,
 * `--scenario`, `--difficulty`, `--language`, `--sample` with `--seed`, `--limit`) as run settings:
 * options of run and bench, keys of the configuration file, recorded in run.json's spec and, when not at
 * their defaults, in identity.spec, carried by a queue ticket's spec. A run.json written before they moved
 * into the spec (each a field of the identity of its own) still resumes with the same flags.
 */

const merge = useOneMerge();
const { run, silent } = merge;

type RunJson = { identity: Record<string, unknown> & { spec?: Record<string, unknown> }; spec?: Record<string, unknown> };

const readRunJson = (dir: string) => merge.readRunJson<RunJson>(dir);

/** The identity fields the settings of this file had before they moved into the spec. */
const MOVED = ["history", "ids", "limit", "scenarios", "difficulties", "languages", "sample", "mcr_tools"] as const;

/** The spec's settings of how models are asked, a top-level `models` of run.json then (the seed of an oracle's run in no identity). */
const MODELS = ["temperature", "max_tokens", "seed", "max_connections", "cache"];

/**
 * Rewrites a run's run.json as gitgood wrote it before these settings were run settings: `history`, `ids`
 * and `limit` always in the identity (null when not given), the other filters and `mcr_tools` there when
 * given, and none of them in `spec`; `--seed` in the top-level `models` alone.
 */
function toPreviousLayout(dir: string): void {
  const file = path.join(dir, "run.json");
  const json = readRunJson(dir);
  const { spec: identitySpec = {}, ...identity } = json.identity;
  const kept = Object.fromEntries(Object.entries(identitySpec).filter(([k]) => !(MOVED as readonly string[]).includes(k) && !MODELS.includes(k)));
  const given = Object.fromEntries(MOVED.filter((k) => identitySpec[k] !== undefined).map((k) => [k, identitySpec[k]]));
  const spec = Object.fromEntries(Object.entries(json.spec ?? {}).filter(([k]) => !(MOVED as readonly string[]).includes(k) && !MODELS.includes(k)));
  const models = Object.fromEntries(Object.entries(json.spec ?? {}).filter(([k]) => MODELS.includes(k)));
  const previous = {
    ...json,
    identity: { ...identity, history: DEFAULT_HISTORY, ids: null, limit: null, ...given, ...(Object.keys(kept).length > 0 ? { spec: kept } : {}) },
    spec,
    ...(Object.keys(models).length > 0 ? { models } : {}),
  };
  writeFileSync(file, `${JSON.stringify(previous, null, 2)}\n`);
}

describe("history, the MCR tools and the selection as run settings", () => {
  it("are options of run and bench made from their declarations, and of mcp and serve where those take them", async () => {
    for (const verb of ["run", "bench"]) {
      const help = (await buildProgram(silent, verb)).commands.find((c) => c.name() === verb)?.helpInformation() ?? "";
      expect(help).toMatch(/--history <n\|full>\s+first-parent commits of history[^\n]*\n?[^\n]*\(default: 50\)/);
      for (const option of ["--mcr-tools <set>", "--ids <list>", "--scenario <list>", "--difficulty <list>", "--language <list>", "--sample <n>", "--limit <n>"]) {
        expect(help).toContain(option);
      }
    }
    for (const verb of ["mcp", "serve"]) {
      const help = (await buildProgram(silent, verb)).commands.find((c) => c.name() === verb)?.helpInformation() ?? "";
      for (const option of ["--history <n|full>", "--mcr-tools <set>", "--ids <list>", "--limit <n>"]) expect(help).toContain(option);
    }
    const worker = (await buildProgram(silent, "worker")).commands.find((c) => c.name() === "worker")?.helpInformation() ?? "";
    expect(worker).not.toMatch(/--history|--scenario|--mcr-tools/);
  });

  it("are recorded in run.json's spec, in identity.spec when given, and no longer as identity fields of their own", async () => {
    const plain = path.join(merge.fx.scratch("runs"), "plain");
    expect((await run(plain, [])).code).toBe(0);
    const p = readRunJson(plain);
    expect(p.spec).toMatchObject({ history: DEFAULT_HISTORY, mcr_tools: "paper", ids: null, scenarios: null, difficulties: null, languages: null, sample: null, limit: null });
    expect(p.identity.spec).toBeUndefined();
    for (const field of MOVED) expect(p.identity).not.toHaveProperty(field);

    const chosen = path.join(merge.fx.scratch("runs"), "chosen");
    const args = ["--history", "full", "--mcr-tools", "extended", "--ids", merge.sample.id, "--scenario", "mcr", "--difficulty", merge.sample.difficulty];
    const r = await run(chosen, [...args, "--language", "Python,PYTHON", "--sample", "1", "--seed", "3", "--limit", "5"]);
    expect(r.code, r.stderr).toBe(0);
    expect(readRunJson(chosen).identity.spec).toEqual({
      history: "full",
      mcr_tools: "extended",
      ids: [merge.sample.id],
      scenarios: ["MCR"],
      difficulties: [merge.sample.difficulty],
      languages: ["python"],
      sample: { size: 1, seed: 3 },
      limit: 5,
      // --seed is also the seed of every model request, part of the identity as the model's seed always was.
      seed: 3,
    });
  });

  it("are read from the configuration file by their options' names", async () => {
    const out = path.join(merge.fx.scratch("runs"), "configured");
    const config = path.join(merge.fx.scratch("config"), "gitgood.config.yaml");
    writeFileSync(config, "history: 3\nmcr-tools: extended\nscenario: [mcr]\nlanguage: python\n");
    const r = await run(out, ["--config", config]);
    expect(r.code, r.stderr).toBe(0);
    expect(readRunJson(out).identity.spec).toEqual({ history: 3, mcr_tools: "extended", scenarios: ["MCR"], languages: ["python"] });
    const bad = path.join(merge.fx.scratch("config-bad"), "gitgood.config.yaml");
    writeFileSync(bad, "mcr-tools: all\n");
    const refused = await run(path.join(merge.fx.scratch("runs"), "configured-bad"), ["--config", bad]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr.trim().split("\n")).toHaveLength(1);
    expect(refused.stderr).toContain("--mcr-tools takes paper or extended, not 'all'");
  });

  it("a run.json of the previous layout resumes with the same flags and is refused with others", async () => {
    const out = path.join(merge.fx.scratch("runs"), "previous");
    const filters = ["--scenario", "mcr", "--language", "python", "--sample", "1", "--seed", "2", "--ids", merge.sample.id];
    const args = ["--history", "1", "--mcr-tools", "extended", ...filters];
    expect((await run(out, args)).code).toBe(0);
    toPreviousLayout(out);
    const previous = readRunJson(out).identity;
    expect(previous).toMatchObject({ history: 1, mcr_tools: "extended", scenarios: ["MCR"], languages: ["python"], sample: { size: 1, seed: 2 }, ids: [merge.sample.id], limit: null });
    expect(previous.spec).toBeUndefined();
    expect(RunStore.readConfig(out).identity.spec).toEqual({ history: 1, mcr_tools: "extended", scenarios: ["MCR"], languages: ["python"], sample: { size: 1, seed: 2 }, ids: [merge.sample.id], seed: 2 });
    const again = await run(out, args);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/already done/);

    toPreviousLayout(out);
    const deeper = await run(out, ["--history", "full", "--mcr-tools", "extended", ...filters]);
    expect(deeper.code).not.toBe(0);
    expect(deeper.stderr).toMatch(/spec\.history: 1 -> "full"/);
    const tools = await run(out, ["--history", "1", ...filters]);
    expect(tools.code).not.toBe(0);
    expect(tools.stderr).toMatch(/spec\.mcr_tools: "extended" -> none/);
  });

  it("a previous run.json at the defaults (history 50, no filter) resumes with no flags and is refused with a filter", async () => {
    const out = path.join(merge.fx.scratch("runs"), "previous-plain");
    expect((await run(out, [])).code).toBe(0);
    toPreviousLayout(out);
    expect(readRunJson(out).identity).toMatchObject({ history: DEFAULT_HISTORY, ids: null, limit: null });
    expect(RunStore.readConfig(out).identity.spec).toBeUndefined();
    const again = await run(out, []);
    expect(again.code, again.stderr).toBe(0);
    const limited = await run(out, ["--limit", "1"]);
    expect(limited.code).not.toBe(0);
    expect(limited.stderr).toMatch(/spec\.limit: none -> 1/);
  });

  it("travel in a queue ticket's spec, from which the attempt takes its history and MCR tools", async () => {
    const out = path.join(merge.fx.scratch("runs"), "ticketed");
    expect((await run(out, ["--history", "2", "--mcr-tools", "extended"])).code).toBe(0);
    const ticket = oracleTicket(out, merge.sample);
    expect(ticket.spec).toMatchObject({ history: 2, mcr_tools: "extended" });
    expect(ticket).not.toHaveProperty("history");
    expect(() => parseTicket({ ...ticket, spec: { ...ticket.spec, history: "deep" } })).toThrow(/spec\.history/);
  });

  it("--sample takes its seed from --seed (0 without it)", () => {
    expect(specFromOptions({ sample: { size: 4, seed: 0 }, seed: 9 }).sample).toEqual({ size: 4, seed: 9 });
    expect(specFromOptions({ sample: { size: 4, seed: 0 } }).sample).toEqual({ size: 4, seed: 0 });
    expect(specFromOptions({ seed: 9 }).sample).toBeNull();
  });
});
