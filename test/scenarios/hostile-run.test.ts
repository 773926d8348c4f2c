import { readStaticPage } from "../../src/report/html-read.js";
import { lstatSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/agents/index.js";
import type { ChainSample, MergeSample, Sample } from "../../src/dataset/sample.js";
import { runConfig } from "../../src/runs/config.js";
import { runBenchmark } from "../../src/runs/runner.js";
import { RunStore } from "../../src/runs/store.js";
import { ScriptedModelClient } from "../../src/testing.js";
import { gitgood, setEnv } from "../helpers/cli.js";
import { HostileWorld, buildHostileChain, buildHostileMerge } from "./hostile-fixture.js";

let w: HostileWorld;
let merge: MergeSample;
let chain: ChainSample;
let restoreEnv: () => void;
let n = 0;

beforeAll(() => {
  w = new HostileWorld();
  merge = buildHostileMerge(w).sample;
  chain = buildHostileChain(w).sample;
  restoreEnv = setEnv({ GITGOOD_SANDBOX_ROOT: w.sandboxes });
});
afterAll(() => {
  restoreEnv();
  w.remove();
});

async function run(agentName: string, samples: readonly Sample[], client?: ScriptedModelClient) {
  const dir = path.join(w.runs, `run-${n++}`);
  const agent = createAgent(agentName, { client });
  const store = RunStore.open(dir, runConfig({ samples: ["hostile"], agent: agent.name }, (p) => p));
  const summary = await runBenchmark({ samples, where: { repo: w.fx.dir }, agent, store, jobs: 1, spec: { timeout_s: 60, max_turns: 10 }, judges: [] });
  return { dir, byKey: Object.fromEntries(summary.records.map((r) => [r.key, r])) };
}

/** Every file a run left (results, trajectories, run.json) and its report (text and HTML): none may hold canary content. */
async function expectRunClean(dir: string): Promise<void> {
  const html = path.join(dir, "report.html");
  const report = await gitgood(["report", dir, "--html", html]);
  expect(report.code, report.stderr).toBe(0);
  // The page carries its attempts packed: what it shows is read back too.
  const texts = [report.stdout, JSON.stringify(readStaticPage(readFileSync(html, "utf8")).attempts())];
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const full = path.join(d, name);
      if (lstatSync(full).isDirectory()) walk(full);
      else texts.push(readFileSync(full, "utf8"));
    }
  };
  walk(dir);
  expect(texts.length).toBeGreaterThan(3);
  for (const t of texts) expect(t).not.toContain(w.canaryText);
  w.assertUntouched();
}

describe("runs on hostile repositories", () => {
  it("the oracle solves the symbolic-link merge and reproduces the chain; no trajectory or report holds the canary", async () => {
    const { dir, byKey } = await run("oracle", [merge, chain]);
    expect(byKey[`${merge.id}.MCR`]).toMatchObject({ status: "success", solved: true });
    for (const s of ["IR", "ICC"]) {
      expect(byKey[`${chain.id}.${s}`]?.status).toBe("success");
      expect((byKey[`${chain.id}.${s}`]?.scores.checks as { tree_matches_tip: boolean }).tree_matches_tip).toBe(true);
    }
    await expectRunClean(dir);
  });

  it("an agent probing links gets refusals, and its trajectory holds no canary", async () => {
    const call = (name: string, args: Record<string, unknown>) => ({ tool_calls: [{ name, arguments: { ...args, reason: "probe" } }] });
    const model = new ScriptedModelClient([
      call("view_file_at", { relative_path_from_project_root: "docs/canary.txt" }),
      call("view_file_at", { relative_path_from_project_root: "abs.link" }),
      call("view_file_at", { relative_path_from_project_root: "gitlink/objects/info/alternates" }),
      call("view_diff_for", { relative_path_from_project_root: ":(glob)**" }),
      call("view_merge_conflict_at", { conflict_index: 1, context_window_size: 10 }),
      call("resolve_current_merge_conflict_with", { content: "app\n" }),
      call("resolve_current_merge_conflict_with", { content: "PWNED\n" }),
      // The merge is not finished, so the agent is asked to go on until the turn limit.
      ...Array.from({ length: 5 }, () => ({ content: "Done." })),
    ]);
    const { dir, byKey } = await run("llm", [merge], model);
    const r = byKey[`${merge.id}.MCR`];
    expect(r, JSON.stringify(r?.error)).toMatchObject({ status: "success", solved: false, turns: 10 });
    const trajectory = readFileSync(path.join(dir, r?.trajectory as string), "utf8");
    expect(trajectory).toContain("'docs' is a symbolic link, and the tools never go through links");
    expect(trajectory).toContain("(outside the project root); the tools never read through links");
    expect(trajectory).toContain("No changes in :(glob)**.");
    await expectRunClean(dir);
  });
});
