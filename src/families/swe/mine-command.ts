import { existsSync } from "node:fs";
import { GitGoodError } from "../../errors.js";
import { lookupModel } from "../../model/lookup.js";
import { instanceRecord } from "../../swe/mine/instance.js";
import { DEFAULT_SWE_RUNS } from "../../swe/mine/flake-gate.js";
import { mineSwe, type SweMineSummary } from "../../swe/mine/mine.js";
import { SWE_DROP_REASONS } from "../../swe/mine/reasons.js";
import type { P2pScope } from "../../swe/mine/validate.js";
import { DEFAULT_SETUP_TIMEOUT, DEFAULT_TEST_TIMEOUT } from "../../swe/options.js";
import { escapeControls } from "../../util/escape.js";
import { writeOutputFile } from "../../util/output.js";
import { positiveIntOption } from "../../util/options.js";
import type { CommandIO, CommandOption, MineMode } from "../command-line-types.js";

/** The flags of `mine --type swe` (besides `--name`, `--languages`, `--jobs`, `-o` and `--json`, which mine shares). */
interface SweMineFlags {
  name?: string;
  languages?: string[];
  jobs: number;
  output?: string;
  json: boolean;
  runs: number;
  p2p: P2pScope;
  minFiles: number;
  maxFiles: number;
  /** `--since`/`--until` (mine's options), seconds since the epoch. */
  since?: number;
  until?: number;
  maxCandidates?: number;
  rejects?: string;
  envSpec?: string;
  envSpecOut?: string;
  envSetup?: "default" | "llm";
  model?: string;
  describeWith?: string;
  testTimeout: number;
  setupTimeout: number;
}

/** The options only `--type swe` reads. */
const SWE_MINE_OPTIONS: readonly CommandOption[] = [
  { flags: "--runs <n>", help: "swe: runs of each side; a test counts only with the same outcome in every run (the flake gate)", parse: positiveIntOption("--runs"), default: DEFAULT_SWE_RUNS },
  { flags: "--p2p <scope>", help: "swe: PASS_TO_PASS from the test files the change touches, or the whole suite (pytest)", choices: ["touched", "full"], default: "touched" },
  { flags: "--min-files <n>", help: "swe: fewest files a candidate change touches", parse: positiveIntOption("--min-files"), default: 1 },
  { flags: "--max-files <n>", help: "swe: most files a candidate change touches", parse: positiveIntOption("--max-files"), default: 15 },
  { flags: "--max-candidates <n>", help: "swe: validate only the newest N candidates", parse: positiveIntOption("--max-candidates") },
  { flags: "--rejects <file>", help: "swe: write every dropped candidate with its reason (JSONL)" },
  { flags: "--env-spec <file>", help: "swe: environment specs (YAML) per repository and version, over the built-in defaults" },
  { flags: "--env-spec-out <file>", help: "swe: write the environment specs that validated the kept instances (YAML, for --env-spec)" },
  { flags: "--env-setup <how>", help: "swe: build environments from the spec (default), or by an LLM agent with --model (llm)", choices: ["default", "llm"] },
  { flags: "--model <name>", help: "swe: the model of --env-setup llm" },
  { flags: "--describe-with <model>", help: "swe: a model writes each problem statement from the fix and its failing tests (default: the commit message)" },
  { flags: "--test-timeout <seconds>", help: "swe: time limit of one test run", parse: positiveIntOption("--test-timeout"), default: DEFAULT_TEST_TIMEOUT },
  { flags: "--setup-timeout <seconds>", help: "swe: time limit for building one environment", parse: positiveIntOption("--setup-timeout"), default: DEFAULT_SETUP_TIMEOUT },
];

function formatSweSummary(s: SweMineSummary, to: string): string {
  const lines = [
    `mined ${s.instances} SWE instances from ${s.repository} (${s.commits} commits, ${s.candidates} candidates, ${s.validated} validated, ${s.reused} from an earlier mining) -> ${to}`,
  ];
  const fresh = s.validated - s.reused;
  if (fresh > 0) {
    lines.push(`  validation ${s.validation_seconds}s for ${fresh} candidates (${(s.validation_seconds / fresh).toFixed(1)}s each; test runs ${s.test_seconds}s)`);
  }
  const entries = Object.entries(s.dropped).filter(([, n]) => (n ?? 0) > 0);
  if (entries.length > 0) lines.push("  dropped candidates:");
  for (const [reason, n] of entries) {
    lines.push(`    ${reason.padEnd(18)} ${String(n).padStart(6)}   ${SWE_DROP_REASONS[reason as keyof typeof SWE_DROP_REASONS]}`);
  }
  for (const w of s.warnings) lines.push(`warning: ${w}`);
  return lines.join("\n");
}

/** `gitgood mine REPO --type swe`: validated SWE-bench instances as JSONL, the funnel on stderr. */
async function mineSweFromFlags(repoPath: string, flags: SweMineFlags, io: CommandIO): Promise<void> {
  if (flags.envSpec !== undefined && !existsSync(flags.envSpec)) throw new GitGoodError("BAD_OPTION", `--env-spec ${flags.envSpec}: no such file`);
  if (flags.envSetup === "llm" && flags.model === undefined) throw new GitGoodError("BAD_OPTION", "--env-setup llm needs --model (the model that sets environments up)");
  const result = await mineSwe({
    repoPath,
    name: flags.name,
    ...(flags.languages ? { languages: flags.languages } : {}),
    jobs: flags.jobs,
    runs: flags.runs,
    p2p: flags.p2p,
    minFiles: flags.minFiles,
    maxFiles: flags.maxFiles,
    since: flags.since ?? null,
    until: flags.until ?? null,
    maxCandidates: flags.maxCandidates ?? null,
    describeWith: flags.describeWith ? lookupModel(flags.describeWith) : null,
    swe: {
      envSpecFile: flags.envSpec,
      envModel: flags.envSetup === "llm" && flags.model ? lookupModel(flags.model) : null,
      testTimeoutSeconds: flags.testTimeout,
      setupTimeoutSeconds: flags.setupTimeout,
    },
    onValidated: flags.json
      ? undefined
      : (e) => {
          const what = e.kept ? "kept" : `dropped: ${e.reason ?? ""}`;
          io.stderr.write(`[${e.done}/${e.total}] ${e.commit.slice(0, 12)} ${what} ${e.reused ? "(earlier verdict)" : `${e.seconds.toFixed(1)}s`}\n`);
        },
  });
  const text = result.instances.map((m) => `${JSON.stringify(instanceRecord(m))}\n`).join("");
  if (flags.output) writeOutputFile(flags.output, text);
  else io.stdout.write(text);
  if (flags.rejects) writeOutputFile(flags.rejects, result.rejects.map((r) => `${JSON.stringify(r)}\n`).join(""));
  if (flags.envSpecOut) writeOutputFile(flags.envSpecOut, result.envSpecYaml);
  io.stderr.write(flags.json ? `${JSON.stringify(result.summary)}\n` : `${escapeControls(formatSweSummary(result.summary, flags.output ?? "stdout"))}\n`);
}

/** `gitgood mine --type swe`, as the SWE family's command line loads it. */
export const SWE_MINE_MODE: MineMode = {
  options: SWE_MINE_OPTIONS,
  run: (repoPath, flags, io) => mineSweFromFlags(repoPath, flags as unknown as SweMineFlags, io),
};
