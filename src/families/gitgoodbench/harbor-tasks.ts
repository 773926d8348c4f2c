import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { isChainSample, isMergeSample, type Sample } from "../../dataset/sample.js";
import { GitGoodError } from "../../errors.js";
import { workTreeAsTree } from "../../git/bundle.js";
import { readCommit } from "../../git/commits.js";
import { patchBetween } from "../../git/diff.js";
import type { Repo } from "../../git/repo.js";
import { differingFiles, readBlob, treeOf, type TreeEntry } from "../../git/trees.js";
import { loadChain } from "../../scenarios/shared/chain.js";
import { SOLVE_PRELUDE, TASK_REPO, TEST_PRELUDE, nulList, script, text, type HarborTask, type TaskFile } from "../harbor-kit.js";

/**
 * MCR: solved when the tree the work tree would commit is the recorded merge's tree (tests/expected-tree),
 * byte for byte; reward.json adds `tree_match` and `merge_committed`.
 */
const MCR_TEST_SH = `${TEST_PRELUDE}
# Byte-exact: the tree of the work tree as it would be committed (conflicts taken as resolved by the
# files' content) against the recorded merge's tree. A merge committed or not, the same tree is asked for.
expected=$(cat "$here/expected-tree")
scratch=$(mktemp)
cp .git/index "$scratch" || reward 0
GIT_INDEX_FILE=$scratch g add -A -- . || reward 0
tree=$(GIT_INDEX_FILE=$scratch g write-tree) || reward 0
rm -f "$scratch"
if [ -f .git/MERGE_HEAD ]; then committed=0; echo "merge: not committed"; else committed=1; echo "merge: committed"; fi
echo "tree: $tree (recorded merge: $expected)"
if [ "$tree" = "$expected" ]; then match=1; else match=0; fi
reward "$match" tree_match="$match" merge_committed="$committed"
`;

/** MCR's recorded outcome: the merge's version of every file that differs from the start, then the merge committed. */
const MCR_SOLVE_SH = `${SOLVE_PRELUDE}
cp -a "$here/files/." "$repo/"
xargs -0 -r rm -f -- < "$here/deleted"
git add -A -- .
git commit -q --no-edit
`;

/**
 * IR and ICC: gitgood's history checks (the pairwise judge is not run here). Solved when the operation
 * is finished, the new history sits on the chain's base, holds at least one commit, ends in the chain
 * tip's tree, and has no commit without a message or without a change; reward.json adds `tree_match`,
 * `history_checks` (the share of those six checks that pass) and each check's count.
 */
const HISTORY_TEST_SH = `${TEST_PRELUDE}
base=$(cat "$here/base")
tip_tree=$(cat "$here/tip-tree")
finished=1
for f in rebase-merge rebase-apply MERGE_HEAD CHERRY_PICK_HEAD REVERT_HEAD sequencer; do
  if [ -e ".git/$f" ]; then finished=0; fi
done
g merge-base --is-ancestor "$base" HEAD 2>/dev/null && on_base=1 || on_base=0
commits=0; empty_messages=0; empty_commits=0; duplicate_messages=0; tree_matches=0
if [ "$on_base" = 1 ]; then
  commits=$(g rev-list --count "$base..HEAD")
  [ "$(g rev-parse 'HEAD^{tree}')" = "$tip_tree" ] && tree_matches=1
  seen=$(mktemp)
  for c in $(g rev-list --reverse "$base..HEAD"); do
    msg=$(g log -1 --format=%B "$c" | sed -e 's/[[:space:]]*$//' | sed -e '/./,$!d')
    if [ -z "$msg" ]; then empty_messages=$((empty_messages + 1)); fi
    if [ -n "$msg" ] && grep -qxF -- "$(printf '%s' "$msg" | sha1sum)" "$seen"; then duplicate_messages=$((duplicate_messages + 1)); fi
    printf '%s' "$msg" | sha1sum >> "$seen"
    if g diff-tree --quiet "$c^" "$c"; then empty_commits=$((empty_commits + 1)); fi
  done
  rm -f "$seen"
fi
cat > "$logs/verifier/checks.json" <<JSON
{"finished": $finished, "on_base": $on_base, "commits": $commits, "original_commits": $(cat "$here/original-commits"), "tree_matches_tip": $tree_matches, "empty_messages": $empty_messages, "duplicate_messages": $duplicate_messages, "empty_commits": $empty_commits, "judge": "not run"}
JSON
cat "$logs/verifier/checks.json"
echo "The pairwise LLM judge gitgood runs on this scenario was not run: the reward holds the deterministic history checks only."
passed=0
for ok in "$finished" "$on_base" "$([ "$commits" -ge 1 ] && echo 1)" "$tree_matches" "$([ "$empty_messages" = 0 ] && echo 1)" "$([ "$empty_commits" = 0 ] && echo 1)"; do
  if [ "$ok" = 1 ]; then passed=$((passed + 1)); fi
done
if [ "$passed" = 6 ]; then solved=1; else solved=0; fi
reward "$solved" tree_match="$tree_matches" history_checks="$(awk -v n="$passed" 'BEGIN { printf "%.6g", n / 6 }')" finished="$finished" \
  on_base="$on_base" commits="$commits" empty_messages="$empty_messages" empty_commits="$empty_commits" duplicate_messages="$duplicate_messages"
`;

/** IR's recorded outcome: the paused rebase carried on with git's own plan, which gives the original history back. */
const IR_SOLVE_SH = `${SOLVE_PRELUDE}
git rebase --continue
`;

/** ICC's recorded outcome: the chain's own commits, each patch applied to the index and committed with its message. */
const ICC_SOLVE_SH = `${SOLVE_PRELUDE}
git reset -q
for p in "$here"/commits/*.patch; do
  git apply --cached --binary "$p"
  git commit -q --allow-empty-message --cleanup=verbatim -F "\${p%.patch}.msg"
done
`;

function lines(items: readonly string[]): string {
  return items.map((i) => `- \`${i}\``).join("\n");
}

/** The recorded merge's version of a file, as a task file (links and executable files keep their kind). */
async function blobFile(source: Repo, rev: string, file: string, entry: TreeEntry): Promise<TaskFile> {
  const data = (await readBlob(source, rev, file)) ?? Buffer.alloc(0);
  if (entry.mode === "120000") return { link: data.toString("utf8") };
  return { data, mode: entry.mode === "100755" ? 0o755 : 0o644 };
}

const MCR: HarborTask = {
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
      env: {},
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

const IR: HarborTask = {
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
      env: {},
      notes: { scoring: JUDGE_NOTE, judge: "not run" },
    };
  },
};

const ICC: HarborTask = {
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
      env: {},
      notes: { scoring: JUDGE_NOTE, judge: "not run" },
    };
  },
};

/** GitGoodBench's Harbor tasks: MCR by the recorded merge's tree, IR and ICC by the history checks. */
export const GITGOODBENCH_HARBOR_TASKS: readonly HarborTask[] = [MCR, IR, ICC];
