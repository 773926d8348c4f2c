import path from "node:path";
import { createAgent } from "../../src/agents/index.js";
import { samplesDigest } from "../../src/dataset/digest.js";
import type { Sample } from "../../src/dataset/sample.js";
import type { ModelRequest } from "../../src/model/types.js";
import { runConfig, type ModelInfo } from "../../src/runs/config.js";
import { runBenchmark } from "../../src/runs/runner.js";
import { RunStore } from "../../src/runs/store.js";
import { ScriptedModelClient, type ScriptStep } from "../../src/testing.js";
import type { Fixture } from "../helpers/fixture.js";
import { buildRunFixture, tempDirs } from "../helpers/runs.js";

/** The scripted model's name, as run.json records it and models.yaml names it. */
export const LLM_MODEL = "scripted/leaderboard";
export const REPEATS = 3;

/** Three real runs of the calculator fixture's merges, 3 repeats each: the baseline, the oracle and the llm agent with a scripted model. */
export interface LeaderboardRuns {
  fx: Fixture;
  samples: Sample[];
  /** Run directories by agent. */
  baseline: string;
  oracle: string;
  llm: string;
  root: string;
  cleanup: () => void;
}

/**
 * The scripted model: on the easy merge (its conflict is in io.py) it resolves the conflict as the
 * recorded merge did in the first and third attempt and gives up in the second; on the other merge it
 * gives up. Giving up is a reply without a tool call (the agent asks twice more, then stops).
 */
function scriptedModel(): ScriptedModelClient {
  let easyAttempts = 0;
  const step = (request: ModelRequest): ScriptStep => {
    const context = request.messages.find((m) => m.role === "user")?.content ?? "";
    const started = request.messages.some((m) => m.role === "assistant");
    const easy = typeof context === "string" && context.includes("io.py");
    if (!started && easy) easyAttempts++;
    if (easy && !started && easyAttempts !== 2) {
      return { content: "Keeping the topic side.", tool_calls: [{ name: "resolve_current_merge_conflict_with", arguments: { content: "io3 = 'topic'\n", reason: "keep topic" } }] };
    }
    return { content: "I cannot resolve this one." };
  };
  return new ScriptedModelClient(Array.from({ length: 400 }, () => step), LLM_MODEL);
}

export async function buildLeaderboardRuns(names: { llm?: string } = {}): Promise<LeaderboardRuns> {
  const { fx, samples: all } = await buildRunFixture();
  const samples = all.filter((s) => s.sample_type === "merge");
  const dirs = tempDirs();
  const digest = samplesDigest(samples);
  const run = async (name: string, agentName: string, model: ModelInfo | null, client?: ScriptedModelClient): Promise<string> => {
    const dir = path.join(path.dirname(dirs.out), name);
    const agent = createAgent(agentName, { client });
    const store = RunStore.open(dir, runConfig({ samples: ["merges.jsonl"], samplesDigest: digest, agent: agent.name, model, spec: { repeats: REPEATS, max_turns: 10 } }, (p) => p));
    await runBenchmark({
      samples, where: { repo: fx.dir }, agent, store, jobs: 1, judges: [], spec: { timeout_s: 60, max_turns: 10, repeats: REPEATS },
      // Dollars per million tokens: the scripted model's 10 prompt and 5 completion tokens a turn cost $0.105.
      ...(model ? { modelPrices: { [model.name]: { input: 3000, output: 15000 } }, agentModel: model.name } : {}),
    });
    return dir;
  };
  const baseline = await run("baseline", "baseline", null);
  const oracle = await run("oracle", "oracle", null);
  const llm = await run(names.llm ?? "llm", "llm", { name: LLM_MODEL, endpoint: null }, scriptedModel());
  return {
    fx, samples, baseline, oracle, llm, root: path.dirname(dirs.out),
    cleanup: () => {
      dirs.cleanup();
      fx.remove();
    },
  };
}
