import { z } from "zod";
import { GitGoodError } from "../errors.js";
import { RECORD_MODEL_IO as MODEL_IO_RECORDS, type RecordModelIo } from "../proxy/index.js";
import { positiveIntOption } from "../util/options.js";
import { parseShard, type Shard } from "./shard.js";
import { defineRunSetting } from "./spec-registry.js";

/*
 * The attempts' choices: each attempt's time and turn budget, how many times each runs, the memory variant,
 * the part of the jobs a session runs and what trajectories keep of model requests.
 */

/** Seconds an attempt (one sample × scenario) may take; also its CPU time per process, and its scoring's limit. */
export const TIMEOUT = defineRunSetting<number>({
  key: "timeout_s",
  option: "timeout",
  value: "<seconds>",
  help: "time limit per sample and scenario",
  schema: z.number().positive(),
  parse: (text, option) => positiveIntOption(option)(text),
  default: 900,
  identity: false,
  kind: "choice",
  group: "attempts",
});

/** Turns an agent may take per sample × scenario: what it is given, so a resume with another budget is refused. */
export const MAX_TURNS = defineRunSetting<number>({
  key: "max_turns",
  option: "max-turns",
  value: "<n>",
  help: "turn budget per sample and scenario",
  schema: z.number().int().min(1),
  parse: (text, option) => positiveIntOption(option)(text),
  default: 40,
  identity: true,
  kind: "choice",
  group: "attempts",
});

/** Runs of every sample × scenario. */
export const REPEATS = defineRunSetting<number>({
  key: "repeats",
  option: "repeats",
  value: "<k>",
  help: "run every sample × scenario K times (for the mean solve rate and pass@k)",
  schema: z.number().int().min(1),
  parse: (text, option) => positiveIntOption(option)(text),
  default: 1,
  identity: true,
  kind: "choice",
  group: "attempts",
});

/** Every scenario run twice, without and with the agent memory tools. */
export const MEMORY = defineRunSetting<boolean>({
  key: "memory",
  option: "memory",
  help: "run every scenario twice, without and with the agent memory tools (memory_*), to compare",
  schema: z.boolean(),
  default: false,
  identity: true,
  kind: "choice",
  group: "attempts",
});

/**
 * The part of the planned jobs a session runs (`--shard K/N`; null: all of them). Not part of the run's
 * identity: the shards of one run are one run, and `gitgood merge` joins them (its run.json: null).
 */
export const SHARD = defineRunSetting<Shard | null>({
  key: "shard",
  option: "shard",
  value: "<K/N>",
  help: "run only part K of N of the planned jobs (balanced by scenario and repository) to spread a run over machines; join the parts with 'gitgood merge'",
  schema: z
    .object({ index: z.number().int().min(1), count: z.number().int().min(1) })
    .refine((s) => s.index <= s.count, "a shard's index is at most its count")
    .nullable(),
  parse: (text) => parseShard(text),
  default: null,
  identity: false,
  kind: "choice",
  group: "attempts",
});

/**
 * What the trajectory keeps of each model request an external agent (or a CLI-agent preset) makes through
 * gitgood's recording model proxy: `digest`, the message count and a hash, or `full`, the messages. What is
 * recorded, not what is evaluated: not part of the run's identity.
 */
export const RECORD_MODEL_IO = defineRunSetting<RecordModelIo>({
  key: "record_model_io",
  option: "record-model-io",
  value: "<mode>",
  help: "what the trajectory keeps of each model request an external agent makes through gitgood's model proxy: digest (message count and hash) or full (the messages)",
  schema: z.enum(MODEL_IO_RECORDS),
  parse: (text, option) => {
    const mode = MODEL_IO_RECORDS.find((m) => m === text);
    if (mode === undefined) throw new GitGoodError("BAD_OPTION", `${option} takes ${MODEL_IO_RECORDS.join(" or ")}, not '${text}'`);
    return mode;
  },
  choices: MODEL_IO_RECORDS,
  default: "digest",
  identity: false,
  kind: "choice",
  group: "attempts",
});
