import { Command, Option } from "commander";
import { readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import type { AgentKind } from "../../../src/agents/index.js";
import { COMMON_SAMPLE_FIELDS, type Sample, type SampleTypeDefinition } from "../../../src/dataset/sample.js";
import type { FamilyCommandLine } from "../../../src/families/command-line.js";
import { defineFamily, type ParticipantTask, type ReportFormat, type ReportSection } from "../../../src/families/definition.js";
import type { ResultRecord } from "../../../src/runs/record.js";
import { defineScenario, type AnyScenarioDefinition, type ScenarioDefinition, type Strategy } from "../../../src/scenarios/definition.js";
import { ScenarioBase, inNewSandbox } from "../../../src/scenarios/shared/base.js";
import type { InitialContext } from "../../../src/scenarios/types.js";
import type { Scorer } from "../../../src/scoring/scorer.js";
import { ToolRegistry } from "../../../src/tools/registry.js";
import { defineTool } from "../../../src/tools/tool.js";

/**
 * A toy task family, defined entirely in the test suite: "what is a + b?", over a sample type of its own
 * (`toy_sum`). It brings its scenario, its report section, a CLI option with its scenario setting and
 * run.json field, an agent, a report format, a verb and a mode of `gitgood mine`, an A2A participant task
 * and Result part: the proof that a family is its own folder plus one registration, with no file of src/
 * changed.
 */

export const TOY_SAMPLE_TYPE = "toy_sum";

const ToySumSampleSchema = z.object({
  ...COMMON_SAMPLE_FIELDS,
  sample_type: z.literal(TOY_SAMPLE_TYPE),
  scenario: z.object({ a: z.number().int(), b: z.number().int() }),
});
export type ToySumSample = z.infer<typeof ToySumSampleSchema>;

/**
 * The static `Sample` union knows only the built-in types (a family in src/ adds its own to it); a
 * plug-in's samples travel as `Sample` and are read through their own schema.
 */
const isToySum = (sample: Sample): sample is Sample => (sample as { sample_type: string }).sample_type === TOY_SAMPLE_TYPE;
const numbers = (sample: Sample): { a: number; b: number } => ToySumSampleSchema.parse(sample).scenario;

const StateSchema = z.object({ answer: z.number().int().nullable(), hinted: z.boolean() });
type ToyData = z.infer<typeof StateSchema>;
const FinalSchema = z.object({ done: z.boolean(), answer: z.number().int().nullable() });
type ToyFinal = z.infer<typeof FinalSchema>;

class ToySumScenario extends ScenarioBase<ToyData> {
  declare readonly sample: Sample;

  static setup(
    sample: Sample,
    source: { dir: string } & Parameters<typeof inNewSandbox>[0],
    opts: { keep?: boolean; root?: string; hint?: boolean },
    definition: AnyScenarioDefinition,
  ) {
    return inNewSandbox(source, { label: sample.id, keep: opts.keep, root: opts.root, store: { packs: [], shallow: [] } }, async (sandbox) =>
      new ToySumScenario(definition, sandbox, sample, source.dir, { answer: null, hinted: opts.hint === true }),
    );
  }

  static restore(sandbox: ConstructorParameters<typeof ToySumScenario>[1], sample: Sample, source: string, data: ToyData, definition: AnyScenarioDefinition) {
    return new ToySumScenario(definition, sandbox, sample, source, data);
  }

  answer(n: number): string {
    this.data.answer = n;
    return `Recorded ${n}.`;
  }

  async initialContext(): Promise<InitialContext> {
    const { a, b } = numbers(this.sample);
    const hint = this.data.hinted ? " (hint: add them)" : "";
    return { data: { a, b }, text: `What is ${a} + ${b}?${hint}` };
  }

  isDone(): boolean {
    return this.data.answer !== null;
  }

  async finalState(): Promise<ToyFinal> {
    return { done: this.isDone(), answer: this.data.answer };
  }
}

const sum = z.number().int().describe("The sum.");
const TOOLS = new ToolRegistry<ToySumScenario>([
  defineTool<ToySumScenario, { sum: typeof sum }>({
    name: "submit_sum",
    description: "Submits your answer: the sum of the two numbers.",
    params: { sum },
    readOnly: false,
    async run(s, args) {
      return s.answer(args.sum);
    },
  }),
]);

const rightSum: Scorer<Sample, ToyFinal> = {
  name: "right_sum",
  async score(sample, final) {
    return { solved: final.answer === numbers(sample).a + numbers(sample).b, value: { answer: final.answer } };
  },
};

const submit = (n: (s: ToySumScenario) => number, name: string, description: string): Strategy<ToySumScenario> => ({
  name,
  description,
  async run(session) {
    session.beginTurn();
    await session.call("submit_sum", { sum: n(session.scenario), reason: name });
  },
});

/** The toy family's one scenario, made with defineScenario's defaults (no describeFinal of its own). */
export const TOYSUM: ScenarioDefinition<Sample, ToySumScenario, ToyFinal, ToyData> = defineScenario<Sample, ToySumScenario, ToyFinal, ToyData, { hint: boolean }>({
  name: "TOYSUM",
  title: "add two numbers",
  accepts: isToySum,
  tools: TOOLS,
  prompt: "Your task: add the two numbers.",
  live: () => ToySumScenario,
  settings: (settings) => ({ hint: (settings?.toysum as { hint?: boolean } | undefined)?.hint === true }),
  stateSchema: StateSchema,
  finalSchema: FinalSchema,
  scorers: [rightSum],
  groundTruth: async (scenario, final) => `answer ${final.answer ?? "-"}, truth ${numbers(scenario.sample).a + numbers(scenario.sample).b}`,
  oracle: submit((s) => numbers(s.sample).a + numbers(s.sample).b, "oracle", "the true sum"),
  baselines: [submit(() => 0, "guess-zero", "always says 0")],
});

interface ToyRow {
  agent: string;
  attempts: number;
  exact: number;
}

declare module "../../../src/families/definition.js" {
  interface ReportSections {
    toysum?: ToyRow[];
  }
}

/** The toy family's table: per agent, attempts and exact answers. */
const SECTION: ReportSection<ToyRow[]> = {
  key: "toysum",
  build(records: readonly ResultRecord[]) {
    const mine = records.filter((r) => r.scenario === TOYSUM.name);
    return [...new Set(mine.map((r) => r.agent))].sort().map((agent) => {
      const rows = mine.filter((r) => r.agent === agent);
      return { agent, attempts: rows.length, exact: rows.filter((r) => r.solved === true).length };
    });
  },
  isEmpty: (rows) => rows.length === 0,
  text: (rows, kit) => ["Toy sums", kit.table(["agent", "attempts", "exact"], rows.map((r) => [r.agent, String(r.attempts), String(r.exact)]))],
  html: (rows, kit) => ({
    title: "Toy sums",
    intro: "Exact answers per agent.",
    table: `<table><tr>${kit.th("Agent")}${kit.th("Attempts")}${kit.th("Exact")}</tr>${rows.map((r) => `<tr>${kit.label(r.agent)}${kit.cell(r.attempts)}${kit.cell(r.exact)}</tr>`).join("")}</table>`,
  }),
};

/** `--toy-csv FILE`: the toy attempts as CSV. */
const CSV: ReportFormat = {
  name: "toy-csv",
  description: "the toy attempts as CSV",
  output: "file",
  render: (run) =>
    ["sample_id,agent,verdict", ...run.records.filter((r) => r.scenario === TOYSUM.name).map((r) => `${r.sample_id},${r.agent},${r.verdict}`)].join("\n") + "\n",
};

/** `--agent toy-adder`: adds the numbers through the tool. */
const ADDER: AgentKind = {
  name: "toy-adder",
  create: () => ({
    name: "toy-adder",
    workTree: "tools",
    supports: (scenario) => scenario === TOYSUM,
    async run(session) {
      session.beginTurn();
      const { a, b } = numbers(session.sample);
      await session.call("submit_sum", { sum: a + b, reason: "added" });
    },
  }),
};

const SAMPLES: SampleTypeDefinition = { type: TOY_SAMPLE_TYPE, schema: ToySumSampleSchema };

/**
 * The toy's part of the command line: `gitgood toy-count FILE` (its own verb) and `gitgood mine REPO
 * --type toy --toy-a A --toy-b B` (its own mode of mine, writing one toy sample for the repository).
 */
const COMMAND_LINE: FamilyCommandLine = {
  title: "toy sums",
  verbs: [
    {
      name: "toy-count",
      term: "toy-count <file>",
      summary: "count the toy sums of a samples file",
      load: async () => (io) =>
        new Command("toy-count")
          .description("count the toy sums of a samples file")
          .argument("<file>", "a samples file (JSONL)")
          .action((file: string) => {
            const rows = readFileSync(file, "utf8").split("\n").filter((l) => l.includes(`"sample_type":"${TOY_SAMPLE_TYPE}"`));
            io.stdout.write(`${rows.length} toy sum(s)\n`);
          }),
    },
  ],
  mineTypes: [
    {
      type: "toy",
      what: "toy sums",
      load: async () => ({
        options: (cmd) => cmd.option("--toy-a <n>", "toy: the first number", "1").option("--toy-b <n>", "toy: the second number", "2"),
        async run(repoPath, flags, io) {
          const name = typeof flags.name === "string" ? flags.name : path.basename(repoPath);
          io.stdout.write(`${JSON.stringify(toySample(`toy_sum_mined`, name, Number(flags.toyA), Number(flags.toyB)))}\n`);
          io.stderr.write(`mined 1 toy sum from ${name}\n`);
        },
      }),
    },
  ],
};

/** `TOY: A + B` to the A2A participant: the model answers through `submit_sum`, and the answer is the sum. */
const PARTICIPANT_TASK: ParticipantTask = {
  shape: "a toy sum (TOY: A + B)",
  skill: { id: "toy-sum", name: "Toy sum", description: "Adds two numbers.", tags: ["toy"] },
  matches: (text) => text.startsWith("TOY:"),
  async open(text) {
    let answer: number | null = null;
    return {
      tools: [
        {
          type: "function",
          function: { name: "submit_sum", description: "Submits the sum.", parameters: { type: "object", properties: { sum: { type: "integer" } }, required: ["sum"] } },
        },
      ],
      finishTool: "submit_sum",
      async call(_name, args) {
        answer = Number(args.sum);
        return `Recorded ${answer}.`;
      },
      submitted: () => answer !== null,
      where: "memory",
      text: `What is ${text.slice("TOY:".length).trim()}?`,
      prompt: "Answer with submit_sum.",
      answer: async () => `sum=${answer ?? "none"}`,
      close: () => undefined,
    };
  },
};

export const TOY_FAMILY = defineFamily<{ toyHint: boolean }>({
  name: "TOYSUM",
  scenarios: [TOYSUM],
  samples: [SAMPLES],
  report: SECTION,
  formats: [CSV],
  agents: [ADDER],
  commandLine: COMMAND_LINE,
  participantTask: PARTICIPANT_TASK,
  cli: {
    flags: z.object({ toyHint: z.boolean().default(false) }),
    options: (verb) => (verb === "run" || verb === "env" ? [new Option("--toy-hint", "TOYSUM: tell the agent to add").default(false)] : []),
    settings: (flags) => ({ toysum: { hint: flags.toyHint } }),
    identity: (flags) => (flags.toyHint ? { hint: true } : undefined),
  },
  a2aResult(records) {
    const mine = records.filter((r) => r.scenario === TOYSUM.name);
    return { lines: [`TOYSUM: ${mine.length} sum(s)`], data: { toy_sums: mine.length } };
  },
});

/** A toy sample in gitgood's own layout. */
export function toySample(id: string, repository: string, a: number, b: number): Record<string, unknown> {
  return {
    id,
    name: repository,
    default_branch: "main",
    license: null,
    stargazers: null,
    created_at: null,
    topics: null,
    programming_language: "Python",
    scenario: { a, b },
    sample_type: TOY_SAMPLE_TYPE,
    project_size: null,
    difficulty: "easy",
  };
}
