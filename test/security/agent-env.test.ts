import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { agentEnvironment } from "../../src/sandbox/agent-env.js";
import { bwrapUnavailable } from "../../src/sandbox/isolation.js";
import { trajectoryOf } from "../helpers/mcp.js";
import { useRunFixture } from "../helpers/run-fixture.js";

// Command agents run through the built CLI (`gitgood tool`): npm run build first.
const noBwrap = bwrapUnavailable();
const KEY = `fake-api-key-canary-${process.pid}`;
const TOKEN = `github-token-canary-${process.pid}`;
const PASSED = `passed-canary-${process.pid}`;

const calc = useRunFixture();

/** The environment the agent program printed (`env`), as its trajectory's note holds it. */
function agentSaw(out: string): string {
  const record = calc.easyRecord(out);
  expect(record?.status, JSON.stringify(record?.error)).toBe("success");
  return (trajectoryOf(out, record).events as { type: string; text?: string }[]).find((e) => e.type === "note")?.text ?? "";
}

const hostEnv = { FAKE_API_KEY: KEY, GITHUB_TOKEN: TOKEN, FAKE_PASSED: PASSED, LANG: "C.UTF-8" };

describe("the environment of agent programs", () => {
  it.for(["none", "namespace"] as const)("holds none of the host's keys by default, only what --pass-env names (isolation %s)", { timeout: 180_000 }, async (mode, ctx) => {
    if (mode === "namespace" && noBwrap) ctx.skip();
    const out = `${calc.out}-${mode}`;
    const args = ["--agent", "command", "--command", "cat > /dev/null; env", "--isolation", mode];
    const r = await calc.runEasy([...args, "--out", out], hostEnv);
    expect(r.code, r.stderr).toBe(0);
    const seen = agentSaw(out);
    expect(seen).not.toContain(KEY);
    expect(seen).not.toContain(TOKEN);
    expect(seen).not.toContain(PASSED);
    // What it needs is there: PATH (with the gitgood shim first), LANG, and gitgood's own variables.
    expect(seen).toMatch(/^PATH=.*\/bin:/m);
    expect(seen).toContain("LANG=C.UTF-8");
    expect(seen).toMatch(/^GITGOOD_TOOL_SOCKET=/m);
    expect(seen).toContain(`GITGOOD_SAMPLE_ID=${calc.easy.id}`);

    const passed = `${out}-passed`;
    const p = await calc.runEasy([...args, "--pass-env", "FAKE_PASSED", "--out", passed], hostEnv);
    expect(p.code, p.stderr).toBe(0);
    const seenPassed = agentSaw(passed);
    expect(seenPassed).toContain(`FAKE_PASSED=${PASSED}`);
    expect(seenPassed).not.toContain(KEY);
    expect(JSON.parse(readFileSync(path.join(passed, "run.json"), "utf8")).isolation.pass_env).toEqual(["FAKE_PASSED"]);
  });

  it("takes pass-env from the configuration file too", async () => {
    const config = `${calc.out}-config.yaml`;
    writeFileSync(config, "run:\n  pass-env: [FAKE_PASSED]\n");
    const out = `${calc.out}-config`;
    const r = await calc.runEasy(["--agent", "command", "--command", "cat > /dev/null; env", "--isolation", "none", "--config", config, "--out", out], hostEnv);
    expect(r.code, r.stderr).toBe(0);
    const seen = agentSaw(out);
    expect(seen).toContain(`FAKE_PASSED=${PASSED}`);
    expect(seen).not.toContain(KEY);
  }, 120_000);

  it("removes every host variable outside the allow-list and keeps gitgood's own", () => {
    const env = agentEnvironment({ PATH: "/bin", HOME: "/h", LC_ALL: "C", AWS_SECRET_ACCESS_KEY: "s", X: "1" }, ["X"], { GITGOOD_SAMPLE_ID: "a" });
    expect(env).toEqual({ AWS_SECRET_ACCESS_KEY: undefined, GITGOOD_SAMPLE_ID: "a" });
  });
});
