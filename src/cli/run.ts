import { Command } from "commander";
import { agentUsesModel, createAgent } from "../agents/index.js";
import { lookupModel } from "../model/lookup.js";
import { GitGoodError } from "../errors.js";
import { buildReport } from "../report/summary.js";
import { formatReport } from "../report/text.js";
import type { RepoLocator } from "../dataset/clones.js";
import type { ResolvedConfig } from "../runs/config.js";
import { addRunOptions, type RunFlags } from "../runs/flags.js";
import { checkLocator, defaultRunDir, isolationFrom, loadSelected, modelOptions, printPlan, runFromFlags, selectionOf } from "../runs/from-flags.js";
import { escapeControls } from "../util/escape.js";
import { listenToolHost, type ToolHostServer } from "../mcp/tool-host.js";
import { isolates } from "../sandbox/isolation.js";
import { addFamilyOptions, familyIdentity, familySettings, finishFamilies, prepareFamilies } from "../families/options.js";
import { repeatable } from "../util/options.js";
import { resolvedConfig, withConfig } from "./config.js";
import { checkOutcome } from "./outcome.js";
import { progressPrinter } from "./progress.js";
import type { CliIO } from "./io.js";

/** `gitgood run`: runs the benchmark for the flags and prints the report. */
async function run(files: string[], flags: RunFlags, io: CliIO, config: ResolvedConfig): Promise<void> {
  if ((flags.repo ? 1 : 0) + (flags.repos ? 1 : 0) !== 1) {
    throw new GitGoodError("BAD_OPTION", "give exactly one of --repo PATH (one repository) or --repos DIR (clones at DIR/owner/repo)");
  }
  const where: RepoLocator = flags.repo ? { repo: flags.repo } : { repos: flags.repos as string };
  // A dry run reports a missing repository in its plan instead of stopping.
  if (!flags.dryRun) await checkLocator(where);
  const all = [...files, ...(flags.dataset ?? [])];
  const prepared = prepareFamilies(flags, await loadSelected(all, selectionOf(flags)), flags.agent, io);
  const samples = prepared.samples;
  const models = modelOptions(flags);
  const client = agentUsesModel(prepared.agent) && flags.model !== undefined ? lookupModel(flags.model, models) : undefined;
  // The a2a agent's GitGoodBench tasks get their tools over MCP from a server on loopback, started with the run.
  let tools: ToolHostServer | null = null;
  const toolHost = { open: (socket: string) => (tools ? tools.host.open(socket) : Promise.reject(new GitGoodError("INTERNAL", "the MCP tool host is not started"))) };
  const agent = createAgent(prepared.agent, {
    ...prepared.agentOptions,
    model: flags.model,
    command: flags.command,
    client,
    url: flags.url,
    toolHost,
  });
  const model = agentUsesModel(flags.agent) ? flags.model : undefined;
  const dir = flags.out ?? defaultRunDir(all, agent.name);
  if (flags.dryRun) {
    await printPlan(samples, flags, { agent, model, where, dir }, io.stdout);
    return;
  }
  const judges = (flags.judge ?? []).map((m) => lookupModel(m, models));
  const isolation = isolationFrom(flags, io.stderr);
  try {
    if (flags.agent === "a2a") tools = await listenToolHost("127.0.0.1", 0);
    const summary = await runFromFlags(
      {
        dir,
        samples,
        files: all,
        where,
        agent,
        model,
        client,
        judges,
        isolation,
        config,
        settings: familySettings(flags, "run", { isolation, model: flags.model, envs: config.envs ?? null }),
        families: familyIdentity(flags),
        stderr: io.stderr,
        onResult: progressPrinter(io.stderr),
      },
      flags,
    );
    finishFamilies(flags, summary.records, io);
    if (summary.unsupported > 0) {
      io.stderr.write(`${summary.unsupported} scenario(s) skipped: agent ${agent.name} does not work them\n`);
    }
    const report = buildReport(summary.records);
    report.isolation = { mode: isolation.mode, isolated: isolates(isolation) };
    io.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : `${escapeControls(formatReport(report))}\n`);
    checkOutcome(summary.records, flags);
  } finally {
    await tools?.close();
  }
}

export function runCommand(io: CliIO): Command {
  const cmd = new Command("run")
    .description("run an agent on samples, each in its own sandbox; score, record and report (re-run to resume)")
    .argument("[samples...]", "samples files: gitgood JSONL, or published Parquet/CSV/JSONL")
    .option("--dataset <file>", "a samples file (same as the positional argument; repeatable)", repeatable)
    .option("--repo <path>", "the repository every sample comes from")
    .option("--repos <dir>", "directory of clones at DIR/owner/repo (as 'gitgood dataset repos' makes them)")
    .option("--out <dir>", "run directory (default: runs/<samples>-<agent>)");
  return withConfig(addFamilyOptions(addRunOptions(cmd), "run"), "run", io).action(async (files: string[], flags: RunFlags, command: Command) => {
    await run(files, flags, io, resolvedConfig(command));
  });
}
