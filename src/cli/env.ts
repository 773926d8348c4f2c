import { Command, Option } from "commander";
import { GitGoodError } from "../errors.js";
import { findSample } from "../dataset/jsonl.js";
import { SANDBOX_ENV, locateSandbox } from "../sandbox/locate.js";
import { openScenario, setupScenario, type FinalState, type ScenarioKind } from "../scenarios/index.js";
import { escapeControls } from "../util/escape.js";

interface EnvFlags {
  id?: string;
  repo?: string;
  scenario?: ScenarioKind;
  scope: "file" | "all";
  finish: boolean;
  sandbox?: string;
  json: boolean;
}

function describeFinal(state: FinalState): string {
  const lines: string[] = [];
  if (state.kind === "mcr") {
    lines.push(
      `mcr: ${state.done ? "merge committed" : "not finished"}; conflicts left: ${state.conflicts_left}`,
      `head ${state.head ?? "-"}  tree ${state.tree ?? "-"}`,
    );
    for (const f of state.files) lines.push(`  ${f.path}: ${f.content === null ? "deleted" : `${f.content.length} characters (${f.encoding})`}`);
  } else {
    lines.push(`${state.kind}: ${state.done ? "finished" : `not finished (${state.pending ?? "open"})`}`);
    lines.push(`base ${state.base}  head ${state.head}  tree ${state.tree}`);
    for (const c of state.commits) {
      lines.push(`  ${c.oid.slice(0, 12)} ${c.author.name} <${c.author.email}>  ${c.message.split("\n")[0] ?? ""}`);
    }
  }
  return lines.join("\n");
}

async function finish(flags: EnvFlags): Promise<void> {
  const scenario = await openScenario(locateSandbox(flags.sandbox));
  try {
    const state = await scenario.finalState();
    process.stdout.write(
      flags.json ? `${JSON.stringify({ sandbox: scenario.sandbox.dir, final_state: state })}\n` : `${escapeControls(describeFinal(state))}\n`,
    );
  } finally {
    scenario.close();
  }
  if (!flags.json) process.stderr.write(`removed ${scenario.sandbox.dir}\n`);
}

async function start(samplesFile: string | undefined, flags: EnvFlags): Promise<void> {
  if (!samplesFile || !flags.id || !flags.repo) {
    throw new GitGoodError("BAD_OPTION", "gitgood env needs <samples.jsonl>, --id ID and --repo PATH (or --finish)");
  }
  const sample = findSample(samplesFile, flags.id);
  const scenario = await setupScenario(sample, flags.repo, { kind: flags.scenario, scope: flags.scope, keep: true });
  try {
    const context = await scenario.initialContext();
    if (flags.json) {
      const out = {
        sandbox: scenario.sandbox.dir,
        scenario: scenario.kind,
        sample_id: sample.id,
        context: context.data,
        context_text: context.text,
        tools: scenario.functionTools(),
      };
      process.stdout.write(`${JSON.stringify(out)}\n`);
      return;
    }
    process.stdout.write(
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
    process.stderr.write(
      `scenario ${scenario.kind} is live in ${scenario.sandbox.dir}\n` +
        `  export ${SANDBOX_ENV}=${scenario.sandbox.dir}   # so 'gitgood tool' finds it; 'gitgood env --finish' ends it\n`,
    );
  } catch (err) {
    scenario.close();
    throw err;
  }
}

export function envCommand(): Command {
  return new Command("env")
    .description("set up one scenario in a sandbox and print its initial context and tools; --finish ends it")
    .argument("[samples]", "JSONL file of samples (as written by 'gitgood mine')")
    .option("--id <id>", "id of the sample to set up")
    .option("--repo <path>", "local repository the sample was mined from (only read, never changed)")
    .addOption(new Option("--scenario <kind>", "for a file-commit chain: which scenario").choices(["mcr", "ir", "icc"]))
    .addOption(
      new Option("--scope <scope>", "ICC: offer the chain file's hunks (file, as published) or every file's (all)")
        .choices(["file", "all"])
        .default("file"),
    )
    .option("--finish", "print the final state of the live scenario and remove its sandbox", false)
    .option("--sandbox <dir>", `with --finish: the sandbox (default: $${SANDBOX_ENV}, or the only live one)`)
    .option("--json", "print machine-readable JSON", false)
    .action(async (samples: string | undefined, flags: EnvFlags) => {
      if (flags.finish) await finish(flags);
      else await start(samples, flags);
    });
}
