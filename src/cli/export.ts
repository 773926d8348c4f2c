import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { Command, Option } from "commander";
import { GitGoodError } from "../errors.js";
import { atifTrajectory } from "../export/atif.js";
import { attemptsOf, distinctRunDirs, readRun } from "../export/attempts.js";
import { exportHarborTask, type HarborExportOptions } from "../export/harbor.js";
import { CONTAINER_RUNTIMES, containerRuntimeProblem, type ContainerRuntime } from "../export/harbor-container.js";
import { inspectLog } from "../export/inspect.js";
import { agentPrices, qualifiedModelName } from "../export/models.js";
import { repositoryPath } from "../dataset/clones.js";
import { addFamilyOptions } from "./family-options.js";
import { familyScenarioSettings } from "../families/options.js";
import { Repo } from "../git/repo.js";
import { defaultIsolation } from "../sandbox/isolation.js";
import type { HistoryDepth } from "../git/store.js";
import { loadSamples } from "../runs/from-flags.js";
import { specOption } from "./spec-options.js";
import { HISTORY, familyFragments } from "../runs/spec.js";
import { scenariosFor } from "../scenarios/registry.js";
import { SFT_FORMATS, sftExport, type SftFormat } from "../export/sft.js";
import { safeFileName } from "../util/file-names.js";
import { scenarioNamed } from "../scenarios/registry.js";
import { writeOutputFile } from "../util/output.js";
import type { CliIO } from "./io.js";
import { scenarioChoices } from "./run-options.js";

const VERDICTS = ["solved", "unsolved", "unjudged", "error"] as const;
const pkg = createRequire(import.meta.url)("../../package.json") as { version: string };

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

interface SftFlags {
  solvedOnly?: boolean;
  all?: boolean;
  scenario?: string[];
  verdict?: string[];
  judgesAgree?: boolean;
  format: SftFormat;
  out?: string;
}

function sftCommand(io: CliIO): Command {
  return new Command("sft")
    .description("write training conversations (chat JSONL, one per attempt: system, user, assistant with tool calls, tool results)")
    .argument("<run-dir...>", "directories written by 'gitgood run'")
    .option("--solved-only", "only attempts the scorer solved (the default unless --all or --verdict)")
    .option("--all", "every attempt, unsolved and failed ones included")
    .addOption(new Option("--scenario <name>", "only this scenario (repeatable)").choices(scenarioChoices()).argParser(collect))
    .addOption(new Option("--verdict <verdict>", "only attempts with this verdict (repeatable)").choices([...VERDICTS]).argParser(collect))
    .option("--judges-agree", "only attempts whose judges all named the same winner (both orders, every judge)", false)
    .addOption(new Option("--format <layout>", "openai (fine-tuning chat layout) or sharegpt").choices([...SFT_FORMATS]).default("openai"))
    .option("--out <file>", "write the JSONL here instead of stdout")
    .action((dirs: string[], flags: SftFlags) => {
      if (flags.all && flags.solvedOnly) throw new GitGoodError("BAD_OPTION", "--all and --solved-only contradict each other: choose one");
      distinctRunDirs(dirs);
      const runs = dirs.map(readRun);
      // Training on failed attempts is a choice to make, not a default: --verdict names the verdicts wanted.
      const solvedOnly = flags.solvedOnly === true || (!flags.all && !flags.verdict);
      const result = sftExport(
        runs,
        {
          solvedOnly,
          scenarios: flags.scenario?.map((s) => scenarioNamed(s).name),
          verdicts: flags.verdict as (typeof VERDICTS)[number][] | undefined,
          judgesAgree: flags.judgesAgree,
        },
        flags.format,
      );
      const text = result.lines.map((l) => `${l}\n`).join("");
      if (flags.out) writeOutputFile(flags.out, text);
      else io.stdout.write(text);
      const left = [
        result.unsolved > 0 ? `${result.unsolved} not solved left out${flags.solvedOnly ? "" : " (--all to include them)"}` : "",
        result.filtered > 0 ? `${result.filtered} filtered out` : "",
        result.without_trajectory > 0 ? `${result.without_trajectory} without a readable trajectory` : "",
        result.empty > 0 ? `${result.empty} with no turn` : "",
      ].filter(Boolean);
      io.stderr.write(`${result.written} conversation(s)${flags.out ? ` written to ${flags.out}` : ""}${left.length > 0 ? `; ${left.join(", ")}` : ""}\n`);
    });
}

function atifCommand(io: CliIO): Command {
  return new Command("atif")
    .description("write each attempt's trajectory in ATIF, Harbor's agent trajectory format (OUT/RUN/KEY.json)")
    .argument("<run-dir...>", "directories written by 'gitgood run'")
    .requiredOption("--out <dir>", "directory to write the trajectories into")
    .action((dirs: string[], flags: { out: string }) => {
      distinctRunDirs(dirs);
      let written = 0;
      let missing = 0;
      for (const dir of dirs) {
        const run = readRun(dir);
        const named = run.config.identity.model?.name;
        const model = named ? qualifiedModelName(named) : null;
        const prices = agentPrices(run);
        const target = path.join(flags.out, safeFileName(run.label));
        mkdirSync(target, { recursive: true });
        for (const { record, trajectory } of attemptsOf(run)) {
          if (!trajectory) {
            missing++;
            continue;
          }
          const doc = atifTrajectory(run.label, pkg.version, record, trajectory, model, prices);
          writeOutputFile(path.join(target, `${safeFileName(record.key)}.json`), `${JSON.stringify(doc, null, 1)}\n`);
          written++;
        }
      }
      io.stderr.write(`${written} ATIF trajectorie(s) written under ${flags.out}${missing > 0 ? `; ${missing} attempt(s) without a readable trajectory` : ""}\n`);
    });
}

function inspectCommand(io: CliIO): Command {
  return new Command("inspect")
    .description("write each run as an Inspect AI log (OUT/RUN.eval), for 'inspect view'")
    .argument("<run-dir...>", "directories written by 'gitgood run'")
    .requiredOption("--out <dir>", "directory to write the .eval files into")
    .action((dirs: string[], flags: { out: string }) => {
      distinctRunDirs(dirs);
      const runs = dirs.map(readRun);
      const names = runs.map((r) => `${safeFileName(r.label)}.eval`);
      const twice = names.find((n, i) => names.indexOf(n) !== i);
      if (twice) throw new GitGoodError("BAD_OPTION", `two run directories have the same name (${twice}); export them into different --out directories`);
      mkdirSync(flags.out, { recursive: true });
      runs.forEach((run, i) => {
        const file = path.join(flags.out, names[i] ?? "run.eval");
        writeOutputFile(file, inspectLog(run, pkg.version));
        io.stderr.write(`wrote ${file} (${run.records.length} attempt(s))\n`);
      });
    });
}

interface HarborFlags {
  repo?: string;
  repos?: string;
  ids?: string;
  scenario?: string[];
  history: HistoryDepth;
  check?: boolean;
  keepFailing: boolean;
  runtime: "jail" | ContainerRuntime;
  baseImage?: string;
}

/**
 * Where the gate runs: gitgood's default jail, or the container runtime `--runtime` names. Where it cannot
 * run, an explicit `--check` or `--runtime` is refused in one line and the default goes on unchecked, saying so.
 */
async function checkPlace(flags: HarborFlags, io: CliIO): Promise<HarborExportOptions["check"]> {
  if (flags.check === false) return null;
  if (flags.runtime !== "jail") {
    const problem = await containerRuntimeProblem(flags.runtime);
    if (problem !== null) throw new GitGoodError("ISOLATION_UNAVAILABLE", `--runtime ${flags.runtime} cannot run here: ${problem}`);
    return { container: { runtime: flags.runtime, baseImage: flags.baseImage } };
  }
  try {
    return { isolation: defaultIsolation() };
  } catch (err) {
    if (!(err instanceof GitGoodError) || flags.check === true) throw err;
    io.stderr.write(`the tasks are not checked: ${err.message}\n`);
    return null;
  }
}

function harborCommand(io: CliIO): Command {
  const cmd = new Command("harbor")
    .description("write Harbor task directories (task.toml, instruction.md, environment/, tests/, solution/), one per sample and scenario")
    .argument("<samples>", "samples file (gitgood JSONL or another dataset layout)")
    .argument("<out>", "directory to write the task directories into")
    .option("--repo <path>", "the repository the samples were mined from (only read)")
    .option("--repos <dir>", "a directory of clones, OWNER/REPO each, for samples of several repositories")
    .option("--ids <list>", "only these sample ids, comma-separated")
    .addOption(new Option("--scenario <name>", "only this scenario (repeatable)").choices(scenarioChoices()).argParser(collect))
    .addOption(specOption(HISTORY))
    .option("--check", "check every task before it is written: the oracle scores 1, the untouched start 0 (the default where gitgood's jail runs)")
    .option("--no-check", "write the tasks unchecked")
    .addOption(
      new Option("--runtime <name>", "where the check runs: gitgood's jail with the task's environment, or a container runtime that builds environment/Dockerfile")
        .choices(["jail", ...CONTAINER_RUNTIMES])
        .default("jail"),
    )
    .option("--base-image <image>", "with --runtime podman|docker: the image the Dockerfile starts from for the check (its BASE_IMAGE build argument; one built offline, say)")
    .option("--keep-failing", "write the tasks that fail the check too (task.toml's [metadata] gitgood_check says why)", false)
    .action(async (samplesFile: string, outArg: string, flags: HarborFlags) => {
      if (!flags.repo === !flags.repos) throw new GitGoodError("BAD_OPTION", "gitgood export harbor needs --repo PATH or --repos DIR (one of them)");
      const out = path.resolve(outArg);
      // The families' environment options (--env-spec): the Dockerfile's set-up and the check's environment.
      const settings = familyScenarioSettings(familyFragments(flags as unknown as Record<string, unknown>), "harbor", { isolation: undefined, model: undefined, envs: null });
      const check = await checkPlace(flags, io);
      const where = flags.repo ? { repo: flags.repo } : { repos: flags.repos ?? "" };
      const samples = await loadSamples([samplesFile], flags.ids?.split(",").map((s) => s.trim()).filter(Boolean));
      const wanted = flags.scenario?.map((s) => scenarioNamed(s).name);
      const repos = new Map<string, Repo>();
      let written = 0;
      let failed = 0;
      let leftOut = 0;
      try {
        for (const sample of samples) {
          for (const scenario of scenariosFor(sample).filter((d) => !wanted || wanted.includes(d.name))) {
            try {
              const dir = repositoryPath(where, sample);
              let source = repos.get(dir);
              if (!source) {
                source = (await Repo.open(dir)).keepReader();
                repos.set(dir, source);
              }
              const task = await exportHarborTask(sample, scenario, source, {
                out,
                history: flags.history,
                version: pkg.version,
                settings,
                check,
                keepFailing: flags.keepFailing,
              });
              const problems = task.check?.problems ?? [];
              if (problems.length > 0) io.stderr.write(`${sample.id} ${scenario.name}: fails the check: ${problems.join("; ")}\n`);
              if (task.dir === null) {
                leftOut++;
                continue;
              }
              io.stderr.write(`wrote ${path.join(outArg, path.basename(task.dir))}${task.check ? (problems.length === 0 ? " (checked: the oracle scores 1, the untouched start 0)" : " (kept although it fails the check)") : ""}\n`);
              written++;
            } catch (err) {
              if (!(err instanceof GitGoodError)) throw err;
              io.stderr.write(`${sample.id} ${scenario.name}: not exported: ${err.message}\n`);
              failed++;
            }
          }
        }
      } finally {
        for (const repo of repos.values()) void repo.close();
      }
      const notes = [failed > 0 ? `${failed} not exported` : "", leftOut > 0 ? `${leftOut} left out for failing the check (--keep-failing writes them)` : ""].filter(Boolean);
      io.stderr.write(`${written} Harbor task(s) written under ${outArg}${notes.length > 0 ? `; ${notes.join("; ")}` : ""}\n`);
      if (written === 0) throw new GitGoodError("BAD_OPTION", "no Harbor task was written");
    });
  return addFamilyOptions(cmd, "harbor");
}

export function exportCommand(io: CliIO): Command {
  return new Command("export")
    .description("take tasks and runs elsewhere: Harbor task directories (harbor), training data (sft), Harbor trajectories (atif), Inspect AI logs (inspect)")
    .addCommand(harborCommand(io))
    .addCommand(sftCommand(io))
    .addCommand(atifCommand(io))
    .addCommand(inspectCommand(io));
}
