import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { isChainSample, isMergeSample, isSweSample, type Sample } from "../dataset/sample.js";
import { GitGoodError } from "../errors.js";
import { workTreeAsTree } from "../git/bundle.js";
import { readCommit } from "../git/commits.js";
import { patchBetween } from "../git/diff.js";
import type { Repo } from "../git/repo.js";
import { differingFiles, readBlob, treeOf, type TreeEntry } from "../git/trees.js";
import { loadChain } from "../scenarios/shared/chain.js";
import type { LiveScenario } from "../scenarios/types.js";
import {
  HISTORY_TEST_SH,
  ICC_SOLVE_SH,
  IR_SOLVE_SH,
  MCR_SOLVE_SH,
  MCR_TEST_SH,
  SWE_SOLVE_SH,
  SWE_TEST_SH,
  SWE_VERDICT_PY,
  TASK_REPO,
} from "./harbor-scripts.js";

/** A file of a task directory: its bytes and mode (0o755 for scripts), or a symbolic link's target. */
export type TaskFile = { data: string | Buffer; mode?: number } | { link: string };

/** What a scenario's Harbor task holds besides the repository: the agent's text, the verifier, the solution. */
export interface HarborParts {
  instruction: string;
  /** tests/: copied into the container after the agent ran; `test.sh` among them. */
  tests: Record<string, TaskFile>;
  /** solution/: what Harbor's oracle agent runs; `solve.sh` among them. */
  solution: Record<string, TaskFile>;
  /** Debian packages the environment needs besides git. */
  packages: string[];
  /** Shell commands the Dockerfile runs in the repository after it is built (installing the project). */
  setup: string[];
  /** task.toml's [metadata] notes of the scenario's own. */
  notes: Record<string, string>;
}

interface AdapterInput {
  sample: Sample;
  scenario: LiveScenario;
  source: Repo;
}

/** How one kind of scenario becomes a Harbor task. */
interface HarborAdapter {
  accepts(scenario: LiveScenario): boolean;
  build(input: AdapterInput): Promise<HarborParts>;
}

const script = (data: string): TaskFile => ({ data, mode: 0o755 });
const text = (data: string | Buffer): TaskFile => ({ data });
const nulList = (paths: readonly string[]): TaskFile => ({ data: paths.map((p) => `${p}\0`).join("") });

function lines(items: readonly string[]): string {
  return items.map((i) => `- \`${i}\``).join("\n");
}

/** The recorded merge's version of a file, as a task file (links and executable files keep their kind). */
async function blobFile(source: Repo, rev: string, file: string, entry: TreeEntry): Promise<TaskFile> {
  const data = (await readBlob(source, rev, file)) ?? Buffer.alloc(0);
  if (entry.mode === "120000") return { link: data.toString("utf8") };
  return { data, mode: entry.mode === "100755" ? 0o755 : 0o644 };
}

const MCR: HarborAdapter = {
  accepts: (s) => s.definition.name === "MCR" && isMergeSample(s.sample),
  async build({ sample, scenario, source }) {
    if (!isMergeSample(sample)) throw new GitGoodError("INTERNAL", "not a merge sample");
    const merge = sample.scenario.merge_commit_hash;
    const expected = await treeOf(source, merge);
    const scratch = mkdtempSync(path.join(os.tmpdir(), "gitgood-harbor-index-"));
    let start: string;
    try {
      start = await workTreeAsTree(scenario.sandbox.repo, path.join(scratch, "index"));
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
    const diff = await differingFiles({ repo: scenario.sandbox.repo, tree: start }, { repo: source, tree: expected });
    if (!diff) throw new GitGoodError("INTERNAL", "the trees cannot be compared without object readers");
    const files: Record<string, TaskFile> = {};
    for (const [file, entry] of diff.b) files[`files/${file}`] = await blobFile(source, merge, file, entry);
    const deleted = [...diff.a.keys()].filter((f) => !diff.b.has(f)).sort();
    const conflicted = sample.scenario.files_in_merge_conflict;
    return {
      instruction: [
        `# Resolve a merge conflict the way the project's developers did`,
        "",
        `The repository in \`${TASK_REPO}\` (a git repository, branch checked out) is in the middle of a merge: two lines of`,
        `development were merged and git could not combine some of their changes. ${sample.scenario.total_number_of_merge_conflicts} conflict(s) are left`,
        `in ${conflicted.length} file(s), each a region between a \`<<<<<<<\` and a \`>>>>>>>\` line:`,
        "",
        lines(conflicted),
        "",
        "Resolve every conflict as the project's developers did when they made this merge: often a combination of both",
        "sides, sometimes one side. Change nothing else (no other files, no formatting), keep the files' bytes exactly as",
        "the project would (line endings, trailing newline), and conclude the merge with `git commit`.",
        "",
        "The result is checked byte for byte against the merge the developers recorded.",
        "",
      ].join("\n"),
      tests: { "test.sh": script(MCR_TEST_SH), "expected-tree": text(`${expected}\n`) },
      solution: { "solve.sh": script(MCR_SOLVE_SH), ...files, deleted: nulList(deleted) },
      packages: [],
      setup: [],
      notes: { scoring: "byte-exact match of the work tree's tree with the recorded merge commit's tree" },
    };
  },
};

const JUDGE_NOTE = "the deterministic history checks only; the pairwise LLM judge gitgood runs on this scenario was not run";

async function historyTests(sample: Sample, source: Repo): Promise<{ base: string; tests: Record<string, TaskFile>; commits: string[] }> {
  if (!isChainSample(sample)) throw new GitGoodError("INTERNAL", "not a chain sample");
  const chain = await loadChain(source, sample);
  const tests = {
    "test.sh": script(HISTORY_TEST_SH),
    base: text(`${chain.base}\n`),
    "tip-tree": text(`${chain.tipTree}\n`),
    "original-commits": text(`${chain.commits.length}\n`),
  };
  return { base: chain.base, tests, commits: chain.commits.map((c) => c.oid) };
}

const IR: HarborAdapter = {
  accepts: (s) => s.definition.name === "IR" && isChainSample(s.sample),
  async build({ sample, source }) {
    const { base, tests, commits } = await historyTests(sample, source);
    return {
      instruction: [
        "# Clean up a chain of commits with an interactive rebase",
        "",
        `The repository in \`${TASK_REPO}\` has an interactive rebase of its last ${commits.length} commits (onto \`${base}\`) started and`,
        "paused before its first step: `git rebase --edit-todo` (or `.git/rebase-merge/git-rebase-todo`) holds the plan,",
        "one `pick` per commit, oldest first.",
        "",
        "Look at each commit's change and message, then rewrite the plan as a careful developer would before sharing the",
        "commits: keep, reorder, combine (squash, fixup) or reword them so that the history tells a clear story, each",
        "commit one coherent change with a message that says what it does and why. Do not change what the files end up",
        "holding. Then finish the rebase with `git rebase --continue`; resolve any conflict it stops on.",
        "",
      ].join("\n"),
      tests,
      solution: { "solve.sh": script(IR_SOLVE_SH) },
      packages: [],
      setup: [],
      notes: { scoring: JUDGE_NOTE, judge: "not run" },
    };
  },
};

const ICC: HarborAdapter = {
  accepts: (s) => s.definition.name === "ICC" && isChainSample(s.sample),
  async build({ sample, source }) {
    const { base, tests, commits } = await historyTests(sample, source);
    const solution: Record<string, TaskFile> = { "solve.sh": script(ICC_SOLVE_SH) };
    for (const [i, oid] of commits.entries()) {
      const n = String(i + 1).padStart(3, "0");
      const commit = await readCommit(source, oid);
      solution[`commits/${n}.patch`] = text(Buffer.from(await patchBetween(source, `${oid}^`, oid), "latin1"));
      solution[`commits/${n}.msg`] = text(`${commit.message}\n`);
    }
    return {
      instruction: [
        "# Commit a change as a series of good commits",
        "",
        `The repository in \`${TASK_REPO}\` has HEAD at \`${base}\` and a change in its work tree that is not committed yet`,
        "(`git status`, `git diff`). Commit all of it as a careful developer would: a short series of commits, each one",
        "coherent change (small, but never leaving the project broken in between) with a message that says what it",
        "does and why, in an order that tells the story of the change. `git add -p` stages single hunks. Leave nothing",
        "uncommitted and do not change what the files hold.",
        "",
      ].join("\n"),
      tests,
      solution,
      packages: [],
      setup: [],
      notes: { scoring: JUDGE_NOTE, judge: "not run" },
    };
  },
};

/** The files a patch touches (its `diff --git a/X b/Y` lines, both sides), in order of appearance. */
function patchFiles(patch: string): string[] {
  const out = new Set<string>();
  for (const m of patch.matchAll(/^diff --git a\/(\S+) b\/(\S+)$/gm)) {
    if (m[1]) out.add(m[1]);
    if (m[2]) out.add(m[2]);
  }
  return [...out];
}

const PATCH_TASK: HarborAdapter = {
  accepts: (s) => s.definition.patchTask === true && isSweSample(s.sample),
  async build({ sample }) {
    if (!isSweSample(sample)) throw new GitGoodError("INTERNAL", "not a patch-task sample");
    const task = sample.scenario;
    if (sample.programming_language !== null && sample.programming_language.toLowerCase() !== "python") {
      throw new GitGoodError("BAD_SAMPLE", `a Harbor task runs its tests with pytest; ${sample.id} is ${sample.programming_language}`);
    }
    const testFiles = patchFiles(task.test_patch);
    const named = [...task.FAIL_TO_PASS, ...task.PASS_TO_PASS].map((t) => t.split("::")[0] ?? t);
    const run = [...new Set([...named, ...testFiles.filter((f) => /(^|\/)test_[^/]*\.py$|_test\.py$/.test(f))])].filter((f) => f !== "").sort();
    return {
      instruction: [
        "# Resolve an issue",
        "",
        `The repository in \`${TASK_REPO}\` is ${task.repo} at \`${task.base_commit}\`. Change its code so that the issue below is`,
        "resolved. The tests that decide it are added after you finish; changes to test files are replaced by the",
        "evaluation's.",
        "",
        "## Issue",
        "",
        task.problem_statement.trimEnd(),
        "",
      ].join("\n"),
      tests: {
        "test.sh": script(SWE_TEST_SH),
        "verdict.py": text(SWE_VERDICT_PY),
        base: text(`${task.base_commit}\n`),
        "test.patch": text(task.test_patch),
        "test-files": nulList([...new Set([...testFiles, ...named])].filter((f) => f !== "").sort()),
        "run-files": nulList(run),
        "tests.json": text(`${JSON.stringify({ FAIL_TO_PASS: task.FAIL_TO_PASS, PASS_TO_PASS: task.PASS_TO_PASS }, null, 1)}\n`),
      },
      solution: { "solve.sh": script(SWE_SOLVE_SH), "gold.patch": text(task.patch) },
      packages: ["python3", "python3-pip", "python3-pytest"],
      setup: ["if [ -f pyproject.toml ] || [ -f setup.py ]; then pip install --break-system-packages --no-deps -e . ; fi"],
      notes: { scoring: "every FAIL_TO_PASS and PASS_TO_PASS test passes (pytest, after the test patch)" },
    };
  },
};

const ADAPTERS: readonly HarborAdapter[] = [MCR, IR, ICC, PATCH_TASK];

/** The Harbor parts of a scenario set up from its sample; BAD_SAMPLE when no Harbor task is made for its kind. */
export async function harborParts(input: AdapterInput): Promise<HarborParts> {
  const adapter = ADAPTERS.find((a) => a.accepts(input.scenario));
  if (!adapter) throw new GitGoodError("BAD_SAMPLE", `no Harbor task is made for the ${input.scenario.definition.name} scenario`);
  return adapter.build(input);
}
