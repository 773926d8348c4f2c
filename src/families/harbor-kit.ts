import type { Sample } from "../dataset/sample.js";
import type { Repo } from "../git/repo.js";
import type { LiveScenario } from "../scenarios/types.js";

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
  /** task.toml's [metadata] notes of the scenario's own. */
  notes: Record<string, string>;
}

export interface HarborTaskInput {
  sample: Sample;
  scenario: LiveScenario;
  source: Repo;
}

/** How one kind of scenario becomes a Harbor task (a family contributes its own: `harborTasks`). */
export interface HarborTask {
  accepts(scenario: LiveScenario): boolean;
  build(input: HarborTaskInput): Promise<HarborParts>;
}

export const script = (data: string): TaskFile => ({ data, mode: 0o755 });
export const text = (data: string | Buffer): TaskFile => ({ data });
export const nulList = (paths: readonly string[]): TaskFile => ({ data: paths.map((p) => `${p}\0`).join("") });

/** The lines every test.sh starts with: where things are, git without the user's or the repository's hooks, and `reward`. */
export const TEST_PRELUDE = `#!/bin/bash
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

export const SOLVE_PRELUDE = `#!/bin/bash
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=\${GITGOOD_TASK_REPO:-${TASK_REPO}}
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 GIT_EDITOR=: GIT_MERGE_AUTOEDIT=no LC_ALL=C
cd "$repo"
`;

