import { z } from "zod";
import { GitGoodError } from "../errors.js";
import { DEFAULT_LIMITS, formatSize, sizeOption, type IsolationRequest } from "../sandbox/isolation.js";
import { positiveIntOption } from "../util/options.js";
import { defineRunSetting, specValue, type RunSpec } from "./spec-registry.js";

/*
 * The limits of a run (spec.ts imports this first): what one agent program's jail may use and how much a run
 * may spend. `run`, `bench`, `a2a serve` and `worker` take them; a worker's value is the most a ticket may ask
 * for, and an A2A request may lower those its `request` rule allows.
 */

const MiB = 1024 * 1024;

/** Processes and threads at once in one agent program's jail. */
const MAX_PROCESSES = defineRunSetting<number>({
  key: "max_processes",
  option: "max-processes",
  value: "<n>",
  help: "processes at once in one agent program's jail (a pids cgroup)",
  schema: z.number().int().min(1),
  parse: (text, option) => positiveIntOption(option)(text),
  default: DEFAULT_LIMITS.processes,
  identity: false,
  request: "at-most",
  kind: "limit",
  group: "limits",
});

/** Bytes of memory of one agent program's jail. */
const MAX_MEMORY = defineRunSetting<number>({
  key: "max_memory",
  option: "max-memory",
  value: "<size>",
  help: "memory of one agent program's jail, e.g. 4G (a memory cgroup, and RLIMIT_DATA per process)",
  schema: z.number().int().min(MiB),
  parse: (text, option) => sizeOption(option)(text),
  default: DEFAULT_LIMITS.memory,
  defaultLabel: formatSize(DEFAULT_LIMITS.memory),
  identity: false,
  request: "at-most",
  kind: "limit",
  group: "limits",
});

/** Bytes an attempt's work tree may grow by, and the size of the jail's /tmp and home. */
const MAX_DISK = defineRunSetting<number>({
  key: "max_disk",
  option: "max-disk",
  value: "<size>",
  help: "how much an attempt's work tree may grow, and the size of the jail's /tmp and home, e.g. 2G",
  schema: z.number().int().min(MiB),
  parse: (text, option) => sizeOption(option)(text),
  default: DEFAULT_LIMITS.disk,
  defaultLabel: formatSize(DEFAULT_LIMITS.disk),
  identity: false,
  request: "at-most",
  kind: "limit",
  group: "limits",
});

/** Run even where a limit is enforced only per process or not at all. */
const ACCEPT_WEAK_LIMITS = defineRunSetting<boolean>({
  key: "accept_weak_limits",
  option: "accept-weak-limits",
  help: "run even where this host enforces a limit only per process or not at all (else refused)",
  schema: z.boolean(),
  default: false,
  identity: false,
  request: "operator",
  kind: "limit",
  group: "limits",
});

/** US dollars of measured spend (agent + judges) after which a run starts no new attempt. */
export const BUDGET_USD = defineRunSetting<number | null>({
  key: "budget_usd",
  option: "budget-usd",
  value: "<usd>",
  help: "start no new attempt once the run's measured spend (agent + judges, at their prices) reaches this many US dollars",
  schema: z.number().positive().nullable(),
  parse: (text, option) => {
    const usd = Number(text);
    if (!Number.isFinite(usd) || usd <= 0) throw new GitGoodError("BAD_OPTION", `${option} takes a positive number of US dollars, not '${text}'`);
    return usd;
  },
  default: null,
  defaultLabel: "none",
  identity: false,
  request: "at-most",
  kind: "limit",
  group: "spend",
});

/** What the spec's limits ask of the isolation: the jail's limits (CPU time per process: `cpuSeconds`) and whether weak ones are accepted. */
export function isolationLimits(spec: RunSpec, cpuSeconds: number | null): Pick<IsolationRequest, "limits" | "acceptWeakLimits"> {
  return {
    limits: { processes: specValue(spec, MAX_PROCESSES), memory: specValue(spec, MAX_MEMORY), disk: specValue(spec, MAX_DISK), cpu: cpuSeconds },
    acceptWeakLimits: specValue(spec, ACCEPT_WEAK_LIMITS),
  };
}
