import { existsSync } from "node:fs";
import { Command } from "commander";
import { DEFAULT_SETUP_TIMEOUT, DEFAULT_TEST_TIMEOUT } from "../../commit0/options.js";
import { makeSkeleton, SKELETON_STYLES, type SkeletonResult, type SkeletonStyle } from "../../commit0/skeleton.js";
import { sampleToJson } from "../../dataset/sample.js";
import { GitGoodError } from "../../errors.js";
import { escapeControls } from "../../util/escape.js";
import { writeOutputFile } from "../../util/output.js";
import { positiveIntOption } from "../../util/options.js";
import type { CommandIO } from "../command-line-types.js";

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

export function skeletonCommand(io: CommandIO): Command {
  return new Command("skeleton")
    .description("make a commit0-style repository-completion task: stub every function body under --src, keep the skeleton under refs/gitgood/skeletons/, count the tests passing at the reference")
    .argument("<repo>", "path to a Python repository (work tree or bare; only a gitgood ref and objects are added)")
    .requiredOption("--src <dir>", "the source directory whose function bodies are stubbed (relative to the repository root)")
    .option("--style <style>", "gitgood (every body becomes pass, the rest byte for byte) or commit0 (commit0's published rules: dunder bodies kept, functions without a docstring deleted, files re-emitted by Python's ast.unparse)", "gitgood")
    .option("--ref <rev>", "the reference implementation (default HEAD)")
    .option("-o, --output <file>", "write the task (one JSONL sample) to a file instead of stdout")
    .option("--name <owner/repo>", "repository name for the task (default: from the origin URL)")
    .option("--id <id>", "the task's id and the skeleton ref's name (default <owner_repo>_repo_completion_<reference hash>)")
    .option("--test-dir <dir>", "the tests' directory (default tests/ or test/ when there is one, else the whole repository)")
    .option("--env-spec <file>", "environment specs (YAML) per repository, over the built-in defaults")
    .option("--test-timeout <seconds>", "time limit of the reference's test run", positiveIntOption("--test-timeout"), DEFAULT_TEST_TIMEOUT)
    .option("--setup-timeout <seconds>", "time limit for building the environment", positiveIntOption("--setup-timeout"), DEFAULT_SETUP_TIMEOUT)
    .option("--json", "print the summary as JSON (on stderr)", false)
    .action(async (repoPath: string, flags: SkeletonFlags) => {
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
    });
}
