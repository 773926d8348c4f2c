import { z } from "zod";
import { GitGoodError, type ErrorCode } from "../errors.js";

/*
 * The settings of a run, declared once. Each `RunSetting` names its key (run.json's `spec`, a queue
 * ticket, an A2A request's `config`), its command-line option (which is also its configuration-file key),
 * its type, its default, and whether it changes what is evaluated (then it is part of the run's identity)
 * and what a requester may ask of it. The CLI, the configuration file, run.json, queue tickets and the
 * A2A input schema are all made from this one list; nothing else needs to know a setting exists.
 */

/** What a less trusted requester (an A2A assessment request) may ask of a setting. */
export type RequestRule =
  /** Nothing: only the operator sets it. */
  | "operator"
  /** A number the request may lower, never raise above the operator's (a limit; null: no limit). */
  | "at-most";

/**
 * What a setting is to the verbs that run attempts. A `limit` bounds what a run may use: `run`, `bench`,
 * `a2a serve` and `worker` take it, a worker's value is the most a ticket may ask for, and an A2A request
 * may ask for it as `request` allows. A `choice` is what the run evaluates or how (its repeats, the memory
 * variant): only `run` and `bench` take it, a worker runs whatever a ticket chose, and an A2A request
 * cannot make it.
 */
export type SettingKind = "limit" | "choice";

/** One setting of a run. */
export interface RunSetting<T = unknown> {
  /** The name in run.json's `spec`, in tickets and in A2A requests: snake_case. */
  readonly key: string;
  /** The long command-line option without its dashes (`max-processes`): also the configuration file's key. */
  readonly option: string;
  /**
   * The option's value placeholder (`<n>`); absent for a switch: one that is off unless given (default
   * false: `--memory`), or on unless turned off (default true: `--no-cache`).
   */
  readonly value?: string;
  /** One line of help, as `--help` prints it. */
  readonly help: string;
  readonly schema: z.ZodType<T>;
  /** Reads the option's text (from the command line or the configuration file); errors name `option`. */
  readonly parse?: (text: string, option: string) => T;
  /**
   * The option may be given again (`--allow-read A --allow-read B`; a list in the configuration file): the
   * value is a list, each occurrence's `parse` adding its items to the earlier ones'.
   */
  readonly repeatable?: boolean;
  /**
   * Finishes a value given on the command line with another option of the verb's (`--sample N` draws with
   * `--seed`): gets the parsed value and every option's value by its commander name.
   */
  complete?(value: T, options: Readonly<Record<string, unknown>>): T;
  readonly default: T;
  /** How `--help` shows the default, when not as the value itself (`4G` for a byte count). */
  readonly defaultLabel?: string;
  /** Whether it changes what is evaluated: a run resumed with a different value is refused. */
  readonly identity: boolean;
  readonly request: RequestRule;
  readonly kind: SettingKind;
  /** The group the reference lists it under (`limits`). */
  readonly group: string;
}

/** A run's settings by key: every declared setting, each with its value or its default. */
export type RunSpec = Readonly<Record<string, unknown>>;

const declared = new Map<string, RunSetting>();

const KEY = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;
const OPTION = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;

/**
 * Declares a run setting (gitgood's own in spec.ts; a plug-in or a test may add its own before the
 * CLI or a server is built). A key or option used twice, or a default its schema refuses, is a
 * programming error and throws.
 */
export function defineRunSetting<T>(setting: RunSetting<T>): RunSetting<T> {
  if (!KEY.test(setting.key)) throw new Error(`run setting key '${setting.key}' is not snake_case`);
  if (!OPTION.test(setting.option)) throw new Error(`run setting option '${setting.option}' is not kebab-case`);
  if (declared.has(setting.key)) throw new Error(`run setting '${setting.key}' is declared twice`);
  if ([...declared.values()].some((s) => s.option === setting.option)) throw new Error(`run setting option --${setting.option} is declared twice`);
  if (setting.value === undefined && typeof setting.default !== "boolean") throw new Error(`run setting '${setting.key}' is a switch: its default must be true or false`);
  if (!setting.schema.safeParse(setting.default).success) throw new Error(`run setting '${setting.key}': its default does not match its schema`);
  if (setting.repeatable === true && !Array.isArray(setting.default)) throw new Error(`run setting '${setting.key}' is repeatable: its value must be a list`);
  if (setting.kind === "choice" && setting.request !== "operator") throw new Error(`run setting '${setting.key}' is a choice of the run: a request cannot make it`);
  if (setting.request === "at-most" && typeof setting.default !== "number" && setting.default !== null) {
    throw new Error(`run setting '${setting.key}': only a number (or null, no limit) can be asked for at most`);
  }
  declared.set(setting.key, setting);
  return setting;
}

/** Every declared setting (of one kind, when given), in declaration order. */
export function runSettings(kind?: SettingKind): readonly RunSetting[] {
  return [...declared.values()].filter((s) => kind === undefined || s.kind === kind);
}

/** The value of one setting in a spec (its default when the spec predates it). */
export function specValue<T>(spec: RunSpec | undefined, setting: RunSetting<T>): T {
  const value = spec?.[setting.key];
  return value === undefined ? setting.default : (value as T);
}

/** The schema of a spec: every declared key optional (absent: its default), nothing else. */
function runSpecSchema() {
  return z.object(Object.fromEntries(runSettings().map((s) => [s.key, s.schema.default(s.default).describe(s.help)]))).strict();
}

/** The spec's JSON Schema (as a file or a request gives it: every key optional, with its default), published in docs/. */
export function runSpecJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(runSpecSchema(), { target: "draft-2020-12", io: "input" });
}

/**
 * Checks a spec read from elsewhere (run.json, a ticket): a key this process does not declare, or a
 * value of the wrong type, is `code` in one line. Missing keys get their defaults.
 */
export function parseRunSpec(value: unknown, where: string, code: ErrorCode): RunSpec {
  const parsed = runSpecSchema().safeParse(value ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue && issue.path.length > 0 ? `.${issue.path.join(".")}` : "";
    throw new GitGoodError(code, `${where}${path}: ${issue?.message ?? "not a run spec"}`);
  }
  return parsed.data;
}

/** The camelCase name commander gives an option's value (`max-processes` → `maxProcesses`). */
function optionProperty(option: string): string {
  return option.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** The spec parsed flags describe: each setting's option value, or its default. */
export function specFromOptions(values: Readonly<Record<string, unknown>>): RunSpec {
  return parseRunSpec(settingsFromOptions(values, runSettings()), "options", "BAD_OPTION");
}

/**
 * The values parsed flags give some settings (a verb that takes only those options: `gitgood mcp`'s
 * `--history`), by key: a spec of those settings alone.
 */
export function settingsFromOptions(values: Readonly<Record<string, unknown>>, settings: readonly RunSetting[]): Record<string, unknown> {
  return Object.fromEntries(settings.map((s) => [s.key, optionValue(s, values)]));
}

/** One setting's value in parsed flags: its option's, finished by the setting (`complete`), or its default. */
function optionValue(s: RunSetting, values: Readonly<Record<string, unknown>>): unknown {
  const given = values[optionProperty(s.option)];
  if (given === undefined) return s.default;
  return s.complete ? s.complete(given, values) : given;
}

/**
 * What run.json's identity holds of a spec: the identity settings whose value is not the default
 * (so that a run made before a setting existed still resumes under its default).
 */
export function specIdentity(spec: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const s of runSettings()) {
    const value = spec[s.key];
    if (s.identity && value !== undefined && !same(value, s.default)) out[s.key] = value;
  }
  // A key no setting declares stays, so that comparing it with a run that has none still tells them apart.
  for (const [key, value] of Object.entries(spec)) if (!declared.has(key)) out[key] = value;
  return out;
}

/** The fields of a spec a requester may ask for (A2A's `config`), each optional. */
export function requestableShape(): Record<string, z.ZodType> {
  return Object.fromEntries(runSettings().filter((s) => s.request !== "operator").map((s) => [s.key, s.schema.optional().describe(s.help)]));
}

/**
 * The spec a run gets when a requester asks for `requested` within the operator's `operator`: an
 * `at-most` number is the lesser of the two; a key the requester may not set is refused.
 */
export function narrowedSpec(operator: RunSpec, requested: Readonly<Record<string, unknown>>): RunSpec {
  const out: Record<string, unknown> = { ...operator };
  for (const s of runSettings()) {
    const asked = requested[s.key];
    if (asked === undefined) continue;
    if (s.request === "operator") throw new GitGoodError("BAD_OPTION", `${s.key} is set by the operator, not by a request`);
    out[s.key] = lesserLimit(specValue(operator, s) as number | null, asked as number | null);
  }
  return out;
}

/**
 * The first limit `asked` (a ticket's) takes beyond `most` (a worker's): an `at-most` number above it,
 * or an operator's setting at neither its value nor its default. Null when every one is within (a
 * choice of the run is the ticket's to make).
 */
export function beyondSpec(most: RunSpec, asked: Readonly<Record<string, unknown>>): { key: string; setting: RunSetting; asked: unknown; most: unknown } | null {
  for (const s of runSettings("limit")) {
    const want = asked[s.key];
    if (want === undefined) continue;
    const have = specValue(most, s);
    const within = s.request === "at-most" ? lesserLimit(have as number | null, want as number | null) === want : same(want, have) || same(want, s.default);
    if (!within) return { key: s.key, setting: s, asked: want, most: have };
  }
  return null;
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The lower of two limits, null being no limit. */
function lesserLimit(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.min(a, b);
}
