/**
 * The shell scripts of a Harbor task directory. Each finds its data beside itself, and the repository
 * and the log directory through two variables with Harbor's places as defaults, so a test can run the
 * very scripts Harbor runs against a directory of its own: GITGOOD_TASK_REPO (default /app, the
 * Dockerfile's WORKDIR) and GITGOOD_TASK_LOGS (default /logs, where Harbor mounts the trial's logs).
 */

/** Where the Dockerfile builds the repository and starts the agent. */
export const TASK_REPO = "/app";

/**
 * environment/start/start.sh: builds the repository at "$1" from the files beside it: an empty
 * repository of the right object format takes the bundle's objects (no ref), then gitgood's own git
 * state of the sandbox (HEAD, refs, index, shallow, a merge or rebase in progress), then the files of
 * the work tree: the index's content, overlaid with the files that differ from it, less the deleted ones.
 */
export const START_SH = `#!/bin/sh
# Builds the task's repository at "$1" as gitgood's answer-free sandbox held it at the task's start.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$1
mkdir -p "$repo"
git init -q --template= --object-format="$(cat "$here/object-format")" "$repo"
if [ -f "$here/git/shallow" ]; then cp "$here/git/shallow" "$repo/.git/shallow"; fi
git -C "$repo" bundle unbundle "$here/repo.bundle" >/dev/null
cp -R "$here/git/." "$repo/.git/"
cd "$repo"
git checkout-index --all --force 2>/dev/null || true
cp -a "$here/work/." "$repo/"
xargs -0 -r rm -f -- < "$here/deleted"
`;

/** The lines every test.sh starts with: where things are, git without the user's or the repository's hooks, and `reward`. */
const TEST_PRELUDE = `#!/bin/bash
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=\${GITGOOD_TASK_REPO:-${TASK_REPO}}
logs=\${GITGOOD_TASK_LOGS:-/logs}
mkdir -p "$logs/verifier"
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 GIT_TERMINAL_PROMPT=0 LC_ALL=C
g() { git -c core.hooksPath=/dev/null -c core.fsmonitor=false "$@"; }
# Harbor reads the reward from /logs/verifier/reward.txt: one number.
reward() { printf '%s\\n' "$1" > "$logs/verifier/reward.txt"; echo "reward: $1"; exit 0; }
cd "$repo" || reward 0
`;

const SOLVE_PRELUDE = `#!/bin/bash
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=\${GITGOOD_TASK_REPO:-${TASK_REPO}}
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 GIT_EDITOR=: GIT_MERGE_AUTOEDIT=no LC_ALL=C
cd "$repo"
`;

/** MCR: solved when the tree the work tree would commit is the recorded merge's tree (tests/expected-tree), byte for byte. */
export const MCR_TEST_SH = `${TEST_PRELUDE}
# Byte-exact: the tree of the work tree as it would be committed (conflicts taken as resolved by the
# files' content) against the recorded merge's tree. A merge committed or not, the same tree is asked for.
expected=$(cat "$here/expected-tree")
scratch=$(mktemp)
cp .git/index "$scratch" || reward 0
GIT_INDEX_FILE=$scratch g add -A -- . || reward 0
tree=$(GIT_INDEX_FILE=$scratch g write-tree) || reward 0
rm -f "$scratch"
if [ -f .git/MERGE_HEAD ]; then echo "merge: not committed"; else echo "merge: committed"; fi
echo "tree: $tree (recorded merge: $expected)"
if [ "$tree" = "$expected" ]; then reward 1; else reward 0; fi
`;

/** MCR's recorded outcome: the merge's version of every file that differs from the start, then the merge committed. */
export const MCR_SOLVE_SH = `${SOLVE_PRELUDE}
cp -a "$here/files/." "$repo/"
xargs -0 -r rm -f -- < "$here/deleted"
git add -A -- .
git commit -q --no-edit
`;

/**
 * IR and ICC: gitgood's history checks (the pairwise judge is not run here). Solved when the operation
 * is finished, the new history sits on the chain's base, holds at least one commit, ends in the chain
 * tip's tree, and has no commit without a message or without a change.
 */
export const HISTORY_TEST_SH = `${TEST_PRELUDE}
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
if [ "$finished" = 1 ] && [ "$on_base" = 1 ] && [ "$commits" -ge 1 ] && [ "$tree_matches" = 1 ] && [ "$empty_messages" = 0 ] && [ "$empty_commits" = 0 ]; then reward 1; else reward 0; fi
`;

/** IR's recorded outcome: the paused rebase carried on with git's own plan, which gives the original history back. */
export const IR_SOLVE_SH = `${SOLVE_PRELUDE}
git rebase --continue
`;

/** ICC's recorded outcome: the chain's own commits, each patch applied to the index and committed with its message. */
export const ICC_SOLVE_SH = `${SOLVE_PRELUDE}
git reset -q
for p in "$here"/commits/*.patch; do
  git apply --cached --binary "$p"
  git commit -q --allow-empty-message --cleanup=verbatim -F "\${p%.patch}.msg"
done
`;

/**
 * SWE: the evaluation's test files put back (the base's version of every file the test patch touches),
 * the test patch applied, pytest run on the files the test lists name, and the verdict: solved when
 * every FAIL_TO_PASS and PASS_TO_PASS test passed (PASSED or XFAIL; a test missing from the log failed).
 */
export const SWE_TEST_SH = `${TEST_PRELUDE}
base=$(cat "$here/base")
export PYTHONDONTWRITEBYTECODE=1
while IFS= read -r -d '' f; do
  if g cat-file -e "$base:$f" 2>/dev/null; then g checkout -q "$base" -- "$f"; else rm -rf -- "$f"; fi
done < "$here/test-files"
g apply --binary "$here/test.patch" || { echo "the test patch does not apply"; reward 0; }
xargs -0 python3 -m pytest -rA -p no:cacheprovider < "$here/run-files" > "$logs/verifier/pytest.log" 2>&1
tail -n 40 "$logs/verifier/pytest.log"
reward "$(python3 "$here/verdict.py" "$logs/verifier/pytest.log" "$here/tests.json")"
`;

/** SWE's recorded outcome: the gold patch. */
export const SWE_SOLVE_SH = `${SOLVE_PRELUDE}
git apply --binary "$here/gold.patch"
`;

/** tests/verdict.py: reads pytest's -rA summary lines and prints 1 when every listed test passed, else 0. */
export const SWE_VERDICT_PY = `import json
import re
import sys

status = {}
with open(sys.argv[1], encoding="utf-8", errors="replace") as log:
    for line in log:
        m = re.match(r"^(PASSED|FAILED|ERROR|XFAIL|XPASS|SKIPPED) (\\S+)", line)
        if m:
            status[m.group(2)] = m.group(1)
with open(sys.argv[2], encoding="utf-8") as f:
    lists = json.load(f)
wanted = lists["FAIL_TO_PASS"] + lists["PASS_TO_PASS"]
passed = [t for t in wanted if status.get(t) in ("PASSED", "XFAIL")]
for name in ("FAIL_TO_PASS", "PASS_TO_PASS"):
    tests = lists[name]
    ok = sum(1 for t in tests if status.get(t) in ("PASSED", "XFAIL"))
    print(f"{name}: {ok}/{len(tests)}", file=sys.stderr)
print(1 if len(passed) == len(wanted) else 0)
`;
