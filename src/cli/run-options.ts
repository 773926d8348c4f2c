import type { Command } from "commander";
import { agentNames } from "../agents/index.js";
import { scenarioNames } from "../scenarios/registry.js";
import { numberOption, positiveIntOption } from "../util/options.js";
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

/** The options shared by `gitgood run` and `gitgood bench`. */
export function addRunOptions(cmd: Command): Command {
  cmd
    .option("--agent <name>", `agent: ${agentNames().join(", ")} (gitgood run: several, comma-separated, run one after the other and are compared)`, "baseline")
    .option("--model <name>", "model for the llm agent: NAME (OpenAI-compatible), openai-responses/NAME, anthropic/NAME, scripted/FILE, and for the CLI-agent presets (asked through gitgood's model proxy); gitgood run: several, comma-separated")
    .option("-j, --jobs <n>", "samples at once", positiveIntOption("--jobs"), 2);
  // The run's choices declared as run settings (runs/spec.ts: --timeout, --max-turns, --repeats, --memory, --shard,
  // --record-model-io, --history, --mcr-tools, the selection: --ids, --scenario, --difficulty, --language, --sample, --limit, --judge,
  // how models are asked: --temperature, --max-tokens, --seed, --max-connections, --no-cache, --price-in, --price-out,
  // the isolation: --isolation, --network, --docker-image, --allow-read, --pass-env, and the agent's own: --command,
  // --agent-version, --tools, --url).
  addSpecOptions(cmd, "choice")
    .option("--dry-run", "print the plan (attempts, repositories, model calls to expect) and exit without running or writing anything", false)
    .option("--json", "print the report as JSON", false)
    .option("--retry-errors", "run again the attempts recorded with a system error (their records are replaced)", false)
    .option("--allow-errors", "exit 0 even when attempts ended in a system error (default: exit 1)", false)
    .option("--fail-under <rate>", "exit 3 when the solve rate, in percent of all attempts, is below RATE", numberOption("--fail-under", 0, 100));
  return cmd;
}
