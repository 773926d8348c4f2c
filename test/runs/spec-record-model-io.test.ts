import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli/main.js";
import { RECORD_MODEL_IO, specValue } from "../../src/runs/spec.js";
import { parseTicket } from "../../src/runs/ticket.js";
import { useOneMerge } from "../helpers/one-merge.js";
import { oracleTicket } from "../helpers/runs.js";

/*
 * What the trajectory keeps of an external agent's model requests (`--record-model-io`) as a run setting: the
 * option of run and bench made from its declaration, recorded in run.json's spec (not its identity), carried
 * by a queue ticket's spec; a ticket of an older producer that carries it beside its spec is refused.
 */

const merge = useOneMerge();
const { run, silent } = merge;

type RunJson = { identity: { spec?: Record<string, unknown> }; spec?: Record<string, unknown> };

const readRunJson = (dir: string) => merge.readRunJson<RunJson>(dir);

describe("--record-model-io as a run setting", () => {
  it("is an option of run and bench with its choices and default", async () => {
    for (const verb of ["run", "bench"]) {
      const help = (await buildProgram(silent, verb)).commands.find((c) => c.name() === verb)?.helpInformation() ?? "";
      expect(help.replace(/\s+/g, " "), verb).toContain('--record-model-io <mode> what the trajectory keeps of each model request an external agent makes');
      expect(help.replace(/\s+/g, " "), verb).toContain('(choices: "digest", "full", default: "digest")');
    }
  });

  it("is recorded in run.json's spec, not its identity, and travels in a queue ticket's spec", async () => {
    const out = path.join(merge.fx.scratch("runs"), "full");
    const first = await run(out, ["--record-model-io", "full"]);
    expect(first.code, first.stderr).toBe(0);
    const json = readRunJson(out);
    expect(json.spec).toMatchObject({ record_model_io: "full" });
    expect(json.identity.spec ?? {}).not.toHaveProperty("record_model_io");
    // What is recorded is not what is evaluated: another session may record otherwise.
    const again = await run(out, []);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/already done/);
    expect(readRunJson(out).spec).toMatchObject({ record_model_io: "digest" });

    const ticket = oracleTicket(path.join(merge.fx.scratch("runs"), "full"), merge.sample);
    expect(specValue(ticket.spec, RECORD_MODEL_IO)).toBe("digest");
    const asked = path.join(merge.fx.scratch("runs"), "asked-full");
    expect((await run(asked, ["--record-model-io", "full"])).code).toBe(0);
    const full = oracleTicket(asked, merge.sample);
    expect(full.spec).toMatchObject({ record_model_io: "full" });
    expect(full).not.toHaveProperty("record_model_io");
  });

  it("refuses a mode it does not know in one line", async () => {
    const bad = await run(path.join(merge.fx.scratch("runs"), "bad"), ["--record-model-io", "everything"]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr.trim().split("\n")).toHaveLength(1);
    expect(bad.stderr).toMatch(/--record-model-io.*everything/);
  });

  it("refuses a ticket of an older producer that carries it beside its spec", async () => {
    const out = path.join(merge.fx.scratch("runs"), "older");
    expect((await run(out, [])).code).toBe(0);
    const ticket = oracleTicket(out, merge.sample);
    // Read beside the spec no more, it would be dropped and the job recorded otherwise than the run asked: refused instead.
    expect(() => parseTicket({ ...ticket, record_model_io: "full" })).toThrow(
      /^not a job ticket of this gitgood: record_model_io travel in its spec now; run the producer and the workers at the same version$/,
    );
  });
});
