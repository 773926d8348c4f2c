// A toy task family, written as a gitgood plug-in: "what is a + b?", over a sample type of its own
// (`toy_sum`). It brings its scenario, its report section, a run setting (its option, its part of
// run.json's spec and its scenario setting), an agent, a report format, a verb and a mode of `gitgood mine`, and an A2A participant
// task with its Result part. It imports gitgood's public entry points only; gitgood loads it with
// `gitgood --plugin ./examples/toy-family ...` (or `plugins:` in gitgood.config.yaml) and calls its
// default export with the registration API. docs/plugins.md walks through it.
import { readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { COMMON_SAMPLE_FIELDS, ScenarioBase, ToolRegistry, defineFamily, defineScenario, defineTool, familySetting, inNewSandbox, specValue } from "gitgood/family";

export const TOY_SAMPLE_TYPE = "toy_sum";

const ToySumSampleSchema = z.object({
  ...COMMON_SAMPLE_FIELDS,
  sample_type: z.literal(TOY_SAMPLE_TYPE),
  scenario: z.object({ a: z.number().int(), b: z.number().int() }),
});

const isToySum = (sample) => sample.sample_type === TOY_SAMPLE_TYPE;
const numbers = (sample) => ToySumSampleSchema.parse(sample).scenario;

const StateSchema = z.object({ answer: z.number().int().nullable(), hinted: z.boolean() });
const FinalSchema = z.object({ done: z.boolean(), answer: z.number().int().nullable() });

/** One toy sum being worked: the answer given so far, and whether the agent was told to add. */
class ToySumScenario extends ScenarioBase {
  static setup(sample, source, opts, definition) {
    return inNewSandbox(source, { label: sample.id, keep: opts.keep, root: opts.root, store: { packs: [], shallow: [] } }, async (sandbox) =>
      new ToySumScenario(definition, sandbox, sample, source.dir, { answer: null, hinted: opts.hint === true }),
    );
  }

  static restore(sandbox, sample, source, data, definition) {
    return new ToySumScenario(definition, sandbox, sample, source, data);
  }

  answer(n) {
    this.data.answer = n;
    return `Recorded ${n}.`;
  }

  async initialContext() {
    const { a, b } = numbers(this.sample);
    const hint = this.data.hinted ? " (hint: add them)" : "";
    return { data: { a, b }, text: `What is ${a} + ${b}?${hint}` };
  }

  isDone() {
    return this.data.answer !== null;
  }

  async finalState() {
    return { done: this.isDone(), answer: this.data.answer };
  }
}

const sum = z.number().int().describe("The sum.");
const TOOLS = new ToolRegistry([
  defineTool({
    name: "submit_sum",
    description: "Submits your answer: the sum of the two numbers.",
    params: { sum },
    readOnly: false,
    async run(s, args) {
      return s.answer(args.sum);
    },
  }),
]);

const rightSum = {
  name: "right_sum",
  async score(sample, final) {
    return { solved: final.answer === numbers(sample).a + numbers(sample).b, value: { answer: final.answer } };
  },
};

const submit = (n, name, description) => ({
  name,
  description,
  async run(session) {
    session.beginTurn();
    await session.call("submit_sum", { sum: n(session.scenario), reason: name });
  },
});

/** The toy family's one scenario, made with defineScenario's defaults (no describeFinal of its own). */
export const TOYSUM = defineScenario({
  name: "TOYSUM",
  title: "add two numbers",
  accepts: isToySum,
  tools: TOOLS,
  prompt: "Your task: add the two numbers.",
  live: () => ToySumScenario,
  settings: (settings) => ({ hint: settings?.toysum?.hint === true }),
  stateSchema: StateSchema,
  finalSchema: FinalSchema,
  scorers: [rightSum],
  groundTruth: async (scenario, final) => `answer ${final.answer ?? "-"}, truth ${numbers(scenario.sample).a + numbers(scenario.sample).b}`,
  oracle: submit((s) => numbers(s.sample).a + numbers(s.sample).b, "oracle", "the true sum"),
  baselines: [submit(() => 0, "guess-zero", "always says 0")],
});

/** The toy family's table: per agent, attempts and exact answers. */
const SECTION = {
  key: "toysum",
  build(records) {
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

/** `gitgood report --toy-csv FILE`: the toy attempts as CSV. */
const CSV = {
  name: "toy-csv",
  description: "the toy attempts as CSV",
  output: "file",
  render: (run) =>
    ["sample_id,agent,verdict", ...run.records.filter((r) => r.scenario === TOYSUM.name).map((r) => `${r.sample_id},${r.agent},${r.verdict}`)].join("\n") + "\n",
};

/** `--agent toy-adder`: adds the numbers through the tool; it takes none of the agent settings (`--command`, `--tools`, …). */
const ADDER = {
  name: "toy-adder",
  settings: [],
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

/**
 * The toy's part of the command line: `gitgood toy-count FILE` (its own verb) and `gitgood mine REPO
 * --type toy --toy-a A --toy-b B` (its own mode of mine, writing one toy sample for the repository).
 */
const COMMAND_LINE = {
  title: "toy sums",
  verbs: [
    {
      name: "toy-count",
      term: "toy-count <file>",
      summary: "count the toy sums of a samples file",
      load: async () => ({
        name: "toy-count",
        description: "count the toy sums of a samples file",
        arguments: [{ name: "<file>", help: "a samples file (JSONL)" }],
        options: [],
        run([file], _flags, io) {
          const rows = readFileSync(file, "utf8").split("\n").filter((l) => l.includes(`"sample_type":"${TOY_SAMPLE_TYPE}"`));
          io.stdout.write(`${rows.length} toy sum(s)\n`);
        },
      }),
    },
  ],
  mineTypes: [
    {
      type: "toy",
      what: "toy sums",
      load: async () => ({
        options: [
          { flags: "--toy-a <n>", help: "toy: the first number", default: "1" },
          { flags: "--toy-b <n>", help: "toy: the second number", default: "2" },
        ],
        async run(repoPath, flags, io) {
          const name = typeof flags.name === "string" ? flags.name : path.basename(repoPath);
          io.stdout.write(`${JSON.stringify(toySample("toy_sum_mined", name, Number(flags.toyA), Number(flags.toyB)))}\n`);
          io.stderr.write(`mined 1 toy sum from ${name}\n`);
        },
      }),
    },
  ],
};

/** `TOY: A + B` to the A2A participant: the model answers through `submit_sum`, and the answer is the sum. */
const PARTICIPANT_TASK = {
  shape: "a toy sum (TOY: A + B)",
  skill: { id: "toy-sum", name: "Toy sum", description: "Adds two numbers.", tags: ["toy"] },
  matches: (text) => text.startsWith("TOY:"),
  async open(text) {
    let answer = null;
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

/**
 * The family's one setting, `--toy-hint` of `run` and `env`: run.json's `spec.toysum.hint`, and part of
 * the run's identity (`identity.spec.toysum`) when on.
 */
const HINT = familySetting("toysum", {
  key: "hint",
  option: "toy-hint",
  help: "TOYSUM: tell the agent to add",
  schema: z.boolean(),
  default: false,
  identity: true,
  verbs: ["run", "env"],
});

export const TOY_FAMILY = defineFamily({
  name: "TOYSUM",
  scenarios: [TOYSUM],
  samples: [{ type: TOY_SAMPLE_TYPE, schema: ToySumSampleSchema }],
  report: SECTION,
  formats: [CSV],
  agents: [ADDER],
  commandLine: COMMAND_LINE,
  participantTask: PARTICIPANT_TASK,
  cli: {
    settings: [HINT],
    scenarioSettings: (spec) => ({ toysum: { hint: specValue(spec, HINT) } }),
  },
  a2aResult(records) {
    const mine = records.filter((r) => r.scenario === TOYSUM.name);
    return { lines: [`TOYSUM: ${mine.length} sum(s)`], data: { toy_sums: mine.length } };
  },
});

/** A toy sample in gitgood's own layout. */
export function toySample(id, repository, a, b) {
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

/** The plug-in's register function: gitgood calls it with its registration API. */
export default function register(api) {
  api.registerFamily(TOY_FAMILY);
}
