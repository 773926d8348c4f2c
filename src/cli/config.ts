import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { isDeepStrictEqual } from "node:util";
import type { Command, Option } from "commander";
import { parseDocument } from "yaml";
import { parseEnvSpecs } from "../testenv/spec-file.js";
import type { EnvSpecFile } from "../testenv/types.js";
import { GitGoodError, toGitGoodError } from "../errors.js";
import type { PluginRequest } from "../plugins/index.js";
import type { ResolvedConfig } from "../runs/config.js";
import type { Prices } from "../model/prices.js";
import { CONFIG_FILE_NAME } from "./config-name.js";
import { verbSourceOf } from "./verb-source.js";
import { at } from "../util/at.js";
import { DEFAULT_LIMITS } from "../sandbox/isolation.js";

/** The configuration file read from the working directory when no `--config FILE` is given. */
export const CONFIG_FILE = CONFIG_FILE_NAME;

/** The verbs a configuration file configures; each has a section of its own. */
const CONFIG_VERBS = ["run", "bench", "report", "score"] as const;
type ConfigVerb = (typeof CONFIG_VERBS)[number];

/** Keys of the file that are not options: the per-verb sections, the price list and the environment specs. */
const PRICES_KEY = "prices";
/** SWE environment specs (as `--env-spec FILE` holds them), for the verbs that set up SWE tasks (those with `--env-spec`). */
const ENVS_KEY = "envs";
/** The plug-ins to load (module names, or paths from the file's directory), read before any verb is built. */
const PLUGINS_KEY = "plugins";
/** Options a configuration file cannot set. */
const NOT_CONFIGURABLE = new Set(["config", "help", "version"]);

/** What the file gave a command: where it was read, the prices per model and the environment specs. */
const loaded = new WeakMap<Command, { file: string | null; prices: Record<string, Prices>; envs: EnvSpecFile | null }>();

function bad(file: string, key: string, message: string): never {
  throw new GitGoodError("BAD_CONFIG", `${file}: ${key}: ${message}`, { file, key });
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The options of a command by long name (`max-turns`), as written on the command line. */
function optionsByName(cmd: Command): Map<string, Option> {
  const out = new Map<string, Option>();
  for (const opt of cmd.options) {
    const name = opt.long?.replace(/^--/, "");
    if (name && !NOT_CONFIGURABLE.has(name)) out.set(name, opt);
  }
  return out;
}

/**
 * The value an option gets from a file's value, through the option's own parser, as if given on the
 * command line: a boolean for a flag (`memory: true`; `no-cache: true` for a negated one), a scalar for
 * an option with a value, and a list either as repeated flags (`allow-read: [a, b]`) or, for an option
 * that keeps only its last value, as one comma-separated value (`judge: [m1, m2]` is `--judge m1,m2`).
 */
function valueOf(opt: Option, raw: unknown, file: string, key: string): unknown {
  const takesValue = opt.required || opt.optional;
  if (!takesValue || (opt.optional && typeof raw === "boolean")) {
    if (typeof raw !== "boolean") bad(file, key, `takes true or false, not ${JSON.stringify(raw)}`);
    return opt.negate ? !raw : raw;
  }
  if (raw === null) bad(file, key, "has no value");
  const items = Array.isArray(raw) ? raw : [raw];
  const texts = items.map((item) => {
    if (typeof item === "string") return item;
    if (typeof item === "number" && Number.isFinite(item)) return String(item);
    if (typeof item === "boolean") return String(item);
    return bad(file, key, "takes a value or a list of values");
  });
  const parse = (text: string, previous: unknown): unknown => {
    if (opt.argChoices && !opt.argChoices.includes(text)) bad(file, key, `takes one of ${opt.argChoices.join(", ")}, not '${text}'`);
    try {
      if (opt.parseArg) return opt.parseArg(text, previous);
      return opt.variadic ? [...(Array.isArray(previous) ? previous : []), text] : text;
    } catch (err) {
      return bad(file, key, toGitGoodError(err).message);
    }
  };
  const first = opt.defaultValue as unknown;
  const repeated = texts.reduce<unknown>((previous, text) => parse(text, previous), first);
  if (texts.length < 2 || !isDeepStrictEqual(repeated, parse(at(texts, texts.length - 1), first))) return repeated;
  return parse(texts.join(","), first);
}

/** Checks the price list: `{ model: { input: USD, output: USD } }` per million tokens. */
function pricesOf(raw: unknown, file: string, key: string): Record<string, Prices> {
  if (!isMapping(raw)) bad(file, key, "takes a mapping of model names to { input, output } (US dollars per million tokens)");
  const out: Record<string, Prices> = {};
  for (const [model, entry] of Object.entries(raw)) {
    const where = `${key}.${model}`;
    if (!isMapping(entry)) bad(file, where, "takes { input, output } (US dollars per million tokens)");
    for (const k of Object.keys(entry)) {
      if (k !== "input" && k !== "output") bad(file, `${where}.${k}`, "unknown key; a price has input and output");
    }
    const usd = (k: "input" | "output"): number => {
      const v = entry[k];
      if (typeof v !== "number" || !Number.isFinite(v) || v < 0 || v > 1e6) {
        bad(file, `${where}.${k}`, "takes a number of US dollars per million tokens, from 0 to 1000000");
      }
      return v;
    };
    out[model] = { input: usd("input"), output: usd("output") };
  }
  return out;
}

/** Reads and parses the file as YAML: a mapping, or one line saying what is wrong. */
function readYaml(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    throw new GitGoodError("NOT_FOUND", `cannot read the configuration file ${file}`, { file });
  }
  const doc = parseDocument(text);
  const error = doc.errors[0];
  if (error) {
    const line = error.linePos?.[0].line;
    throw new GitGoodError("BAD_CONFIG", `${file}: not valid YAML${line ? ` (line ${line})` : ""}: ${error.message.split("\n")[0] ?? ""}`, { file });
  }
  const value: unknown = doc.toJS();
  if (value === null || value === undefined) return {};
  if (!isMapping(value)) throw new GitGoodError("BAD_CONFIG", `${file}: must be a mapping of option names to values`, { file });
  return value;
}

/**
 * The commands of the configured verbs, for their options: `current` for its own verb, fresh ones for the
 * others, built by the program's verb source (main.ts gives it; see verb-source.ts).
 */
async function verbCommands(current: Command, verb: ConfigVerb): Promise<Map<ConfigVerb, Command>> {
  const out = new Map<ConfigVerb, Command>();
  const source = verbSourceOf(current);
  for (const v of CONFIG_VERBS) {
    const cmd = v === verb ? current : await source?.(v);
    if (cmd) out.set(v, cmd);
  }
  return out;
}

/**
 * Reads a configuration file and works out, for every configured verb, the value of each option it
 * sets (top-level keys apply to every verb that has the option; a verb's section to that verb, over
 * the top level) and the prices. Every key and value is checked, for every verb, whichever verb runs.
 */
async function readConfig(
  file: string,
  current: Command,
  verb: ConfigVerb,
): Promise<{ values: Map<Option, unknown>; prices: Record<string, Prices>; envs: EnvSpecFile | null }> {
  const raw = readYaml(file);
  const commands = await verbCommands(current, verb);
  const options = new Map([...commands].map(([v, cmd]) => [v, optionsByName(cmd)] as const));
  const perVerb = new Map<ConfigVerb, Map<Option, unknown>>(CONFIG_VERBS.map((v) => [v, new Map()]));
  let prices: Record<string, Prices> = {};
  const sectionPrices: Partial<Record<ConfigVerb, Record<string, Prices>>> = {};
  let envs: EnvSpecFile | null = null;
  const sectionEnvs: Partial<Record<ConfigVerb, EnvSpecFile>> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (key === PRICES_KEY) {
      prices = pricesOf(value, file, key);
      continue;
    }
    if (key === ENVS_KEY) {
      envs = parseEnvSpecs(value, `${file}: ${key}`);
      continue;
    }
    if (key === PLUGINS_KEY) continue;
    if ((CONFIG_VERBS as readonly string[]).includes(key)) continue;
    const owners = CONFIG_VERBS.filter((v) => options.get(v)?.has(key));
    if (owners.length === 0) {
      bad(file, key, `unknown option; keys are the long options of ${CONFIG_VERBS.map((v) => `gitgood ${v}`).join(", ")}, a section per verb (${CONFIG_VERBS.join(", ")}), prices, envs and plugins`);
    }
    for (const v of owners) {
      const opt = options.get(v)?.get(key) as Option;
      perVerb.get(v)?.set(opt, valueOf(opt, value, file, key));
    }
  }
  for (const v of CONFIG_VERBS) {
    const section = raw[v];
    if (section === undefined || section === null) continue;
    if (!isMapping(section)) bad(file, v, `takes a mapping of gitgood ${v}'s options to values`);
    for (const [key, value] of Object.entries(section)) {
      if (key === PRICES_KEY) {
        sectionPrices[v] = pricesOf(value, file, `${v}.${key}`);
        continue;
      }
      if (key === ENVS_KEY && options.get(v)?.has("env-spec")) {
        sectionEnvs[v] = parseEnvSpecs(value, `${file}: ${v}.${key}`);
        continue;
      }
      const opt = options.get(v)?.get(key);
      if (!opt) bad(file, `${v}.${key}`, `not an option of gitgood ${v} (see gitgood ${v} --help)`);
      perVerb.get(v)?.set(opt, valueOf(opt, value, file, `${v}.${key}`));
    }
  }
  return { values: perVerb.get(verb) ?? new Map(), prices: { ...prices, ...sectionPrices[verb] }, envs: envsFor(file, envs, sectionEnvs[verb], options.get(verb)) };
}

/**
 * The environment specs a verb gets: the top level's `envs:` and its section's, a repository in the
 * section replacing the top level's entry for it (as a section's prices do); none for a verb that sets
 * up no SWE task.
 */
function envsFor(file: string, top: EnvSpecFile | null, section: EnvSpecFile | undefined, options: Map<string, Option> | undefined): EnvSpecFile | null {
  if (!options?.has("env-spec") || (top === null && section === undefined)) return null;
  return { source: file, repos: { ...top?.repos, ...section?.repos } };
}

/** Agents that run a program or reach an address the configuration names. */
const PROGRAM_AGENTS = new Set(["command", "mcp-command", "a2a"]);

/** The jail's limits by option, with the defaults a file found in the working directory may only lower. */
const LIMIT_DEFAULTS: Record<string, number> = {
  "max-processes": DEFAULT_LIMITS.processes,
  "max-memory": DEFAULT_LIMITS.memory,
  "max-disk": DEFAULT_LIMITS.disk,
};

/** Whether an option's value gives agent programs more than the defaults do, or sends the run somewhere else. */
function widens(name: string, value: unknown): boolean {
  if (name === "agent") return typeof value === "string" && value.split(",").some((a) => PROGRAM_AGENTS.has(a.trim()));
  if (name === "isolation") return value === "none";
  if (name === "network" || name === "accept-weak-limits") return value === true;
  const limit = LIMIT_DEFAULTS[name];
  if (limit !== undefined) return value === null || (typeof value === "number" && value > limit);
  return ["command", "url", "pass-env", "allow-read", "queue"].includes(name);
}

/**
 * A file only found in the working directory (a cloned repository's, say) may set options, but none that
 * widens what runs on this machine or what agent programs get: a program or address to run, no isolation,
 * the network, host variables, host folders to read, higher jail limits, a queue to send the run to. Those
 * need the file named with --config (or the flag itself).
 */
function refuseWidening(file: string, opt: Option, value: unknown): void {
  const name = opt.long?.replace(/^--/, "") ?? "";
  if (widens(name, value)) bad(file, name, `widens what runs on this machine, so it is taken only from a file named with --config ${file} (or from the option itself)`);
}

/**
 * Gives a verb the configuration file: adds `--config FILE` and, once its flags are parsed, sets every
 * option the file names that no flag (nor environment variable) set. With no `--config`,
 * `gitgood.config.yaml` in the working directory is read when it is there.
 */
export function withConfig(cmd: Command, verb: ConfigVerb): Command {
  return cmd
    .option("--config <file>", `configuration file (YAML; default: ./${CONFIG_FILE} when it exists)`)
    .hook("preAction", async () => {
      const given = cmd.getOptionValue("config") as string | undefined;
      const file = given ?? (existsSync(CONFIG_FILE) ? CONFIG_FILE : null);
      if (file === null) {
        loaded.set(cmd, { file: null, prices: {}, envs: null });
        return;
      }
      const { values, prices, envs } = await readConfig(file, cmd, verb);
      if (given === undefined) for (const [opt, value] of values) refuseWidening(file, opt, value);
      for (const [opt, value] of values) {
        const attribute = opt.attributeName();
        const source = cmd.getOptionValueSource(attribute);
        if (source === undefined || source === "default") cmd.setOptionValueWithSource(attribute, value, "config");
      }
      loaded.set(cmd, { file, prices, envs });
    });
}

/** A command's configuration after flags: every option set, by long name, with the file read, its prices and its environment specs. */
export function resolvedConfig(cmd: Command): ResolvedConfig {
  const options: Record<string, unknown> = {};
  for (const [name, opt] of optionsByName(cmd)) {
    const value: unknown = cmd.getOptionValue(opt.attributeName());
    if (value === undefined) continue;
    options[name] = opt.negate ? !value : value;
  }
  const from = loaded.get(cmd);
  return { file: from?.file ?? null, options, prices: from?.prices ?? {}, ...(from?.envs ? { envs: from.envs } : {}) };
}

/**
 * The plug-ins the configuration file names under `plugins:` (a module or a list of them; a path is taken
 * from the file's directory): the file `--config FILE` in `args` names, else ./gitgood.config.yaml when
 * it is there. Read before the verb is built, so that its options and registries include theirs.
 */
export function configuredPlugins(args: readonly string[]): PluginRequest[] {
  const given = configArgument(args);
  const file = given ?? (existsSync(CONFIG_FILE) ? CONFIG_FILE : null);
  if (file === null) return [];
  const raw = readYaml(file)[PLUGINS_KEY];
  if (raw === undefined || raw === null) return [];
  // A plug-in is code: a file merely found in the working directory (a cloned repository's, say) never loads one.
  if (given === null) {
    bad(file, PLUGINS_KEY, `names plug-ins, which run code: load them with --config ${file} (or --plugin), never from a file only found in the working directory`);
  }
  const modules = Array.isArray(raw) ? raw : [raw];
  if (!modules.every((m): m is string => typeof m === "string" && m !== "")) bad(file, PLUGINS_KEY, "takes a module name or path, or a list of them");
  const base = path.dirname(path.resolve(file));
  return modules.map((module) => ({ module, base, from: file }));
}

/** The value of `--config FILE` (or `--config=FILE`) among the arguments before a `--`. */
function configArgument(args: readonly string[]): string | null {
  for (let i = 0; i < args.length && args[i] !== "--"; i++) {
    const arg = at(args, i);
    if (arg === "--config") return args[i + 1] ?? null;
    if (arg.startsWith("--config=")) return arg.slice("--config=".length);
  }
  return null;
}
