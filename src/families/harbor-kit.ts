import type { Sample } from "../dataset/sample.js";
import type { Repo } from "../git/repo.js";
import type { LiveScenario } from "../scenarios/types.js";
import { infrastructureRules, pluginModulesAt } from "../testenv/index.js";
import type { EnvSpec, Environment } from "../testenv/types.js";

/*
 * What a family's Harbor tasks are made of (`gitgood export harbor`): the parts of a task directory and the
 * preludes its scripts share. Each script finds its data beside itself, and the repository and the log
 * directory through two variables with Harbor's places as defaults, so a test can run the very scripts
 * Harbor runs against a directory of its own: GITGOOD_TASK_REPO (default /app, the Dockerfile's WORKDIR)
 * and GITGOOD_TASK_LOGS (default /logs, where Harbor mounts the trial's logs).
 */

/** Where the Dockerfile builds the repository and starts the agent. */
export const TASK_REPO = "/app";

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
  /** Variables the Dockerfile sets (`ENV`) before `setup`, for the set-up, the agent and the verifier alike. */
  env: Record<string, string>;
  /** task.toml's [metadata] notes of the scenario's own. */
  notes: Record<string, string>;
  /**
   * The environment gitgood's own evaluation runs the task's tests in (built, or taken from the cache, on
   * the first call), which the export's check (src/export/harbor-check.ts) gives the task's scripts in place
   * of the Dockerfile's set-up, which needs a container runtime; absent when git is all the scripts need.
   */
  checkEnvironment?: () => Promise<Environment>;
}

/** What a Harbor task is built from: the sample, its scenario set up live, and the source repository. */
export interface HarborTaskInput {
  sample: Sample;
  scenario: LiveScenario;
  source: Repo;
}

/** How one kind of scenario becomes a Harbor task (a family contributes its own: `harborTasks`). */
export interface HarborTask {
  /** True when this task kind builds tasks for `scenario`. */
  accepts(scenario: LiveScenario): boolean;
  /** The files of the Harbor task for one live scenario. */
  build(input: HarborTaskInput): Promise<HarborParts>;
}

export const script = (data: string): TaskFile => ({ data, mode: 0o755 });
export const text = (data: string | Buffer): TaskFile => ({ data });
export const nulList = (paths: readonly string[]): TaskFile => ({ data: paths.map((p) => `${p}\0`).join("") });

/**
 * The lines every test.sh starts with: where things are, git without the user's or the repository's hooks,
 * and `reward VALUE [NAME=NUMBER ...]`, which writes the reward both ways Harbor reads it and ends the
 * script: /logs/verifier/reward.json (read first: named numbers, `reward` the value, `solved` 1 or 0, 1 when
 * the value is 1 unless given, then the names given) and reward.txt (the value alone). Anything that is not
 * a plain non-negative number counts 0, and a name that is not lower-case letters and `_` is left out.
 */
export const TEST_PRELUDE = `#!/bin/bash
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=\${GITGOOD_TASK_REPO:-${TASK_REPO}}
logs=\${GITGOOD_TASK_LOGS:-/logs}
mkdir -p "$logs/verifier"
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 GIT_TERMINAL_PROMPT=0 LC_ALL=C
g() { git -c core.hooksPath=/dev/null -c core.fsmonitor=false "$@"; }
number() { if [[ $1 =~ ^[0-9]+(\\.[0-9]+)?([eE][-+]?[0-9]+)?$ ]]; then printf '%s' "$1"; else printf 0; fi; }
reward() {
  local value solved named="" pair
  value=$(number "\${1:-0}")
  shift || true
  if [ "$value" = 1 ]; then solved=1; else solved=0; fi
  for pair in "$@"; do
    if [ "\${pair%%=*}" = solved ]; then solved=$(number "\${pair#*=}")
    elif [[ \${pair%%=*} =~ ^[a-z_]+$ ]]; then named="$named, \\"\${pair%%=*}\\": $(number "\${pair#*=}")"; fi
  done
  printf '%s\\n' "$value" > "$logs/verifier/reward.txt"
  printf '{"reward": %s, "solved": %s%s}\\n' "$value" "$solved" "$named" > "$logs/verifier/reward.json"
  echo "reward: $value"
  cat "$logs/verifier/reward.json"
  exit 0
}
cd "$repo" || reward 0
# The repository's own settings may not move git elsewhere: its work tree and git directory are these, and no
# replace ref stands in for the commits the checks read.
export GIT_DIR="$repo/.git" GIT_WORK_TREE="$repo" GIT_NO_REPLACE_OBJECTS=1
`;

/** Where the Dockerfile builds a Python project's environment (`$GITGOOD_ENV`, as gitgood's own environments have it). */
const TASK_ENV = "/opt/gitgood-env";

/**
 * The Dockerfile's part of a Python task: the environment gitgood's evaluation builds for the project, from
 * the same spec (\`--env-spec\`, the dataset's own set-up, the test dependencies the project declares): a
 * virtual environment over the system's packages (pytest among them) at $GITGOOD_ENV/venv, first on PATH, the
 * spec's variables and set-up commands, and the project installed with its dependencies (the image is built
 * with the network, unlike gitgood's offline editable install; without an index, pip builds it with the
 * system's setuptools); PYTHONPATH as gitgood's test runs have it.
 */
export function pythonEnvironment(spec: EnvSpec): Pick<HarborParts, "packages" | "setup" | "env"> {
  const pythonPath = spec.pythonPath.map((p) => (p === "." || p === "" ? TASK_REPO : `${TASK_REPO}/${p.replace(/^\.\//, "")}`));
  return {
    packages: ["python3", "python3-pip", "python3-setuptools", "python3-venv", "python3-pytest", "python-is-python3"],
    env: {
      GITGOOD_ENV: TASK_ENV,
      VIRTUAL_ENV: `${TASK_ENV}/venv`,
      PATH: `${TASK_ENV}/venv/bin:$PATH`,
      ...(pythonPath.length > 0 ? { PYTHONPATH: pythonPath.join(":") } : {}),
      ...spec.env,
    },
    setup: [
      `python3 -m venv --system-site-packages ${TASK_ENV}/venv`,
      ...spec.setup,
      // Without an index (an offline build), the build's own tools come from the system (python3-setuptools).
      "if [ -f pyproject.toml ] || [ -f setup.py ]; then python -m pip install -e . || python -m pip install --no-build-isolation -e . ; fi",
    ],
  };
}

export const SOLVE_PRELUDE = `#!/bin/bash
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=\${GITGOOD_TASK_REPO:-${TASK_REPO}}
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 GIT_EDITOR=: GIT_MERGE_AUTOEDIT=no LC_ALL=C
cd "$repo"
`;


/**
 * tests/owned.py: reads NUL-separated repository paths on stdin and writes back, NUL-separated, those that
 * are the evaluation's by the rules in the JSON file named by its argument (gitgood's own rules of
 * src/testenv/test-infra.ts, as data: test files, pytest's configuration and hooks, start-up hooks, byte
 * code, the dataset's test files and the plug-ins the configuration names).
 */
const OWNED_PY = `import json
import re
import sys

rules = json.load(open(sys.argv[1], encoding="utf-8"))
config = set(rules["configFiles"])
test_dirs = set(rules["testDirs"])
runner = re.compile(rules["runnerConfig"])
files = set(rules["files"])


def owns(path):
    p = re.sub(r"/{2,}", "/", re.sub(r"^(\\./)+", "", path))
    parts = p.split("/")
    name = parts[-1]
    if name in config or runner.search(name) or name.endswith(".pth") or name.startswith(rules["pluginModule"]):
        return True
    if "__pycache__" in parts or re.search(r"\\.py[co]$", name):
        return True
    if any(d in test_dirs for d in parts[:-1]):
        return True
    if name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py")):
        return True
    if p in files or any(p.startswith(d) for d in rules["dirs"]):
        return True
    return any(p.startswith(m) if m.endswith("/") else p == m for m in rules["pluginPaths"])


paths = sorted(set(p for p in sys.stdin.buffer.read().split(b"\\0") if p))
for raw in paths:
    if owns(raw.decode("utf-8", "surrogateescape")):
        sys.stdout.buffer.write(raw + b"\\0")
`;

/**
 * The shell function test.sh calls before a test-scored verdict, as gitgood's evaluation drops an agent's
 * changes to the evaluation's files: every file the agent changed, added or deleted since commit "$1"
 * (read with an index of the script's own, so the agent's index flags hide nothing; ignored files too)
 * that owned.py says is the evaluation's is put back as "$1" has it, or removed when "$1" has none.
 */
export const RESTORE_EVALUATION_FILES = `
restore_evaluation_files() {
  local idx list f
  idx=$(mktemp) && list=$(mktemp) || return 1
  GIT_INDEX_FILE=$idx g read-tree "$1" || return 1
  GIT_INDEX_FILE=$idx g update-index -q --refresh >/dev/null 2>&1
  { GIT_INDEX_FILE=$idx g diff --no-renames --name-only -z && GIT_INDEX_FILE=$idx g ls-files -z --others; } \\
    | python3 "$here/owned.py" "$here/evaluation-files.json" > "$list" || return 1
  while IFS= read -r -d '' f; do
    echo "the evaluation's version put back: $f"
    rm -rf -- "$f"
    if GIT_INDEX_FILE=$idx GIT_LITERAL_PATHSPECS=1 g ls-files --error-unmatch -- "$f" >/dev/null 2>&1; then
      GIT_INDEX_FILE=$idx GIT_LITERAL_PATHSPECS=1 g checkout-index -f -- "$f" || return 1
    fi
  done < "$list"
  rm -f "$idx" "$list"
}
`;

/**
 * The tests/ files that say which files are the evaluation's in a project at `rev`: owned.py and its
 * rules (gitgood's, with the dataset's own test files and the plug-ins the configuration at `rev` names).
 */
export async function evaluationFiles(repo: Repo, rev: string, datasetFiles: readonly string[]): Promise<Record<string, TaskFile>> {
  const rules = infrastructureRules(datasetFiles, await pluginModulesAt(repo, rev));
  return { "owned.py": text(OWNED_PY), "evaluation-files.json": text(`${JSON.stringify(rules, null, 1)}\n`) };
}

/**
 * Python for the verdict scripts: `summary_lines(log)` gives the lines of pytest's "short test summary
 * info" section, the only part of the log the verdict reads: what the code under test prints (captured
 * output shown with a failure, or text written at exit, after pytest's last line) is not read. A log
 * with more than one such section was written to by someone else: the run is void (`None`).
 */
export const SUMMARY_LINES_PY = `def summary_lines(path):
    sections, current = [], None
    with open(path, encoding="utf-8", errors="replace") as log:
        for raw in log:
            line = raw.rstrip("\\n")
            if re.match(r"^=+ short test summary info =+$", line):
                current = []
                sections.append(current)
            elif current is not None and re.match(r"^=+ .* =+$", line):
                current = None
            elif current is not None:
                current.append(line)
    if len(sections) > 1:
        print("the test log holds more than one summary: something besides pytest wrote it; the run is void", file=sys.stderr)
        return None
    return sections[0] if sections else []
`;
