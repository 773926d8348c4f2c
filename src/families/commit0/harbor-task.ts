import { isRepoCompletionSample } from "../../dataset/sample.js";
import { GitGoodError } from "../../errors.js";
import { requireCommits } from "../../git/commits.js";
import { patchBetween } from "../../git/diff.js";
import { Commit0Scenario } from "../../scenarios/commit0/scenario.js";
import { completionEnvSpec, completionEnvironment } from "../../commit0/tests.js";
import { pluginModulesAt, splitPatch, testInfrastructure } from "../../testenv/index.js";
import { RESTORE_EVALUATION_FILES, SOLVE_PRELUDE, SUMMARY_LINES_PY, TASK_REPO, TEST_PRELUDE, evaluationFiles, nulList, pythonEnvironment, script, text, type HarborTask } from "../harbor-kit.js";

/**
 * COMMIT0, as gitgood's evaluation (src/commit0/evaluate.ts): the evaluation's files (tests, pytest's
 * configuration and hooks, start-up hooks, byte code: owned.py) put back as the skeleton has them, then as
 * the reference has them (tests/reference-tests.patch: the skeleton → reference diff of those files only),
 * the whole suite run with commit0's `--continue-on-collection-errors`, and the reward: the share of the
 * counted tests that pass (passed or xfail; a counted test the log does not report failed).
 */
const COMMIT0_TEST_SH = `${TEST_PRELUDE}${RESTORE_EVALUATION_FILES}
base=$(cat "$here/base")
export PYTHONDONTWRITEBYTECODE=1
if [ -d src ] && [ ! -f src/__init__.py ]; then export PYTHONPATH="$repo:$repo/src"; else export PYTHONPATH="$repo"; fi
restore_evaluation_files "$base" || { echo "the evaluation's files could not be put back"; reward 0; }
if [ -s "$here/reference-tests.patch" ]; then
  g apply --binary "$here/reference-tests.patch" || { echo "the reference's tests do not apply"; reward 0; }
fi
xargs -0 python3 -m pytest -rA -p no:cacheprovider --continue-on-collection-errors < "$here/run-dirs" > "$logs/verifier/pytest.log" 2>&1
tail -n 40 "$logs/verifier/pytest.log"
# shellcheck disable=SC2046 # pass-rate.py prints the value, then NAME=NUMBER words
reward $(python3 "$here/pass-rate.py" "$logs/verifier/pytest.log" "$here/counted.json" "$logs/verifier/commit0.json")
`;

/** COMMIT0's recorded outcome: the reference implementation, as a patch on the skeleton. */
const COMMIT0_SOLVE_SH = `${SOLVE_PRELUDE}
git apply --binary "$here/reference.patch"
`;

/**
 * tests/pass-rate.py: reads pytest's -rA summary lines, prints the share of the counted tests that passed
 * (PASSED or XFAIL), then `solved=` (1 when all did), `pass_fraction=`, `passed=` and `total=`, and writes the tally (passed, total, the failed tests) as JSON to its third argument.
 * A summary line's id is the test's id, or the id and ` - ` and a reason.
 */
const PASS_RATE_PY = `import json
import re
import sys


${SUMMARY_LINES_PY}
passing = set()
for line in summary_lines(sys.argv[1]) or []:
    m = re.match(r"^(PASSED|XFAIL) (.+?)\\s*$", line)
    if not m:
        continue
    rest = m.group(2)
    passing.add(rest)
    at = rest.find(" - ")
    while at >= 0:
        passing.add(rest[:at])
        at = rest.find(" - ", at + 1)
with open(sys.argv[2], encoding="utf-8") as f:
    counted = json.load(f)
failed = [t for t in counted if t not in passing]
passed = len(counted) - len(failed)
rate = passed / len(counted) if counted else 0
with open(sys.argv[3], "w", encoding="utf-8") as f:
    json.dump({"passed": passed, "total": len(counted), "pass_rate": rate, "all_pass": bool(counted) and not failed, "failed": failed[:100]}, f, indent=1)
print(f"counted tests passing: {passed}/{len(counted)}", file=sys.stderr)
print(f"{rate:.6g} solved={1 if counted and not failed else 0} pass_fraction={rate:.6g} passed={passed} total={len(counted)}")
`;

/** COMMIT0's Harbor task: the skeleton to complete, the library's suite as the verifier, the reference as the solution. */
export const COMMIT0_HARBOR_TASK: HarborTask = {
  accepts: (s) => s.definition.name === "COMMIT0" && isRepoCompletionSample(s.sample),
  async build({ sample, scenario, source }) {
    if (!isRepoCompletionSample(sample) || !(scenario instanceof Commit0Scenario)) throw new GitGoodError("INTERNAL", "not a repository-completion task");
    const sc = sample.scenario;
    const testDir = sc.test.test_dir.replace(/\/+$/, "");
    const datasetFiles = testDir === "" ? [] : [`${testDir}/`];
    await requireCommits(source, [sc.reference_commit]);
    const reference = await patchBetween(source, sc.base_commit, sc.reference_commit);
    // The reference's version of the evaluation's files: the part of the reference gitgood's evaluation puts in before the tests run.
    const infra = testInfrastructure(datasetFiles, await pluginModulesAt(scenario.sandbox.repo, sc.base_commit));
    const referenceTests = splitPatch(reference, (f) => infra.owns(f)).kept;
    const files = await scenario.stubbedFiles();
    const stubs = files.reduce((n, f) => n + f.stubs.length, 0);
    return {
      instruction: [
        "# Rebuild a library whose function bodies were removed",
        "",
        `The repository in \`${TASK_REPO}\` is ${sc.repo} with every function body under ${sc.src_dir === "" ? "its source" : `\`${sc.src_dir}\``} replaced by \`pass\``,
        `(signatures and docstrings kept): ${stubs} function(s) in ${files.length} file(s). Implement them so that the library works as`,
        "its docstrings, its other code and its tests say; never rename a function or change its signature.",
        "",
        `The library's own tests (${testDir === "" ? "the whole suite" : `\`${testDir}\``}) judge your work: the share of ${scenario.countedTests.length} counted test(s) that pass.`,
        "Changes to the tests or to the test configuration are replaced by the evaluation's.",
        "",
        "Files with stubs, dependencies first:",
        "",
        ...files.map((f) => `- \`${f.file}\` (${f.stubs.length})`),
        "",
      ].join("\n"),
      tests: {
        "test.sh": script(COMMIT0_TEST_SH),
        "pass-rate.py": text(PASS_RATE_PY),
        base: text(`${sc.base_commit}\n`),
        "reference-tests.patch": text(Buffer.from(referenceTests, "latin1")),
        "run-dirs": nulList(testDir === "" ? [] : [testDir]),
        "counted.json": text(`${JSON.stringify(scenario.countedTests, null, 1)}\n`),
        ...(await evaluationFiles(scenario.sandbox.repo, sc.base_commit, datasetFiles)),
      },
      solution: { "solve.sh": script(COMMIT0_SOLVE_SH), "reference.patch": text(Buffer.from(reference, "latin1")) },
      ...pythonEnvironment(completionEnvSpec(scenario.sandbox, sc, scenario.options)),
      checkEnvironment: () => completionEnvironment(scenario.sandbox, sc, scenario.options),
      notes: {
        scoring: "the share of the counted tests that pass (pytest, the evaluation's tests and configuration put back); gitgood calls a task solved only when all pass",
        reward: "pass fraction",
      },
    };
  },
};
