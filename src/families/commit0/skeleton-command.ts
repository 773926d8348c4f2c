import { existsSync } from "node:fs";
import { DEFAULT_SETUP_TIMEOUT, DEFAULT_TEST_TIMEOUT } from "../../commit0/options.js";
import { makeSkeleton, SKELETON_STYLES, type SkeletonResult, type SkeletonStyle } from "../../commit0/skeleton.js";
import { sampleToJson } from "../../dataset/sample.js";
import { GitGoodError } from "../../errors.js";
import { escapeControls } from "../../util/escape.js";
import { writeOutputFile } from "../../util/output.js";
import { positiveIntOption } from "../../util/options.js";
import type { CommandDefinition, CommandIO } from "../command-line-types.js";

interface SkeletonFlags {
  src: string;
  style: string;
  ref?: string;
  output?: string;
  name?: string;
  id?: string;
  testDir?: string;
  envSpec?: string;
  testTimeout: number;
  setupTimeout: number;
  json: boolean;
}

function summary(r: SkeletonResult, to: string): string {
  const functions = r.stubbed.reduce((n, s) => n + s.functions.length, 0);
  const sc = r.sample.scenario;
  const deleted = r.deleted.reduce((n, s) => n + s.functions.length, 0);
  return [
    `skeleton ${r.ref} = ${sc.base_commit.slice(0, 12)} (reference ${sc.reference_commit.slice(0, 12)}): ${functions} function(s) stubbed in ${r.stubbed.length} file(s)${deleted > 0 ? `, ${deleted} deleted` : ""}, ${r.kept.length} Python file(s) kept whole`,
    ...r.kept.map((k) => `  kept ${k.file} (${k.reason})`),
    `reference: ${r.reference.passed} of ${r.reference.ran} test(s) pass; they are the counted tests`,
    `task ${r.sample.id} -> ${to}`,
  ].join("\n");
}

/** `gitgood skeleton REPO`: a repository-completion task as one JSONL sample, its summary on stderr. */
async function skeleton(repoPath: string, flags: SkeletonFlags, io: CommandIO): Promise<void> {
  if (flags.envSpec !== undefined && !existsSync(flags.envSpec)) throw new GitGoodError("BAD_OPTION", `--env-spec ${flags.envSpec}: no such file`);
  if (!(SKELETON_STYLES as readonly string[]).includes(flags.style)) throw new GitGoodError("BAD_OPTION", `--style ${flags.style}: expected one of ${SKELETON_STYLES.join(", ")}`);
  const result = await makeSkeleton(repoPath, {
    src: flags.src,
    style: flags.style as SkeletonStyle,
    ref: flags.ref,
    name: flags.name,
    id: flags.id,
    testDir: flags.testDir,
    envSpecFile: flags.envSpec,
    testTimeoutSeconds: flags.testTimeout,
    setupTimeoutSeconds: flags.setupTimeout,
  });
  const line = `${sampleToJson(result.sample)}\n`;
  if (flags.output) writeOutputFile(flags.output, line);
  else io.stdout.write(line);
  const facts = { id: result.sample.id, ref: result.ref, commit: result.sample.scenario.base_commit, stubbed: result.stubbed, deleted: result.deleted, kept: result.kept, reference: result.reference };
  io.stderr.write(flags.json ? `${JSON.stringify(facts)}\n` : `${escapeControls(summary(result, flags.output ?? "stdout"))}\n`);
}

/** `gitgood skeleton`, as the COMMIT0 family's command line loads it. */
export const SKELETON_COMMAND: CommandDefinition = {
  name: "skeleton",
  description:
    "make a commit0-style repository-completion task: stub every function body under --src, keep the skeleton under refs/gitgood/skeletons/, count the tests passing at the reference",
  arguments: [{ name: "<repo>", help: "path to a Python repository (work tree or bare; only a gitgood ref and objects are added)" }],
  options: [
    { flags: "--src <dir>", help: "the source directory whose function bodies are stubbed (relative to the repository root)", required: true },
    {
      flags: "--style <style>",
      help: "gitgood (every body becomes pass, the rest byte for byte) or commit0 (commit0's published rules: dunder bodies kept, functions without a docstring deleted, files re-emitted by Python's ast.unparse)",
      default: "gitgood",
    },
    { flags: "--ref <rev>", help: "the reference implementation (default HEAD)" },
    { flags: "-o, --output <file>", help: "write the task (one JSONL sample) to a file instead of stdout" },
    { flags: "--name <owner/repo>", help: "repository name for the task (default: from the origin URL)" },
    { flags: "--id <id>", help: "the task's id and the skeleton ref's name (default <owner_repo>_repo_completion_<reference hash>)" },
    { flags: "--test-dir <dir>", help: "the tests' directory (default tests/ or test/ when there is one, else the whole repository)" },
    { flags: "--env-spec <file>", help: "environment specs (YAML) per repository, over the built-in defaults" },
    { flags: "--test-timeout <seconds>", help: "time limit of the reference's test run", parse: positiveIntOption("--test-timeout"), default: DEFAULT_TEST_TIMEOUT },
    { flags: "--setup-timeout <seconds>", help: "time limit for building the environment", parse: positiveIntOption("--setup-timeout"), default: DEFAULT_SETUP_TIMEOUT },
    { flags: "--json", help: "print the summary as JSON (on stderr)", default: false },
  ],
  run: (args, flags, io) => skeleton(String(args[0]), flags as unknown as SkeletonFlags, io),
};
