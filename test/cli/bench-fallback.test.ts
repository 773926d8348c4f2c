import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { gitgood } from "../helpers/cli.js";
import { Fixture } from "../helpers/fixture.js";

const fx = new Fixture();
fx.commit("only commit", { "notes.md": "nothing to mine here\n" });
const scratch = mkdtempSync(path.join(os.tmpdir(), "gitgood-bench-fallback-"));
afterAll(() => {
  fx.remove();
  rmSync(scratch, { recursive: true, force: true });
});

describe("gitgood bench in a repository with nothing to mine", () => {
  it("falls back to the demo repository when no repository was named, and refuses a named one in one line", async () => {
    const env = { GITGOOD_SANDBOX_ROOT: path.join(scratch, "sandboxes") };
    const out = path.join(scratch, "out");
    const r = await gitgood(["bench", "--out", out, "--per-type", "1"], { cwd: fx.dir, env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("using a demo repository instead");
    expect(r.stderr).toMatch(/mined \d+ samples from gitgood\/demo/);
    expect(existsSync(path.join(out, "run", "results.jsonl"))).toBe(true);
    const named = await gitgood(["bench", fx.dir, "--out", path.join(scratch, "out2")], { env });
    expect(named.code).toBe(1);
    expect(named.stderr).toMatch(/^gitgood: no merge conflicts or file-commit chains to benchmark in .*; try 'gitgood bench --demo'\n$/);
  });
});
