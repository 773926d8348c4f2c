import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gitgood } from "../helpers/cli.js";
import { useRunFixture } from "../helpers/run-fixture.js";

const calc = useRunFixture();

describe("a damaged trajectory", () => {
  it("makes gitgood score say so in one line naming the file, and report still reports", async () => {
    const out = calc.out;
    const r = await calc.runEasy(["--agent", "command", "--command", "cat > /dev/null", "--isolation", "none", "--out", out]);
    expect(r.code, r.stderr).toBe(0);
    const rel = calc.easyRecord(out)?.trajectory ?? "";
    const file = path.join(out, rel);
    writeFileSync(file, '{"scenario": "MCR", "final": {');
    const score = await gitgood(["score", out]);
    expect(score.code).toBe(1);
    expect(score.stderr.trim().split("\n")).toEqual([`gitgood: the trajectory ${file} is damaged (not JSON)`]);
    const report = await gitgood(["report", out, "--html", path.join(out, "page.html")]);
    expect(report.code, report.stderr).toBe(0);
  }, 120_000);
});
