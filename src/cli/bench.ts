import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Command } from "commander";
import { createAgent } from "../agents/index.js";
import { lookupModel } from "../model/lookup.js";
import { sampleToJson, type Sample } from "../dataset/sample.js";
import { buildSyntheticRepo } from "../demo/synthetic.js";
import { GitGoodError } from "../errors.js";
import { Repo } from "../git/repo.js";
import { mergeResolvable } from "../git/resolvable.js";
import { DEFAULT_MINE_OPTIONS, mine } from "../mining/mine.js";
import { filterSamples, stratifiedSample } from "../runs/plan.js";
import { writeOutputFile } from "../util/output.js";
import { resolvedConfig, withConfig } from "./config.js";
import { keywordListOption, positiveIntOption, type CliIO } from "./io.js";
import { checkOutcome } from "./outcome.js";
import { progressPrinter } from "./progress.js";
import { writeReport } from "./report.js";
import { addRunOptions } from "./run-options.js";
import { type RunFlags } from "../runs/flags.js";
import { addSpecOptions } from "./spec-options.js";
import { flagRunConfig, isolationFrom, judgesOf, modelOptions, printPlan, runFromFlags, selectionOf, type FlagRun } from "../runs/from-flags.js";
import { runDirFor } from "../runs/store.js";
import { agentSettings, specFromOptions } from "../runs/spec.js";
import { at } from "../util/at.js";

interface BenchFlags extends RunFlags {
  demo: boolean;
  perType: number;
  html?: string;
  languages: string[];
  includeUnresolvable: boolean;
}

/** The demo repository gitgood builds (deterministic: the same repository every time). */
const DEMO_REPO = { commits: 400, merges: 30, files: 12, seed: 11 };

/** Up to `n` samples of one type, spread over difficulties and over the repository's history. */
function pickSamples(samples: readonly Sample[], n: number): Sample[] {
  const byDifficulty = ["easy", "medium", "hard"].map((d) => samples.filter((s) => s.difficulty === d));
  const spread = (group: Sample[], k: number): Sample[] =>
    k >= group.length ? group : Array.from({ length: k }, (_, i) => at(group, Math.floor(((i + 0.5) * group.length) / k)));
  const quota = [0, 0, 0];
  for (let left = n, d = 0; left > 0 && quota.some((q, i) => q < (byDifficulty[i]?.length ?? 0)); d = (d + 1) % 3) {
    if ((quota[d] ?? 0) < (byDifficulty[d]?.length ?? 0)) {
      quota[d] = (quota[d] ?? 0) + 1;
      left--;
    }
  }
  return byDifficulty.flatMap((g, i) => spread(g, quota[i] ?? 0)).sort((a, b) => (a.id < b.id ? -1 : 1));
}

/**
 * The merges the published MCR tools can reproduce: by the flag mining set, else (a merge whose
 * objects could not all be read, say) checked now; a merge that cannot be checked is left out too.
 */
async function resolvableMerges(repoDir: string, merges: readonly Sample[]): Promise<Sample[]> {
  // Mined samples carry the flag; the repository is opened only for one that does not.
  let repo: Repo | null = null;
  const out: Sample[] = [];
  for (const s of merges) {
    if (s.sample_type !== "merge") continue;
    let resolvable = s.scenario.resolvable;
    if (resolvable === undefined) {
      repo ??= await Repo.open(repoDir);
      resolvable = await mergeResolvable(repo, s.scenario).then((r) => r.resolvable, () => false);
    }
    if (resolvable) out.push(s);
  }
  return out;
}

async function isRepository(dir: string): Promise<boolean> {
  try {
    await Repo.open(dir);
    return true;
  } catch {
    return false;
  }
}

export function benchCommand(io: CliIO): Command {
  const cmd = new Command("bench")
    .description("one command: mine a repository, run an agent on a few samples of each scenario, score and report")
    .argument("[repo]", "repository to benchmark on (default: the current directory, else a demo repository)")
    .option("--demo", "use a small demo repository that gitgood builds itself", false)
    .option("--per-type <n>", "samples per sample type (merge, file_commit_chain)", positiveIntOption("--per-type"), 5)
    .option("--out <dir>", "where samples, run records and the report go", "gitgood-bench")
    .option("--html <file>", "HTML report (default: OUT/report.html)")
    .option(
      "--languages <list>",
      "languages whose files count when mining the repository, comma-separated (as 'gitgood mine --languages')",
      keywordListOption,
      [...DEFAULT_MINE_OPTIONS.languages],
    )
    .option("--include-unresolvable", "also run merges no agent can reproduce with the published MCR tools (left out by default)", false);
  return withConfig(addSpecOptions(addRunOptions(cmd), "limit"), "bench").action(async (repoArg: string | undefined, flags: BenchFlags) => {
    const out = flags.out ?? "gitgood-bench";
    // A repository given by name must open before anything is written.
    if (repoArg && !flags.demo) await Repo.open(repoArg);
    const isolation = isolationFrom(flags, io.stderr);
    if (!flags.dryRun) mkdirSync(out, { recursive: true });
    const demoRepo = path.join(out, "demo-repo");
    const useDemo = async (): Promise<string> => {
      if (!existsSync(path.join(demoRepo, ".git")) && !flags.dryRun) {
        io.stderr.write(`building a demo repository in ${demoRepo}\n`);
        await buildSyntheticRepo(demoRepo, DEMO_REPO);
      }
      return demoRepo;
    };
    const mineRepo = async (dir: string) => {
      if (dir !== demoRepo) return mine({ repoPath: dir, languages: flags.languages });
      if (existsSync(path.join(demoRepo, ".git"))) return mine({ repoPath: dir, name: "gitgood/demo" });
      // A dry run writes nothing: it mines the demo repository built in a temporary directory.
      const scratch = mkdtempSync(path.join(os.tmpdir(), "gitgood-demo-"));
      try {
        io.stderr.write(`building a demo repository in a temporary directory (a run builds it in ${demoRepo})\n`);
        await buildSyntheticRepo(path.join(scratch, "demo-repo"), DEMO_REPO);
        return await mine({ repoPath: path.join(scratch, "demo-repo"), name: "gitgood/demo" });
      } finally {
        rmSync(scratch, { recursive: true, force: true });
      }
    };
    const selection = selectionOf(flags);
    /** Chains, and the merges an agent with the published MCR tools can solve (all with --include-unresolvable). */
    const usableSamples = async (dir: string, samples: readonly Sample[]): Promise<Sample[]> => {
      const merges = samples.filter((s) => s.sample_type === "merge");
      if (flags.includeUnresolvable) return [...samples];
      const resolvable = new Set(await resolvableMerges(dir, merges));
      if (resolvable.size < merges.length) {
        io.stderr.write(
          `taking only the ${resolvable.size} resolvable of ${merges.length} merges: the published MCR tools cannot reproduce the other ${merges.length - resolvable.size} (--include-unresolvable takes them too)\n`,
        );
      }
      return samples.filter((s) => s.sample_type !== "merge" || resolvable.has(s));
    };
    const pick = async (dir: string) => {
      const mined = await mineRepo(dir);
      const filtered = filterSamples(await usableSamples(dir, mined.samples), selection);
      const drawn = selection.sample
        ? stratifiedSample(filtered, selection.sample.size, selection.sample.seed, selection.scenarios)
        : [
            ...pickSamples(filtered.filter((s) => s.sample_type === "merge"), flags.perType),
            ...pickSamples(filtered.filter((s) => s.sample_type === "file_commit_chain"), flags.perType),
          ];
      const samples = selection.limit !== undefined ? drawn.slice(0, selection.limit) : drawn;
      const merges = samples.filter((s) => s.sample_type === "merge");
      return { mined, merges, chains: samples.filter((s) => s.sample_type === "file_commit_chain"), samples };
    };
    let repo = flags.demo || (!repoArg && !(await isRepository("."))) ? await useDemo() : (repoArg ?? ".");
    let picked = await pick(repo);
    if (picked.mined.samples.length === 0 && !repoArg && repo !== demoRepo) {
      // The current directory was only a default: say so and show the benchmark on the demo repository.
      io.stderr.write(`no merge conflicts or file-commit chains to benchmark in ${picked.mined.summary.repository}; using a demo repository instead\n`);
      repo = await useDemo();
      picked = await pick(repo);
    }
    const { mined, merges, chains, samples } = picked;
    if (samples.length === 0) {
      throw new GitGoodError(
        "NO_SAMPLES",
        `no merge conflicts or file-commit chains to benchmark in ${mined.summary.repository}; try 'gitgood bench --demo'`,
      );
    }
    const model = flags.model ?? process.env.GITGOOD_MODEL;
    const agentName = cmd.getOptionValueSource("agent") === "default" && model ? "llm" : flags.agent;
    const models = modelOptions(flags);
    const client = agentName === "llm" && model !== undefined ? lookupModel(model, models) : undefined;
    const agent = createAgent(agentName, { model, client, ...agentSettings(specFromOptions(flags as unknown as Record<string, unknown>)) });
    const agentModel = agentName === "llm" ? model : undefined;
    const config = resolvedConfig(cmd);
    const judges = judgesOf(flags, models);
    // One run directory per set of samples and settings: the same bench again resumes its run; other samples
    // (another --languages, a changed repository) get a directory of their own beside it, never a share of it.
    const firstDir = path.join(out, "run");
    const build = (dir: string, samplesFile: string): FlagRun => ({
      agentName,
      dir,
      samples,
      files: [samplesFile],
      where: { repo },
      agent,
      model: agentModel,
      client,
      judges,
      isolation,
      config,
      onResult: progressPrinter(io.stderr),
    });
    const runDir = runDirFor(firstDir, flagRunConfig(build(firstDir, path.join(out, "samples.jsonl")), flags).identity);
    const suffix = runDir.slice(firstDir.length);
    const samplesFile = path.join(out, `samples${suffix}.jsonl`);
    if (runDir !== firstDir) {
      io.stderr.write(`${firstDir} holds a run of other samples or settings; this one goes to ${runDir} (--out DIR chooses another place)\n`);
    }
    if (flags.dryRun) {
      io.stderr.write(`mined ${mined.samples.length} samples from ${mined.summary.repository}; would run ${merges.length} merge and ${chains.length} chain samples\n`);
      await printPlan(samples, flags, { agent, model: agentModel, where: { repo }, dir: runDir }, io.stdout);
      return;
    }
    writeOutputFile(samplesFile, samples.map((s) => `${sampleToJson(s)}\n`).join(""));
    io.stderr.write(
      `mined ${mined.samples.length} samples from ${mined.summary.repository}; running ${merges.length} merge and ${chains.length} chain samples (${samplesFile})\n`,
    );
    const summary = await runFromFlags(build(runDir, samplesFile), flags);
    writeReport(runDir, { json: flags.json, html: flags.html ?? path.join(out, `report${suffix}.html`) }, io);
    checkOutcome(summary.records, flags);
    if (summary.budgetLine) io.stderr.write(`${summary.budgetLine}\n`);
  });
}
