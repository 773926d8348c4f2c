import { readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { gitgood } from "../helpers/cli.js";
import { Fixture } from "../helpers/fixture.js";

/** Two merges resolved by hand: one conflicts in a Python file, the other in a TypeScript file. */
const fx = new Fixture();
fx.git("remote", "add", "origin", "https://github.com/acme/mixed.git");
const body = (line: string) => Fixture.lines("# line ", 12).replace("# line 5\n", `${line}\n`);
fx.commit("Initial", { "app.py": body("price = 10"), "price.ts": body("export const price = 10;") });
for (const [file, ours, theirs, merged] of [
  ["app.py", "price = 12", "price = 9", "price = 11"],
  ["price.ts", "export const price = 12;", "export const price = 9;", "export const price = 11;"],
] as const) {
  fx.checkout(`side-${file}`, true);
  fx.commit(`Side ${file}`, { [file]: body(theirs) });
  fx.checkout("main");
  fx.commit(`Main ${file}`, { [file]: body(ours) });
  fx.merge(`side-${file}`, { [file]: body(merged) });
  fx.git("branch", "-D", `side-${file}`);
}
afterAll(() => fx.remove());

const results = (dir: string) => readFileSync(path.join(dir, "results.jsonl"), "utf8").trim().split("\n").length;

describe("gitgood bench over changed samples", () => {
  it("gives other samples a run directory of their own and resumes each run with its own samples", async () => {
    const env = { GITGOOD_SANDBOX_ROOT: fx.scratch("sandboxes") };
    const out = fx.scratch("bench");
    const bench = (languages: string) => gitgood(["bench", fx.dir, "--languages", languages, "--agent", "oracle", "--out", out], { env });

    const python = await bench("python");
    expect(python.code, python.stderr).toBe(0);
    expect(python.stdout).toMatch(/^MCR\s+1\s+100\.00\s+100\.00\s/m);

    const both = await bench("python,typescript");
    expect(both.code, both.stderr).toBe(0);
    expect(both.stderr).toContain(`${path.join(out, "run")} holds a run of other samples or settings; this one goes to ${path.join(out, "run-2")}`);
    expect(both.stdout).toMatch(/^MCR\s+2\s+100\.00\s+100\.00\s/m);
    expect(results(path.join(out, "run"))).toBe(1);
    expect(results(path.join(out, "run-2"))).toBe(2);
    // Each run keeps the samples it ran beside it.
    expect(readFileSync(path.join(out, "samples.jsonl"), "utf8").trim().split("\n")).toHaveLength(1);
    expect(readFileSync(path.join(out, "samples-2.jsonl"), "utf8").trim().split("\n")).toHaveLength(2);

    const again = await bench("python");
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain("holds a run of other samples");
    expect(again.stdout).toMatch(/^MCR\s+1\s+100\.00\s+100\.00\s/m);
    expect(results(path.join(out, "run"))).toBe(1);
  });
});
