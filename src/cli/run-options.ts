import { Command, Option } from "commander";
import { agentNames } from "../agents/index.js";
import { TOOLS_MODES } from "../agents/presets/index.js";
import { RECORD_MODEL_IO } from "../proxy/index.js";
import { DIFFICULTIES, type Difficulty } from "../dataset/sample.js";
import { GitGoodError } from "../errors.js";
import { DEFAULT_HISTORY, parseHistory, type HistoryDepth } from "../git/store.js";
import { DEFAULT_DOCKER_IMAGE, DEFAULT_ISOLATION, isolationModes, isolationHelp } from "../sandbox/isolation.js";
import { MCR_TOOL_SETS } from "../scenarios/mcr/state.js";
import { scenarioNames } from "../scenarios/registry.js";
import { intOption, keywordListOption, listOption, numberOption, positiveIntOption, repeatable } from "../util/options.js";
import { scenarioSet } from "../runs/plan.js";
import { addSpecOptions } from "./spec-options.js";

/*
 * The command-line options of the verbs that set up sandboxes and run agents (`run`, `bench`, `score`,
 * `env`, `mcp`), declared once as commander options. The flags they parse into are typed in
 * runs/flags.ts; the declared run settings (runs/spec.ts) add theirs through spec-options.ts.
 */

/** The scenario names as options spell them (any case is accepted). */
export function scenarioChoices(): string[] {
  return scenarioNames().map((n) => n.toLowerCase());
}

/** `--history`, for every verb that sets up sandboxes. */
export function historyOption(): Option {
  return new Option("--history <n|full>", `first-parent commits of history each sandbox gets below the scenario's start, or 'full' (default ${DEFAULT_HISTORY})`)
    .argParser((value: string): HistoryDepth => parseHistory(value))
    .default(DEFAULT_HISTORY);
}

/** `--mcr-tools`, for every verb that sets up MCR scenarios: the published tools, or those plus `write_file_at`. */
export function mcrToolsOption(): Option {
  return new Option("--mcr-tools <set>", "MCR tools: paper (the published ones, replacing conflict regions only) or extended (also write_file_at, for edits outside the regions)")
    .choices(MCR_TOOL_SETS)
    .default("paper");
}

/** Parses --difficulty: a comma-separated list of easy, medium, hard. */
function difficultyOption(value: string): Difficulty[] {
  const list = keywordListOption(value);
  const wrong = list.filter((d) => !(DIFFICULTIES as readonly string[]).includes(d));
  if (wrong.length > 0 || list.length === 0) {
    throw new GitGoodError("BAD_OPTION", `--difficulty takes ${DIFFICULTIES.join(", ")} (comma-separated), not '${value}'`);
  }
  return list as Difficulty[];
}

/** The options `--temperature`, `--max-tokens`, `--seed`, `--max-connections` and `--no-cache` of `run`, `bench`, `score` and `mcp`. */
export function addModelOptions(cmd: Command): Command {
  return cmd
    .option("--temperature <t>", "sampling temperature of every model request, the agent's and the judges' (default 0)", numberOption("--temperature", 0, 2))
    .option("--max-tokens <n>", "upper bound on the tokens of each model answer", positiveIntOption("--max-tokens"))
    .option("--seed <n>", "seed of --sample's random draw (default 0), also sent with every model request (endpoints that support it)", intOption("--seed"))
    .option("--max-connections <n>", "model requests in flight at once, the agent's and the judges' together (default: no limit)", positiveIntOption("--max-connections"))
    .option("--no-cache", "ask the endpoint every time: do not answer temperature-0 requests from the response cache");
}

/** The options shared by `gitgood run` and `gitgood bench`. */
export function addRunOptions(cmd: Command): Command {
  cmd
    .option("--agent <name>", `agent: ${agentNames().join(", ")} (gitgood run: several, comma-separated, run one after the other and are compared)`, "baseline")
    .option("--model <name>", "model for the llm agent: NAME (OpenAI-compatible), openai-responses/NAME, anthropic/NAME, scripted/FILE, and for the CLI-agent presets (asked through gitgood's model proxy); gitgood run: several, comma-separated")
    .option("--command <cmd>", "program for the command and mcp-command agents (gets the context on stdin; acts through 'gitgood tool' or the MCP server in $GITGOOD_MCP_CONFIG)")
    .option("--agent-version <version>", "the npm version of a CLI-agent preset (claude-code, opencode) to install and run instead of its pinned one")
    .addOption(new Option("--tools <mode>", "how a CLI-agent preset gets a scenario's tools: over MCP, through its own shell (gitgood tool), or both (default both)").choices(TOOLS_MODES))
    .addOption(
      new Option("--record-model-io <mode>", "what the trajectory keeps of each model request an external agent makes through gitgood's model proxy: digest (message count and hash) or full (the messages)")
        .choices(RECORD_MODEL_IO)
        .default("digest"),
    )
    .option("--url <url>", "the a2a agent's A2A base URL (its card at /.well-known/agent-card.json)")
    .option("--judge <models>", "judge models for IR/ICC, comma-separated (pairwise, positions swapped)", listOption)
    .option("-j, --jobs <n>", "samples at once", positiveIntOption("--jobs"), 2);
  // The run's choices declared as run settings (runs/spec.ts: --timeout, --max-turns, --repeats, --memory, --shard).
  addSpecOptions(cmd, "choice")
    .option("--price-in <usd>", "price per million prompt tokens (to record cost)", numberOption("--price-in", 0, 1e6))
    .option("--price-out <usd>", "price per million completion tokens", numberOption("--price-out", 0, 1e6))
    .addOption(historyOption())
    .addOption(mcrToolsOption())
    .addOption(
      new Option("--isolation <mode>", `how agent programs are isolated, refused where it cannot run: ${isolationHelp()}`)
        .choices(isolationModes())
        .default(DEFAULT_ISOLATION),
    )
    .option("--network", "let isolated agent programs use the network", false)
    .option("--docker-image <image>", "the image of --isolation docker", DEFAULT_DOCKER_IMAGE)
    .option("--allow-read <path>", "a path isolated agent programs may read, e.g. their own installation (repeatable)", repeatable)
    .option("--pass-env <name>", "a host environment variable agent programs get (repeatable; by default they get only PATH, HOME, LANG, TERM and gitgood's own)", repeatable)
    .option("--ids <list>", "only these sample ids, comma-separated", listOption)
    .option("--scenario <list>", `only these scenarios, comma-separated (${scenarioChoices().join(", ")}; any case)`, (v: string) => scenarioSet(listOption(v)))
    .option("--difficulty <list>", `only these difficulties, comma-separated (${DIFFICULTIES.join(", ")})`, difficultyOption)
    .option("--language <list>", "only samples whose programming_language is one of these, comma-separated (any case)", keywordListOption)
    .option("--sample <n>", "a random sample of N samples, stratified by scenario and difficulty", positiveIntOption("--sample"))
    .option("--limit <n>", "only the first N samples (after the filters and --sample)", intOption("--limit"))
    .option("--dry-run", "print the plan (attempts, repositories, model calls to expect) and exit without running or writing anything", false)
    .option("--json", "print the report as JSON", false)
    .option("--retry-errors", "run again the attempts recorded with a system error (their records are replaced)", false)
    .option("--allow-errors", "exit 0 even when attempts ended in a system error (default: exit 1)", false)
    .option("--fail-under <rate>", "exit 3 when the solve rate, in percent of all attempts, is below RATE", numberOption("--fail-under", 0, 100));
  return addModelOptions(cmd);
}
