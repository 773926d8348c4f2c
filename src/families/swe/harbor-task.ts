import { isSweSample } from "../../dataset/sample.js";
import { GitGoodError } from "../../errors.js";
import { environmentFor, sweEnvSpec } from "../../swe/evaluate.js";
import { diffPaths } from "../../util/unified-diff.js";
import { SweScenario } from "../../scenarios/swe/scenario.js";
import { RESTORE_EVALUATION_FILES, SOLVE_PRELUDE, SUMMARY_LINES_PY, TASK_REPO, TEST_PRELUDE, evaluationFiles, nulList, pythonEnvironment, script, text, type HarborTask } from "../harbor-kit.js";

/**
 * SWE, as gitgood's evaluation: the evaluation's files (test files, pytest's configuration and hooks,
 * start-up hooks, byte code: owned.py) put back as the base has them, the test patch applied, the environment's
 * test command (its spec's `test`, after its `before_tests`) run on the test files, and the verdict: solved when every FAIL_TO_PASS and PASS_TO_PASS test passed (PASSED or
 * XFAIL; a test missing from the log failed); reward.json adds the share of each list that passed and of both.
 */
const SWE_TEST_SH = `${TEST_PRELUDE}${RESTORE_EVALUATION_FILES}
base=$(cat "$here/base")
export PYTHONDONTWRITEBYTECODE=1
restore_evaluation_files "$base" || { echo "the evaluation's files could not be put back"; reward 0; }
if [ -s "$here/test.patch" ]; then
  g apply --binary "$here/test.patch" || { echo "the test patch does not apply"; reward 0; }
fi
# The environment's own commands (its spec: --env-spec, the configuration's envs:, else the defaults), with the
# test files appended; gitgood's results file is the verifier's.
export GITGOOD_JUNIT="$logs/verifier/junit.xml" GITGOOD_RESULTS="$logs/verifier"
: > "$logs/verifier/pytest.log"
while IFS= read -r -d '' command; do sh -c "$command" >> "$logs/verifier/pytest.log" 2>&1; done < "$here/before-tests"
xargs -0 sh -c "$(cat "$here/test-command") \\"\\$@\\"" sh < "$here/run-files" >> "$logs/verifier/pytest.log" 2>&1
tail -n 40 "$logs/verifier/pytest.log"
# shellcheck disable=SC2046 # verdict.py prints the value, then NAME=NUMBER words
reward $(python3 "$here/verdict.py" "$logs/verifier/pytest.log" "$here/tests.json")
`;

/** SWE's recorded outcome: the gold patch. */
const SWE_SOLVE_SH = `${SOLVE_PRELUDE}
git apply --binary "$here/gold.patch"
`;

/**
 * tests/verdict.py: reads pytest's -rA summary lines and prints 1 when every listed test passed, else 0, then
 * the shares that passed: `fail_to_pass=`, `pass_to_pass=` (1 for an empty list) and `pass_fraction=` (both
 * lists), all 0 for a void log.
 */
const SWE_VERDICT_PY = `import json
import re
import sys


${SUMMARY_LINES_PY}
lines = summary_lines(sys.argv[1])
status = {}
for line in lines or []:
    m = re.match(r"^(PASSED|FAILED|ERROR|XFAIL|XPASS|SKIPPED) (\\S+)", line)
    if m:
        status[m.group(2)] = m.group(1)
with open(sys.argv[2], encoding="utf-8") as f:
    lists = json.load(f)
void = lines is None
wanted = lists["FAIL_TO_PASS"] + lists["PASS_TO_PASS"]
passed = [t for t in wanted if status.get(t) in ("PASSED", "XFAIL")]
shares = []
for name in ("FAIL_TO_PASS", "PASS_TO_PASS"):
    tests = lists[name]
    ok = sum(1 for t in tests if status.get(t) in ("PASSED", "XFAIL"))
    print(f"{name}: {ok}/{len(tests)}", file=sys.stderr)
    shares.append(f"{name.lower()}={0 if void else ok / len(tests) if tests else 1:.6g}")
fraction = 0 if void or not wanted else len(passed) / len(wanted)
print(" ".join([str(1 if not void and len(passed) == len(wanted) else 0), *shares, f"pass_fraction={fraction:.6g}"]))
`;

/** The files a patch touches (its `diff --git a/X b/Y` lines, both sides), in order of appearance. */
function patchFiles(patch: string): string[] {
  const out = new Set<string>();
  for (const m of patch.matchAll(/^diff --git a\/(\S+) b\/(\S+)$/gm)) {
    if (m[1]) out.add(m[1]);
    if (m[2]) out.add(m[2]);
  }
  return [...out];
}

/** SWE's Harbor task: the test patch applied after the agent, pytest, every FAIL_TO_PASS and PASS_TO_PASS test passing. */
export const SWE_HARBOR_TASK: HarborTask = {
  accepts: (s) => s.definition.patchTask === true && isSweSample(s.sample),
  async build({ sample, scenario }) {
    if (!isSweSample(sample) || !(scenario instanceof SweScenario)) throw new GitGoodError("INTERNAL", "not a patch-task sample");
    const task = sample.scenario;
    if (sample.programming_language !== null && sample.programming_language.toLowerCase() !== "python") {
      throw new GitGoodError("BAD_SAMPLE", `a Harbor task runs its tests with pytest; ${sample.id} is ${sample.programming_language}`);
    }
    const spec = sweEnvSpec(scenario.sandbox, sample, scenario.options);
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
        ...(await evaluationFiles(scenario.sandbox.repo, task.base_commit, diffPaths(task.test_patch))),
        "run-files": nulList(run),
        "test-command": text(`${spec.test}\n`),
        "before-tests": nulList(spec.beforeTests),
        "tests.json": text(`${JSON.stringify({ FAIL_TO_PASS: task.FAIL_TO_PASS, PASS_TO_PASS: task.PASS_TO_PASS }, null, 1)}\n`),
      },
      solution: { "solve.sh": script(SWE_SOLVE_SH), "gold.patch": text(task.patch) },
      ...pythonEnvironment(spec),
      notes: { scoring: "every FAIL_TO_PASS and PASS_TO_PASS test passes (the environment's pytest command, after the test patch)" },
      checkEnvironment: () => environmentFor(scenario.sandbox, sample, scenario.options),
    };
  },
};
