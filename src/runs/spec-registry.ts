import { z } from "zod";
import { GitGoodError, type ErrorCode } from "../errors.js";

/*
 * The settings of a run, declared once. Each `RunSetting` names its key (run.json's `spec`, a queue
 * ticket, an A2A request's `config`), its command-line option (which is also its configuration-file key),
 * its type, its default, and whether it changes what is evaluated (then it is part of the run's identity)
 * and what a requester may ask of it. The CLI, the configuration file, run.json, queue tickets and the
 * A2A input schema are all made from this one list; nothing else needs to know a setting exists. A task
 * family's settings are declared the same way (`FamilySetting`) and nest in the spec under its key.
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
  /** The only values its option takes, as `--help` lists them (the parser still reads the text). */
  readonly choices?: readonly string[];
}

/** The verbs a family's settings may be options of (`harbor`: `gitgood export harbor`; `mcp`: `gitgood mcp` and `gitgood serve`). */
export type FamilyVerb = "run" | "env" | "mcp" | "harbor";

/**
 * A setting of a task family: a run setting nested in the spec under the family's key (`namespace`, its
 * name in lower case: run.json's `spec.swe.hints`), with the verbs whose options include it. It is a
 * choice of the run (the ticket's to make, never a request's); a family brings its settings with its
 * definition (`FamilyCli.settings`), and registering the family declares them.
 */
export interface FamilySetting<T = unknown> extends RunSetting<T> {
  /** The family's key in the spec: its name in lower case. */
  readonly namespace: string;
  /** The verbs that take its option (`run` does not include `bench`, whose runs take every family setting at its default). */
  readonly verbs: readonly FamilyVerb[];
}

/**
 * A family's setting as a family writes it: everything but what is the same for all of a family's settings,
 * which `familySetting` fills in (the family's key as namespace and reference group, a choice of the run that
 * only the operator makes).
 */
export type FamilySettingFields<T> = Omit<FamilySetting<T>, "namespace" | "group" | "request" | "kind">;

/** A setting of the family whose key in the spec is `namespace` (its name in lower case). */
export function familySetting<T>(namespace: string, fields: FamilySettingFields<T>): FamilySetting<T> {
  return { ...fields, namespace, group: namespace, request: "operator", kind: "choice" };
}

/** A run's settings by key: every declared setting, each with its value or its default; each family's under its key. */
export type RunSpec = Readonly<Record<string, unknown>>;

const declared = new Map<string, RunSetting>();
/** The families' settings, by family key then setting key. */
const fragments = new Map<string, Map<string, FamilySetting>>();
/** The spec's schema as last built from `declared` and `fragments` (null: to build again): a run reads its spec several times, and a schema is slow to build and first use. */
let schema: ReturnType<typeof buildRunSpecSchema> | null = null;

const KEY = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;
const OPTION = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;

/**
 * A run setting as `defineRunSetting` takes it: a limit says what a request may ask of it; a choice of the
 * run says nothing, since only the operator makes a choice (`request` is filled in).
 */
export type RunSettingFields<T> =
  | (Omit<RunSetting<T>, "kind" | "request"> & { readonly kind: "limit"; readonly request: RequestRule })
  | (Omit<RunSetting<T>, "kind" | "request"> & { readonly kind: "choice"; readonly request?: never });

/**
 * Declares a run setting (gitgood's own in the spec-*.ts files that spec.ts gathers; a plug-in or a test may
 * add its own before the CLI or a server is built). A key or option used twice, or a default its schema
 * refuses, is a programming error and throws.
 */
export function defineRunSetting<T>(fields: RunSettingFields<T>): RunSetting<T> {
  // The declaration's own properties as they are (a help read when shown stays a getter), with its request rule.
  const setting = Object.defineProperties({}, {
    ...Object.getOwnPropertyDescriptors(fields),
    request: { value: fields.request ?? "operator", enumerable: true },
  }) as RunSetting<T>;
  checkSetting(setting, declared);
  if (fragments.has(setting.key)) throw new Error(`run setting '${setting.key}' is a family's key in the spec`);
  declared.set(setting.key, setting);
  schema = null;
  return setting;
}

/**
 * Declares the settings of a family, all under its key (`namespace`), when the family is registered: each
 * is checked as `defineRunSetting` checks gitgood's own, its option must be new among every declared
 * setting, and it must be a choice of the run. A family declared already, or a key gitgood's own settings
 * use, throws.
 */
export function declareFamilySettings(namespace: string, settings: readonly FamilySetting[]): void {
  if (!KEY.test(namespace)) throw new Error(`family key '${namespace}' is not snake_case`);
  if (declared.has(namespace) || fragments.has(namespace)) throw new Error(`the spec has a '${namespace}' already`);
  const own = new Map<string, FamilySetting>();
  for (const s of settings) {
    if (s.namespace !== namespace) throw new Error(`run setting '${s.key}' is declared under '${s.namespace}', not its family's '${namespace}'`);
    checkSetting(s, own);
    if (s.kind !== "choice") throw new Error(`run setting '${namespace}.${s.key}' of a family must be a choice of the run`);
    if (s.verbs.length === 0) throw new Error(`run setting '${namespace}.${s.key}' is an option of no verb`);
    own.set(s.key, s);
  }
  fragments.set(namespace, own);
  schema = null;
}

/** Removes the settings of a family declared with `declareFamilySettings` (its plug-in is unregistered). */
export function undeclareFamilySettings(namespace: string): void {
  fragments.delete(namespace);
  schema = null;
}

/** Checks a setting's declaration against the settings of its scope (`scope`) and every option declared. */
function checkSetting(setting: RunSetting, scope: ReadonlyMap<string, RunSetting>): void {
  if (!KEY.test(setting.key)) throw new Error(`run setting key '${setting.key}' is not snake_case`);
  if (!OPTION.test(setting.option)) throw new Error(`run setting option '${setting.option}' is not kebab-case`);
  if (scope.has(setting.key)) throw new Error(`run setting '${setting.key}' is declared twice`);
  if ([...scope.values(), ...everySetting()].some((s) => s.option === setting.option)) throw new Error(`run setting option --${setting.option} is declared twice`);
  if (setting.value === undefined && typeof setting.default !== "boolean") throw new Error(`run setting '${setting.key}' is a switch: its default must be true or false`);
  if (!setting.schema.safeParse(setting.default).success) throw new Error(`run setting '${setting.key}': its default does not match its schema`);
  if (setting.repeatable === true && !Array.isArray(setting.default)) throw new Error(`run setting '${setting.key}' is repeatable: its value must be a list`);
  if (setting.choices !== undefined && setting.value === undefined) throw new Error(`run setting '${setting.key}' is a switch: it has no choices`);
  if (setting.kind === "choice" && setting.request !== "operator") throw new Error(`run setting '${setting.key}' is a choice of the run: a request cannot make it`);
  if (setting.request === "at-most" && typeof setting.default !== "number" && setting.default !== null) {
    throw new Error(`run setting '${setting.key}': only a number (or null, no limit) can be asked for at most`);
  }
}

/** gitgood's own settings and every family's. */
function everySetting(): RunSetting[] {
  return [...declared.values(), ...[...fragments.values()].flatMap((f) => [...f.values()])];
}

/** Every declared setting of gitgood's own (of one kind, when given), in declaration order; the families' are `familySettings`. */
export function runSettings(kind?: SettingKind): readonly RunSetting[] {
  return [...declared.values()].filter((s) => kind === undefined || s.kind === kind);
}

/** The declared settings of the families (of one family, by its key, when given), in registration order. */
export function familySettings(namespace?: string): readonly FamilySetting[] {
  return [...fragments.entries()].filter(([ns]) => namespace === undefined || ns === namespace).flatMap(([, f]) => [...f.values()]);
}

/** The declared setting (gitgood's own or a family's) whose option is `--option`, if any: what a family reads of a setting another family declares. */
export function settingOfOption(option: string): RunSetting | undefined {
  return everySetting().find((s) => s.option === option);
}

/** The keys of the families with declared settings, in registration order. */
export function familyKeys(): string[] {
  return [...fragments.keys()];
}

/** The value of one setting in a spec (its default when the spec predates it; a family's, in its fragment). */
export function specValue<T>(spec: RunSpec | undefined, setting: RunSetting<T>): T {
  const value = "namespace" in setting ? objectOr(spec?.[(setting as FamilySetting<T>).namespace])[setting.key] : spec?.[setting.key];
  return value === undefined ? setting.default : (value as T);
}

/** A JSON object's fields, or none when it is not one. */
function objectOr(value: unknown): Readonly<Record<string, unknown>> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** The schema of settings by key: each optional (absent: its default), nothing else. */
function settingsSchema(settings: readonly RunSetting[]) {
  return z.object(Object.fromEntries(settings.map((s) => [s.key, s.schema.default(s.default).describe(s.help)]))).strict();
}

/**
 * The schema of a spec: every declared key optional (absent: its default), and each family's fragment
 * under its key, optional (absent: the spec of a verb that takes none of the family's settings), its
 * own keys as the top level's.
 */
function buildRunSpecSchema() {
  const families = [...fragments.entries()].map(([ns, f]) => [ns, settingsSchema([...f.values()]).optional().describe(`the ${ns} family's settings`)] as const);
  return settingsSchema(runSettings()).extend(Object.fromEntries(families));
}

/** The schema a spec is parsed with: of the settings declared now (built again after a declaration changes them). */
function runSpecSchema() {
  schema ??= buildRunSpecSchema();
  return schema;
}

/** The spec's JSON Schema (as a file or a request gives it: every key optional, with its default), published in docs/. */
export function runSpecJsonSchema(): Record<string, unknown> {
  // Built anew: a setting's help may be read when shown (a plug-in's backends, the families' scenarios), and the kept schema is for parsing.
  return z.toJSONSchema(buildRunSpecSchema(), { target: "draft-2020-12", io: "input" });
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

/**
 * The spec parsed flags describe: each setting's option value, or its default. With `families` (the
 * verbs that run attempts of every family: `run`, `bench`), every family's fragment too, each setting at
 * its option's value where the verb took it, else at its default.
 */
export function specFromOptions(values: Readonly<Record<string, unknown>>, opts: { families?: boolean } = {}): RunSpec {
  const fragments = opts.families ? familyFragments(values) : {};
  return parseRunSpec({ ...settingsFromOptions(values, runSettings()), ...fragments }, "options", "BAD_OPTION");
}

/** Every family's fragment of the spec from parsed flags, by family key: each setting's option value, or its default. */
export function familyFragments(values: Readonly<Record<string, unknown>>): Record<string, Record<string, unknown>> {
  return Object.fromEntries(familyKeys().map((ns) => [ns, settingsFromOptions(values, familySettings(ns))]));
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
  const out = identityOf(spec, runSettings(), (key) => declared.has(key) || fragments.has(key));
  // A family's fragment is its identity settings not at their defaults, absent when it has none.
  for (const [ns, own] of fragments) {
    if (spec[ns] === undefined) continue;
    const fragment = identityOf(objectOr(spec[ns]), [...own.values()], (key) => own.has(key));
    if (Object.keys(fragment).length > 0) out[ns] = fragment;
  }
  return out;
}

/** The identity settings of `settings` not at their defaults, and every key `known` does not know. */
function identityOf(spec: Readonly<Record<string, unknown>>, settings: readonly RunSetting[], known: (key: string) => boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const s of settings) {
    const value = spec[s.key];
    if (s.identity && value !== undefined && !same(value, s.default)) out[s.key] = value;
  }
  // A key no setting declares stays, so that comparing it with a run that has none still tells them apart.
  for (const [key, value] of Object.entries(spec)) if (!known(key)) out[key] = value;
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
