import { z } from "zod";
import { isChainSample, type ChainSample } from "../../../src/dataset/sample.js";
import type { Repo } from "../../../src/git/repo.js";
import type { Sandbox } from "../../../src/sandbox/sandbox.js";
import type { ScenarioDefinition, Strategy } from "../../../src/scenarios/definition.js";
import { ScenarioBase, inNewSandbox } from "../../../src/scenarios/shared/base.js";
import type { InitialContext } from "../../../src/scenarios/types.js";
import type { Scorer } from "../../../src/scoring/scorer.js";
import { ToolRegistry } from "../../../src/tools/registry.js";
import { defineTool } from "../../../src/tools/tool.js";

/**
 * A toy fourth scenario, defined entirely in the test suite: "how many commits does this chain have?".
 * It proves that a scenario is one folder plus one registration: run, report, env, tool and MCP need no
 * other change.
 */

const StateSchema = z.object({ answer: z.number().int().nullable() });
type ToyData = z.infer<typeof StateSchema>;
const FinalSchema = z.object({ done: z.boolean(), answer: z.number().int().nullable() });
type ToyFinal = z.infer<typeof FinalSchema>;

class ToyScenario extends ScenarioBase<ToyData> {
  declare readonly sample: ChainSample;

  answer(n: number): string {
    this.data.answer = n;
    return `Recorded ${n}. The task is finished.`;
  }

  async initialContext(): Promise<InitialContext> {
    const text = `Count the commits of the chain of ${this.sample.scenario.file} ending at ${this.sample.scenario.newest_commit}.`;
    return { data: { file: this.sample.scenario.file }, text };
  }

  isDone(): boolean {
    return this.data.answer !== null;
  }

  async finalState(): Promise<ToyFinal> {
    return { done: this.isDone(), answer: this.data.answer };
  }
}

const count = z.number().int().min(0).describe("How many commits the chain has.");

const TOOLS = new ToolRegistry<ToyScenario>([
  defineTool<ToyScenario, { count: typeof count }>({
    name: "submit_count",
    description: "Submits your answer: the number of commits in the chain.",
    params: { count },
    readOnly: false,
    async run(s, args) {
      return s.answer(args.count);
    },
  }),
]);

const rightCount: Scorer<ChainSample, ToyFinal> = {
  name: "right_count",
  async score(sample, final) {
    return { solved: final.answer === sample.scenario.times_seen_consecutively, value: { answer: final.answer } };
  },
};

const submit = (n: (s: ToyScenario) => number, name: string, description: string): Strategy<ToyScenario> => ({
  name,
  description,
  async run(session) {
    session.beginTurn();
    await session.call("submit_count", { count: n(session.scenario), reason: name });
  },
});

export const TOY: ScenarioDefinition<ChainSample, ToyScenario, ToyFinal, ToyData> = {
  name: "TOY",
  title: "count the chain's commits",
  accepts: isChainSample,
  tools: TOOLS,
  prompt: "Your task: say how many commits the chain has.",
  setup: (sample: ChainSample, source: Repo, opts) =>
    inNewSandbox(source, { label: sample.id, keep: opts.keep, root: opts.root, store: { packs: [], shallow: [] } }, async (sandbox: Sandbox) =>
      new ToyScenario(TOY, sandbox, sample, source.dir, { answer: null }),
    ),
  restore: (sandbox, sample, source, data) => new ToyScenario(TOY, sandbox, sample, source, data),
  stateSchema: StateSchema,
  finalSchema: FinalSchema,
  scorers: [rightCount],
  groundTruth: async (scenario, final) => `answer ${final.answer ?? "-"}, truth ${scenario.sample.scenario.times_seen_consecutively}`,
  oracle: submit((s) => s.sample.scenario.times_seen_consecutively, "oracle", "the true count"),
  baselines: [submit(() => 3, "guess-three", "always says 3")],
  describeFinal: (final) => `toy: ${final.done ? `answered ${final.answer}` : "no answer yet"}`,
};
