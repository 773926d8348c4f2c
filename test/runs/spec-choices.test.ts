import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { parseAssessment } from "../../src/a2a/assessment.js";
import { buildProgram } from "../../src/cli/main.js";
import { beyondSpec, defineRunSetting, narrowedSpec, specFromOptions } from "../../src/runs/spec.js";
import { RunStore } from "../../src/runs/store.js";
import { useOneMerge } from "../helpers/one-merge.js";

/*
 * The run's choices declared as run settings (`--repeats`, `--memory`): options of run and bench only,
 * recorded in run.json's spec and, when not at their defaults, in identity.spec; a worker runs what a
 * ticket chose and an A2A request cannot choose them. A run.json written before they moved into the spec
 * (identity.memory, identity.repeats) still resumes.
 */

const merge = useOneMerge();
const { run, silent } = merge;

type RunJson = { identity: Record<string, unknown> & { spec?: Record<string, unknown> }; spec?: Record<string, unknown> };

/** Rewrites a run's run.json as gitgood wrote it before repeats and memory were run settings. */
function toPreviousFormat(dir: string): void {
  const file = path.join(dir, "run.json");
  const json = JSON.parse(readFileSync(file, "utf8")) as RunJson;
  const { spec: identitySpec = {}, ...identity } = json.identity;
  const { repeats, memory, ...limits } = json.spec ?? {};
  const previous = {
    ...json,
    identity: { ...identity, memory: identitySpec.memory === true, ...(typeof identitySpec.repeats === "number" ? { repeats: identitySpec.repeats } : {}) },
    spec: limits,
  };
  expect(repeats).toBe(identitySpec.repeats ?? 1);
  expect(memory).toBe(identitySpec.memory ?? false);
  writeFileSync(file, `${JSON.stringify(previous, null, 2)}\n`);
}

describe("the run's choices as run settings", () => {
  it("are options of run and bench, not of worker or a2a serve", async () => {
    for (const verb of ["run", "bench"]) {
      const help = (await buildProgram(silent, verb)).commands.find((c) => c.name() === verb)?.helpInformation() ?? "";
      expect(help).toMatch(/--repeats <k>\s+run every sample × scenario K times[^\n]*\n[^\n]*\(default: 1\)/);
      expect(help).toMatch(/--memory\s+run every scenario twice/);
    }
    const worker = (await buildProgram(silent, "worker")).commands.find((c) => c.name() === "worker")?.helpInformation() ?? "";
    expect(worker).toContain("--max-processes");
    expect(worker).not.toContain("--repeats");
    const a2a = (await buildProgram(silent, "a2a")).commands.find((c) => c.name() === "a2a");
    const serve = a2a?.commands.find((c) => c.name() === "serve")?.helpInformation() ?? "";
    expect(serve).toContain("--max-processes");
    expect(serve).not.toMatch(/--repeats|--memory\b/);
  });

  it("are recorded in run.json's spec, in identity.spec when not at their defaults", async () => {
    const plain = path.join(merge.fx.scratch("runs"), "plain");
    expect((await run(plain, [])).code).toBe(0);
    const p = JSON.parse(readFileSync(path.join(plain, "run.json"), "utf8")) as RunJson;
    expect(p.spec).toMatchObject({ repeats: 1, memory: false });
    expect(p.identity.spec).toBeUndefined();
    expect(p.identity).not.toHaveProperty("repeats");
    expect(p.identity).not.toHaveProperty("memory");
    const twice = path.join(merge.fx.scratch("runs"), "twice");
    const r = await run(twice, ["--repeats", "2"]);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(readFileSync(path.join(twice, "run.json"), "utf8")) as RunJson).identity.spec).toEqual({ repeats: 2 });
  });

  it("a run.json of the previous format resumes with the same choices and is refused with others", async () => {
    const out = path.join(merge.fx.scratch("runs"), "previous");
    expect((await run(out, ["--repeats", "3"])).code).toBe(0);
    toPreviousFormat(out);
    expect(RunStore.readConfig(out).identity.spec).toEqual({ repeats: 3 });
    const again = await run(out, ["--repeats", "3"]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/already done/);
    toPreviousFormat(out);
    const other = await run(out, ["--repeats", "2"]);
    expect(other.code).not.toBe(0);
    expect(other.stderr).toMatch(/spec\.repeats: 3 -> 2/);
    const memory = await run(out, ["--repeats", "3", "--memory"]);
    expect(memory.code).not.toBe(0);
    expect(memory.stderr).toMatch(/spec\.memory: none -> true/);
  });

  it("a previous run.json with the memory variant on reads as identity.spec.memory", async () => {
    const out = path.join(merge.fx.scratch("runs"), "previous-memory");
    expect((await run(out, ["--memory"])).code).toBe(0);
    toPreviousFormat(out);
    expect((JSON.parse(readFileSync(path.join(out, "run.json"), "utf8")) as RunJson).identity.memory).toBe(true);
    expect(RunStore.readConfig(out).identity.spec).toEqual({ memory: true });
    expect((await run(out, ["--memory"])).code).toBe(0);
  });

  it("are the ticket's to choose: a worker's bounds leave them alone, an A2A request cannot make them", () => {
    const worker = specFromOptions({});
    expect(beyondSpec(worker, { repeats: 5, memory: true })).toBeNull();
    expect(() => narrowedSpec(worker, { repeats: 5 })).toThrow(/operator/);
    const request = JSON.stringify({ participants: { agent: "http://127.0.0.1:9/" }, config: { dataset: "d.jsonl", repo: "r", repeats: 5 } });
    expect(parseAssessment(request).requested).not.toHaveProperty("repeats");
  });

  it("a choice a request could make is a programming error", () => {
    expect(() =>
      // @ts-expect-error: a choice's declaration has no request rule; a plug-in written in JavaScript may still give one.
      defineRunSetting<number>({ key: "chosen_limit", option: "chosen-limit", value: "<n>", help: "h", schema: z.number(), default: 1, identity: false, request: "at-most", kind: "choice", group: "test" }),
    ).toThrow(/choice/);
  });
});
