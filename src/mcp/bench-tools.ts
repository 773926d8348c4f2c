import { z } from "zod";
import { scenarios } from "../scenarios/registry.js";
import { OUTPUT_OFFSET_DESCRIPTION, REASON_DESCRIPTION, type Tool } from "../tools/tool.js";

export const GET_TASK = "get_task";
export const FINISH = "finish_scenario";
export const LIST_SAMPLES = "list_samples";
export const START = "start_scenario";

/**
 * What the bench tools ask of the connection they serve (the workbench): declared here, so that the
 * tools need nothing else of it and the workbench, which offers them, is the only one of the two that
 * imports the other.
 */
export interface Bench {
  /** The task of the scenario open now, as the agent reads it. */
  taskText(): Promise<string>;
  /** Ends the open scenario: its final state is read and scored; says how it went. */
  finishScenario(): Promise<string>;
  /** The samples on the bench, one line each. */
  samplesListing(): string;
  /** Sets up `scenario` (default: the sample's only one) on the sample `sampleId`, and says what the agent has to do. */
  startScenario(sampleId: string, scenario: string | undefined): Promise<string>;
}

/** Tools that only end a scenario; every other bench tool just reads or creates. */
export const DESTRUCTIVE_BENCH_TOOLS = new Set([FINISH]);

// The scenario tools require a reason (as published); here it is accepted but optional.
const reason = z.string().optional().describe(REASON_DESCRIPTION);
const offset = z.number().int().min(0).optional().describe(OUTPUT_OFFSET_DESCRIPTION);

function benchTool(def: {
  name: string;
  description: string;
  params: z.ZodRawShape;
  readOnly: boolean;
  moreWith?: string;
  run(bench: Bench, args: Record<string, unknown>): Promise<string>;
}): Tool<Bench> {
  return {
    name: def.name,
    description: def.description,
    input: z.object({ ...def.params, reason }).strict(),
    readOnly: def.readOnly,
    moreWith: def.moreWith,
    run: def.run,
  };
}

export const getTask = benchTool({
  name: GET_TASK,
  description:
    "Shows the task of the open scenario: what to do, and the starting state (conflicts, commits or hunks). " +
    "Read it first; it is also served as the resource gitgood://task.",
  params: { output_offset: offset },
  readOnly: true,
  run: (bench) => bench.taskText(),
});

export const finishScenario = benchTool({
  name: FINISH,
  description:
    "Submits your work on the open scenario: its final state is scored and recorded, and its sandbox is removed. " +
    "Call it once you are done; no scenario tool works on this scenario afterwards. In an evaluation run it " +
    "says only that the attempt was recorded; in a practice run it returns the verdict and scores.",
  params: {},
  readOnly: false,
  run: (bench) => bench.finishScenario(),
});

export const listSamples = benchTool({
  name: LIST_SAMPLES,
  description:
    "Lists the samples of the dataset with the scenarios each gives, marking each scenario already attempted " +
    "in this run (in a practice run, with its verdict).",
  params: { output_offset: offset },
  readOnly: true,
  run: async (bench) => bench.samplesListing(),
});

/** Made when a workbench is made, so that it names every scenario registered by then. */
export function startScenarioTool(): Tool<Bench> {
  const names = scenarios().map((d) => `${d.name.toLowerCase()} (${d.title})`);
  return benchTool({
    name: START,
    description:
      "Sets up one scenario of a sample in a fresh sandbox and returns its task. The scenario's tools are then " +
      "listed (the tool list changes); finish it with finish_scenario before starting another.",
    params: {
      sample_id: z.string().min(1).describe("The id of a sample, as list_samples shows it."),
      scenario: z
        .string()
        .optional()
        .describe(`Which of the sample's scenarios: ${names.join(", ")}; required when the sample gives several.`),
    },
    readOnly: false,
    moreWith: GET_TASK,
    run: (bench, args) => bench.startScenario(args.sample_id as string, args.scenario as string | undefined),
  });
}
