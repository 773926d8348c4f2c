import { Command, Option } from "commander";
import { GitGoodError } from "../errors.js";
import type { HistoryDepth } from "../git/store.js";
import type { CliIO } from "./io.js";
import { findSample } from "../dataset/jsonl.js";
import { SANDBOX_ENV, locateSandbox } from "../sandbox/locate.js";
import { openScenario, setupScenario } from "../scenarios/index.js";
import { escapeControls } from "../util/escape.js";
import type { McrToolSet } from "../scenarios/mcr/state.js";
import { scenarioChoices } from "./run-options.js";
import { specOption } from "./spec-options.js";
import { HISTORY, MCR_TOOLS, familyFragments } from "../runs/spec.js";
import { loadSamples } from "../runs/from-flags.js";
import type { Sample } from "../dataset/sample.js";
import { addFamilyOptions } from "./family-options.js";
import { familyScenarioSettings } from "../families/options.js";
import { envVerdict, verdictLine } from "./env-verdict.js";

interface EnvFlags {
  id?: string;
  repo?: string;
  scenario?: string;
  scope: "file" | "all";
  mcrTools: McrToolSet;
  history: HistoryDepth;
  finish: boolean;
  sandbox?: string;
  json: boolean;
}

/** The scenario settings `env` sets a scenario up with, and scores it with at `--finish`. */
function envSettings(flags: EnvFlags): Record<string, unknown> {
  return { scope: flags.scope, mcrTools: flags.mcrTools, ...familyScenarioSettings(familyFragments(flags as unknown as Record<string, unknown>), "env", { isolation: undefined, model: undefined, envs: null }) };
}

async function finish(flags: EnvFlags, io: CliIO): Promise<void> {
  const scenario = await openScenario(locateSandbox(flags.sandbox));
  try {
    const state = await scenario.finalState();
    const v = await envVerdict(scenario, state, envSettings(flags));
    io.stdout.write(
      flags.json
        ? `${JSON.stringify({ sandbox: scenario.sandbox.dir, scenario: scenario.definition.name, final_state: state, verdict: v.verdict, solved: v.solved, scores: v.scores, verdict_note: v.note })}\n`
        : `${escapeControls(`${scenario.definition.describeFinal(state)}\n${verdictLine(v)}`)}\n`,
    );
  } finally {
    scenario.close();
  }
  if (!flags.json) io.stderr.write(`removed ${scenario.sandbox.dir}\n`);
}

/** A sample of a gitgood JSONL file (read line by line), else of any dataset file (a SWE-bench instance file, say). */
async function sampleIn(file: string, id: string): Promise<Sample> {
  try {
    return findSample(file, id);
  } catch (err) {
    const found = await loadSamples([file]).then((all) => all.find((s) => s.id === id)).catch(() => undefined);
    if (found) return found;
    throw err;
  }
}

async function start(samplesFile: string | undefined, flags: EnvFlags, io: CliIO): Promise<void> {
  if (!samplesFile || !flags.id || !flags.repo) {
    throw new GitGoodError("BAD_OPTION", "gitgood env needs <samples.jsonl>, --id ID and --repo PATH (or --finish)");
  }
  const sample = await sampleIn(samplesFile, flags.id);
  // A person or a shell-driven agent works here: the whole work tree is written.
  const scenario = await setupScenario(sample, flags.repo, {
    scenario: flags.scenario,
    settings: envSettings(flags),
    keep: true,
    history: flags.history,
    workTree: "full",
  });
  try {
    const context = await scenario.initialContext();
    if (flags.json) {
      const out = {
        sandbox: scenario.sandbox.dir,
        scenario: scenario.definition.name.toLowerCase(),
        sample_id: sample.id,
        context: context.data,
        context_text: context.text,
        tools: scenario.functionTools(),
      };
      io.stdout.write(`${JSON.stringify(out)}\n`);
      return;
    }
    io.stdout.write(
      escapeControls([
        `sandbox: ${scenario.sandbox.dir}`,
        "",
        context.text,
        "",
        `Tools (call with: gitgood tool NAME --args '{"reason": "...", ...}'):`,
        "",
        scenario.toolHelp(),
        "",
      ].join("\n")),
    );
    io.stderr.write(
      `scenario ${scenario.definition.name} is live in ${scenario.sandbox.dir}\n` +
        `  export ${SANDBOX_ENV}=${scenario.sandbox.dir}   # so 'gitgood tool' finds it; 'gitgood env --finish' ends it\n`,
    );
  } catch (err) {
    scenario.close();
    throw err;
  }
}

export function envCommand(io: CliIO): Command {
  const cmd = new Command("env")
    .description("set up one scenario in a sandbox and print its initial context and tools; --finish ends it")
    .argument("[samples]", "JSONL file of samples (as written by 'gitgood mine')")
    .option("--id <id>", "id of the sample to set up")
    .option("--repo <path>", "local repository the sample was mined from (only read, never changed)")
    .option("--scenario <name>", `for a sample that gives several scenarios, which one: ${scenarioChoices().join(", ")}`)
    .addOption(
      new Option("--scope <scope>", "ICC: offer the chain file's hunks (file, as published) or every file's (all)")
        .choices(["file", "all"])
        .default("file"),
    )
    .addOption(specOption(MCR_TOOLS))
    .addOption(specOption(HISTORY))
    .option("--finish", "print the final state of the live scenario and its verdict, and remove its sandbox", false)
    .option("--sandbox <dir>", `with --finish: the sandbox (default: $${SANDBOX_ENV}, or the only live one)`)
    .option("--json", "print machine-readable JSON", false);
  return addFamilyOptions(cmd, "env").action(async (samples: string | undefined, flags: EnvFlags) => {
    if (flags.finish) await finish(flags, io);
    else await start(samples, flags, io);
  });
}
