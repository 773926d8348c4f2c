import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, gitgood } from "../helpers/cli.js";
import { useCacheDir } from "../helpers/envs.js";
import { Fixture } from "../helpers/fixture.js";
import { useSandboxRoot } from "../helpers/scenarios.js";
import { CALC_BASE } from "../helpers/swe.js";
import { waitFor } from "../helpers/processes.js";

/*
 * A mining killed in the middle starts again where it stopped: two fixes are validated, then the newest
 * candidate's test never ends and the miner is killed while it waits on it. The second mining takes the
 * two verdicts from the cache (no test run for them) and validates only the one it had not finished,
 * whose time-out is not kept for a third mining.
 */

let root: ReturnType<typeof useSandboxRoot>;
let cache: ReturnType<typeof useCacheDir>;
let f: Fixture;
const fixes: string[] = [];
let hang = "";

const FIXED_SUB = CALC_BASE.replace("def sub(a, b):\n    return a + b", "def sub(a, b):\n    return a - b");
const FIXED_MUL = FIXED_SUB.replace("def mul(a, b):\n    return a * b", "def mul(a, b):\n    return a * b + 0");

beforeAll(() => {
  root = useSandboxRoot();
  cache = useCacheDir();
  f = new Fixture();
  f.commit("calc", { "pyproject.toml": '[project]\nname = "calc"\n', "calc/__init__.py": CALC_BASE });
  fixes.push(f.commit("Fix sub", { "calc/__init__.py": FIXED_SUB, "tests/test_sub.py": "from calc import sub\n\n\ndef test_sub():\n    assert sub(3, 1) == 2\n" }));
  fixes.push(
    f.commit("Add div", {
      "calc/__init__.py": `${FIXED_SUB}\n\ndef div(a, b):\n    return a / b\n`,
      "tests/test_div.py": "from calc import div\n\n\ndef test_div():\n    assert div(6, 3) == 2\n",
    }),
  );
  hang = f.commit("Add a test that waits forever", {
    "calc/__init__.py": `${FIXED_MUL}\n\ndef div(a, b):\n    return a / b\n`,
    "tests/test_wait.py": "import time\n\n\ndef test_wait():\n    while True:\n        time.sleep(0.05)\n",
  });
});

afterAll(() => {
  f?.remove();
  root?.cleanup();
  cache?.cleanup();
});

const verdictsDir = (): string => path.join(cache.dir, "swe-mining", "acme_calc");
const verdictCount = (): number => (existsSync(verdictsDir()) ? readdirSync(verdictsDir()).filter((n) => n.endsWith(".json")).length : 0);


describe("mine --type swe, killed and started again", () => {
  it("validates nothing twice: the second mining reuses the verdicts the first one wrote", async () => {
    const args = ["mine", f.dir, "--type", "swe", "--name", "acme/calc", "--runs", "1", "-j", "1"];
    const env = { ...process.env, GITGOOD_CACHE_DIR: cache.dir, GITGOOD_SANDBOX_ROOT: root.root };
    // The first mining: its own process group, so the kill takes its test runs with it.
    const child = spawn(process.execPath, [BIN, ...args, "--test-timeout", "3600", "-o", path.join(cache.dir, "first.jsonl")], {
      env,
      detached: true,
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    try {
      // Both fixes validated (their verdicts written); the third candidate's test is now waiting forever.
      await waitFor(() => verdictCount() >= 2 || child.exitCode !== null, "two verdicts", 240_000);
      expect(child.exitCode, stderr).toBeNull();
      expect(stderr).toMatch(/\[2\/3\]/);
    } finally {
      if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, "SIGKILL");
    }
    await exited;
    expect(verdictCount()).toBe(2);

    // The second mining: the waiting test now meets a time limit, so the candidate ends as a time-out.
    const out = path.join(cache.dir, "second.jsonl");
    const r = await gitgood([...args, "--test-timeout", "5", "-o", out, "--json"], { env: { GITGOOD_CACHE_DIR: cache.dir } });
    expect(r.code, r.stderr).toBe(0);
    const summary = JSON.parse(r.stderr.trim().split("\n").at(-1) ?? "{}") as Record<string, unknown>;
    expect(summary).toMatchObject({ candidates: 3, validated: 3, reused: 2, instances: 2, dropped: { timeout: 1 } });
    // A time-out says more about the machine than the change: it is not kept, so the next mining tries again.
    expect(verdictCount()).toBe(2);
    const mined = readFileSync(out, "utf8").trim().split("\n").map((l) => (JSON.parse(l) as { commit: string }).commit);
    expect(mined).toEqual(fixes);
    expect(mined).not.toContain(hang);
  }, 400_000);
});
