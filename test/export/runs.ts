import { createAgent } from "../../src/agents/index.js";
import type { Sample } from "../../src/dataset/sample.js";
import { runConfig } from "../../src/runs/config.js";
import { runBenchmark } from "../../src/runs/runner.js";
import { RunStore } from "../../src/runs/store.js";
import { ScriptedModelClient } from "../../src/testing.js";
import type { Fixture } from "../helpers/fixture.js";
import { buildRunFixture, tempDirs } from "../helpers/runs.js";

/**
 * Two real runs over the calculator fixture: `llm` (a scripted model that looks at the easy merge's
 * conflict, sends malformed arguments once, stops early once and then resolves it: solved, 5 turns with
 * tokens) and `oracle` (every sample; tool calls with no model turns; IR/ICC left unjudged).
 */
export interface ExportFixture {
  fx: Fixture;
  samples: Sample[];
  llmRun: string;
  oracleRun: string;
  root: string;
  cleanup: () => void;
}

export async function buildExportRuns(): Promise<ExportFixture> {
  const { fx, samples } = await buildRunFixture();
  const dirs = tempDirs();
  const easy = samples.find((s) => s.sample_type === "merge" && s.difficulty === "easy");
  if (!easy) throw new Error("the fixture has no easy merge");
  const run = async (name: string, agentName: string, which: readonly Sample[], client?: ScriptedModelClient): Promise<string> => {
    const dir = `${dirs.out}-${name}`;
    const agent = createAgent(agentName, { client });
    const store = RunStore.open(dir, runConfig({ samples: ["test"], agent: agent.name }, (p) => p));
    await runBenchmark({ samples: which, where: { repo: fx.dir }, agent, store, jobs: 1, spec: { timeout_s: 60, max_turns: 10 }, judges: [] });
    return dir;
  };
  const model = new ScriptedModelClient([
    { tool_calls: [{ name: "view_current_merge_conflict_with", arguments: { context_window_size: 2, reason: "look" } }] },
    { tool_calls: [{ name: "resolve_current_merge_conflict_with", arguments: "{not json" }] },
    { content: "I think it is done." },
    { content: "Resolving now.", tool_calls: [{ name: "resolve_current_merge_conflict_with", arguments: { content: "io3 = 'topic'\n", reason: "keep topic" } }] },
  ]);
  const llmRun = await run("llm", "llm", [easy], model);
  const oracleRun = await run("oracle", "oracle", samples);
  return {
    fx,
    samples,
    llmRun,
    oracleRun,
    root: `${dirs.out}-root`,
    cleanup: () => {
      dirs.cleanup();
      fx.remove();
    },
  };
}
