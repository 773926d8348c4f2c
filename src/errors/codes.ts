/**
 * Whose fault an error is. It decides the CLI's exit code (usage 2, the others 1) and how a run's
 * report counts its error records (infrastructure apart from agent failures).
 * - usage: the user asked gitgood for something wrong (an option, an argument, a combination of them);
 * - data: a sample, file, sandbox or repository is not as it must be;
 * - infrastructure: git, the disk, a model endpoint, a time-out, the server's host — not the agent's fault;
 * - agent: the agent under test failed: a bad tool call, its program crashed, it gave up or went away;
 * - internal: a bug of gitgood.
 */
export const FAULTS = ["usage", "data", "infrastructure", "agent", "internal"] as const;
export type Fault = (typeof FAULTS)[number];

interface CodeInfo {
  readonly fault: Fault;
  readonly meaning: string;
}

/**
 * Every error code gitgood uses, declared once with its fault and a one-line meaning. A code is
 * stable: scripts and results files match on it. To add one, add a line here.
 *
 * Tool errors an agent gets back (and may recover from) are `agent` codes; they become a run's error
 * only when the agent gives up on them. Memory operations are agent tools first, so their refusals
 * are `agent` codes too, also when a person runs them through `gitgood memory`.
 */
export const ERROR_CODES = {
  // usage
  BAD_OPTION: { fault: "usage", meaning: "an option or argument is missing, malformed, unknown or contradicts another" },
  LIMIT_UNENFORCEABLE: { fault: "usage", meaning: "a jail limit (--max-processes, --max-memory, --max-disk, the CPU time) can be enforced only weakly or not at all on this host; --accept-weak-limits runs anyway" },
  ISOLATION_UNAVAILABLE: { fault: "usage", meaning: "the isolation asked for (or the default) cannot run on this host; choose another with --isolation" },
  SANDBOX_ROOT_REFUSED: { fault: "usage", meaning: "the sandbox root is not the user's own (a symbolic link, another owner, writable by others) or cannot be made" },
  BAD_CONFIG: { fault: "usage", meaning: "the configuration file (gitgood.config.yaml, --config) is not YAML, or has an unknown key or a value of the wrong type" },
  PLUGIN_FAILED: { fault: "usage", meaning: "a plug-in (--plugin MODULE, the configuration's plugins:) cannot be found or loaded, has no register function, or its registration failed" },
  BAD_ENV_SPEC: { fault: "usage", meaning: "an environment spec (--env-spec FILE, the configuration's envs:) is malformed, or a project has none and no default fits" },
  BAD_ASSESSMENT: { fault: "usage", meaning: "an A2A assessment request is malformed: not the JSON {participants, config} the green agent takes (invalid params)" },
  BAD_SWE_TASK: { fault: "usage", meaning: "a SWE task sent to the A2A participant is malformed: not REPO_DIR:<path>, Problem Statement: and the issue (then optional Hints:), or REPO_DIR is no directory" },
  RUN_MISMATCH: { fault: "usage", meaning: "the run directory holds a run with other settings; resume with the same ones or choose another --out" },
  MIXED_RUNS: { fault: "usage", meaning: "the runs given to gitgood leaderboard are not over the same samples and settings; --allow-mixed ranks them anyway, marked as mixed" },
  BAD_MODELS_FILE: { fault: "usage", meaning: "a leaderboard's models file (--models) is not YAML mapping model names to training cut-off dates" },
  QUEUE_MISMATCH: { fault: "usage", meaning: "the job queue (--queue, --queue-name) holds another run's jobs; use another --queue-name or finish that run" },

  // data
  BAD_CSV: { fault: "data", meaning: "a CSV dataset file is malformed" },
  BAD_JSON: { fault: "data", meaning: "a JSON or JSONL dataset file is malformed" },
  BAD_LITERAL: { fault: "data", meaning: "a Python-literal field (the published `scenario`) cannot be read or written" },
  BAD_METADATA: { fault: "data", meaning: "a metadata file (repository metadata, memory metadata.yaml) is malformed" },
  BAD_PARQUET: { fault: "data", meaning: "a Parquet dataset file cannot be read" },
  BAD_ROW: { fault: "data", meaning: "a dataset row is not a GitGoodBench sample" },
  BAD_SAMPLE: { fault: "data", meaning: "a sample's fields cannot locate its repository" },
  BAD_SAMPLES: { fault: "data", meaning: "a gitgood samples file holds a line that is not a sample" },
  BAD_STATE: { fault: "data", meaning: "a sandbox's saved state is from another gitgood version or unknown" },
  SYNTAX_ERROR: { fault: "data", meaning: "a source file does not parse, so its functions cannot be found" },
  DUPLICATE_ID: { fault: "data", meaning: "two samples of a dataset share an id" },
  EMPTY_REPOSITORY: { fault: "data", meaning: "the repository has no branch with a commit" },
  MISSING_COMMIT: { fault: "data", meaning: "a sample names a commit the repository does not have" },
  NOT_A_CLONE: { fault: "data", meaning: "a clone's destination exists but is not a bare git repository" },
  NOT_A_REPOSITORY: { fault: "data", meaning: "the path is not a git repository (or not a directory)" },
  NOT_A_RUN: { fault: "data", meaning: "the directory is not a gitgood run directory" },
  BAD_COMMIT_LOG: { fault: "data", meaning: "a memory branch's commit.md is damaged (a missing title or part, wrong numbering)" },
  CORRUPT_LOCK: { fault: "data", meaning: "a lock file that gitgood did not write (or a damaged one) is in the way" },
  NOT_A_FOLDER: { fault: "usage", meaning: "memory works on a repository's top folder, not a sub-folder" },
  BAD_TICKET: { fault: "data", meaning: "a job ticket (one attempt of a run, sent to another process to run) is malformed or does not agree with itself" },
  BAD_RUN: { fault: "data", meaning: "a run directory's run.json or a trajectory is damaged or does not match its schema" },
  NOT_A_WORKSPACE: { fault: "data", meaning: "memory needs a work tree, and the repository is bare" },
  NOT_FOUND: { fault: "data", meaning: "a file, directory, sample or project file named is not there" },
  NO_SAMPLES: { fault: "data", meaning: "the repository yields no sample to benchmark" },
  NO_SANDBOX: { fault: "data", meaning: "there is no live scenario there: not a sandbox, finished, closed, or several candidates" },
  REPO_NOT_FOUND: { fault: "data", meaning: "no clone of a sample's repository under --repos" },
  SAMPLE_MISMATCH: { fault: "data", meaning: "the repository's history does not match what the sample says" },
  SPLIT_TOO_SMALL: { fault: "data", meaning: "a language or type has too few samples for the requested split" },
  UNKNOWN_FORMAT: { fault: "data", meaning: "a dataset file's format cannot be told from its name" },
  UNREADABLE_FILE: { fault: "data", meaning: "a dataset file cannot be read" },
  UNVERIFIED_SAMPLES: { fault: "data", meaning: "some samples name commits that no clone holds" },
  BAD_PREDICTIONS: { fault: "data", meaning: "a SWE-bench predictions file is malformed (or predicts an instance twice)" },
  PATCH_FAILED: { fault: "data", meaning: "a SWE instance's own patch (test_patch, or the gold patch for the oracle) does not apply at base_commit" },

  // infrastructure
  CLOSED: { fault: "infrastructure", meaning: "the server is closing the connection" },
  GIT_FAILED: { fault: "infrastructure", meaning: "a git command failed or answered unexpectedly" },
  ABORTED: { fault: "infrastructure", meaning: "a model request or program was cancelled (the sample's time-out, or a stop)" },
  ENV_BUILD_FAILED: { fault: "infrastructure", meaning: "a test environment could not be built: a set-up command failed or ran out of time" },
  EXEC_FAILED: { fault: "infrastructure", meaning: "a program could not be started in the sandbox" },
  GIT_NOT_FOUND: { fault: "infrastructure", meaning: "git is not on PATH" },
  GIT_TOO_OLD: { fault: "infrastructure", meaning: "the git on PATH is older than gitgood needs" },
  LISTEN_FAILED: { fault: "infrastructure", meaning: "the HTTP server cannot listen on the address" },
  AGENT_INSTALL_FAILED: { fault: "infrastructure", meaning: "a CLI-agent preset (--agent claude-code, opencode) could not be installed from the npm registry into gitgood's cache" },
  LOCKED: { fault: "infrastructure", meaning: "another process holds the memory lock" },
  LOCK_FAILED: { fault: "infrastructure", meaning: "a lock file cannot be created" },
  MODEL_AUTH: { fault: "infrastructure", meaning: "the model endpoint refused the credentials" },
  MODEL_ERROR: { fault: "infrastructure", meaning: "the model endpoint failed or answered nothing usable" },
  MODEL_NOT_FOUND: { fault: "infrastructure", meaning: "the model endpoint does not serve the model" },
  MODEL_RATE_LIMITED: { fault: "infrastructure", meaning: "the model endpoint kept refusing for the rate limit" },
  MODEL_TIMEOUT: { fault: "infrastructure", meaning: "the model endpoint did not answer in time, after retries" },
  MODEL_UNREACHABLE: { fault: "infrastructure", meaning: "the model endpoint cannot be reached" },
  READ_FAILED: { fault: "infrastructure", meaning: "a file cannot be read from disk" },
  REBASE_FAILED: { fault: "infrastructure", meaning: "git rebase did not behave as the scenario needs" },
  RUN_ERRORS: { fault: "infrastructure", meaning: "attempts of the run ended in a system error (exit 1 unless --allow-errors; --retry-errors runs them again)" },
  QUEUE_UNREACHABLE: { fault: "infrastructure", meaning: "the Redis server of --queue cannot be reached or refused the connection" },
  WORKER_FAILED: { fault: "infrastructure", meaning: "every attempt of a queued job failed on the workers (a missing clone or commit, isolation that cannot run)" },
  CLONE_FAILED: { fault: "infrastructure", meaning: "a worker with --clone could not clone a sample's repository from its --url-pattern" },
  BAD_SIGNATURE: { fault: "infrastructure", meaning: "a queued job or result is not signed with the queue's secret (forged on Redis, or a producer and worker with different secrets)" },
  POLICY_REFUSED: { fault: "infrastructure", meaning: "a queued job asks for more than the worker's own policy gives (agent kind, isolation, reads, variables, network); not retried" },
  BAD_RESULT: { fault: "infrastructure", meaning: "a queued job's result is not a worker's (damaged, another job's, or a spilled trajectory outside the producer's --spill-dir)" },
  RUN_LOCKED: { fault: "infrastructure", meaning: "another gitgood run works in the run directory (its lock names the process)" },
  SERVER_STOPPED: { fault: "infrastructure", meaning: "the MCP server was stopped before the client finished the scenario" },
  TIMEOUT: { fault: "infrastructure", meaning: "the sample ran out of its time limit" },
  SCORE_TIMEOUT: { fault: "infrastructure", meaning: "scoring an attempt (its judges' requests) took longer than its time limit; the verdict stays unjudged" },
  TOOL_SOCKET_GONE: { fault: "infrastructure", meaning: "the run's tool socket does not answer: the attempt has ended, or the path is wrong" },
  UNSAFE_REPOSITORY: { fault: "infrastructure", meaning: "git refuses a repository owned by another user (safe.directory)" },
  WRITE_FAILED: { fault: "infrastructure", meaning: "a file cannot be written to disk" },

  // agent
  LIMIT_EXCEEDED: { fault: "agent", meaning: "a program of the agent's attempt ran into a jail limit (data: limit — processes, memory, disk or cpu) and was stopped" },
  AGENT_FAILED: { fault: "agent", meaning: "the agent's program could not start or exited with an error" },
  AGENT_UNREACHABLE: { fault: "agent", meaning: "the A2A agent under test cannot be reached (no agent card at its URL)" },
  ALREADY_INITIALIZED: { fault: "agent", meaning: "memory is set up already" },
  ALREADY_MERGED: { fault: "agent", meaning: "the memory branch is merged already" },
  BAD_ARGUMENTS: { fault: "agent", meaning: "a tool call's arguments do not fit the tool's schema" },
  BAD_BRANCH_NAME: { fault: "agent", meaning: "not a valid git branch name" },
  BAD_INPUT: { fault: "agent", meaning: "a memory operation is missing the text it needs" },
  BAD_REQUEST: { fault: "agent", meaning: "a request on the run's tool socket is not one the tool broker understands" },
  BAD_MODE: { fault: "agent", meaning: "the MCP tool works in session mode only" },
  BAD_PATH: { fault: "agent", meaning: "a quoted path is malformed (no closing quote, an unknown escape)" },
  BAD_TODO: { fault: "agent", meaning: "the rebase todo list the agent gave is invalid" },
  BASELINE_FAILED: { fault: "agent", meaning: "a baseline agent's tool call failed" },
  BRANCH_EXISTS: { fault: "agent", meaning: "the branch or memory branch exists already" },
  SERVER_BUSY: { fault: "infrastructure", meaning: "the A2A green agent already runs the most assessments it takes at once (--max-assessments)" },
  BUSY: { fault: "agent", meaning: "a tool was called while another call in the same scenario was running" },
  CLIENT_DISCONNECTED: { fault: "agent", meaning: "the MCP client went away before finishing the scenario" },
  CONFLICT_LOST: { fault: "agent", meaning: "conflict markers were changed outside the tools" },
  DETACHED_HEAD: { fault: "agent", meaning: "memory needs a checked-out branch, and HEAD is detached" },
  DIRTY_INDEX: { fault: "agent", meaning: "the index holds staged changes memory would mix up" },
  DIRTY_WORKTREE: { fault: "agent", meaning: "the operation needs committed work, and files have uncommitted changes" },
  EDIT_REFUSED: { fault: "agent", meaning: "a function-body edit would break the file's syntax or change the function's signature; the file is unchanged" },
  FAIL_UNDER: { fault: "agent", meaning: "the run's solve rate is below --fail-under (exit code 3)" },
  INDEX_OUT_OF_RANGE: { fault: "agent", meaning: "a conflict, commit or hunk index that does not exist" },
  MERGE_CONFLICT: { fault: "agent", meaning: "merging the memory branch conflicts in code" },
  MERGE_REFUSED: { fault: "agent", meaning: "git refused the memory merge for the state of the work tree" },
  NOTHING_TO_COMMIT: { fault: "agent", meaning: "every change is committed already" },
  NOT_A_FILE: { fault: "agent", meaning: "the path names a directory, not a file" },
  NOT_CURRENT: { fault: "agent", meaning: "a conflicted file was written before the conflicts ahead of it were resolved" },
  NOT_A_MEMORY_COMMIT: { fault: "agent", meaning: "the commit recorded no memory entry" },
  NOT_A_MEMORY_STATE: { fault: "agent", meaning: "the commit holds no memory of the branch" },
  NOT_INITIALIZED: { fault: "agent", meaning: "there is no memory yet: 'memory init' first" },
  NO_CONFLICT: { fault: "agent", meaning: "there is no unresolved conflict left" },
  NO_HUNKS: { fault: "agent", meaning: "there are no hunks left to choose" },
  NO_MEMORY_BRANCH: { fault: "agent", meaning: "the git branch has no memory branch" },
  NO_REBASE_STOP: { fault: "agent", meaning: "no rebase step is stopped on a conflict" },
  NO_SCENARIO: { fault: "agent", meaning: "no scenario is open (or it is finished already) for this MCP call" },
  OPERATION_IN_PROGRESS: { fault: "agent", meaning: "a merge, rebase, cherry-pick or revert is in progress in the workspace" },
  PARSE_ERROR: { fault: "agent", meaning: "the MCP request body is not valid JSON" },
  PATH_OUTSIDE: { fault: "agent", meaning: "a path that leaves the project or is not a plain relative path" },
  REBASE_DONE: { fault: "agent", meaning: "the rebase has been executed already" },
  REBASE_STOPPED: { fault: "agent", meaning: "the rebase is stopped on a conflict that must be handled first" },
  ALREADY_ATTEMPTED: { fault: "agent", meaning: "an MCP client asked for a scenario this evaluation run has recorded already (one attempt per sample)" },
  RECORD_EXISTS: { fault: "internal", meaning: "a record of this key exists in an append-only run; the new one was not written" },
  SCENARIO_OPEN: { fault: "agent", meaning: "another scenario is still open in this MCP session" },
  SELF_MERGE: { fault: "agent", meaning: "a branch cannot be merged into itself" },
  SYMLINK_REFUSED: { fault: "agent", meaning: "the path is or goes through a symbolic link, which the tools never follow" },
  TOO_LARGE: { fault: "agent", meaning: "the MCP request body is too large" },
  UNKNOWN_BRANCH: { fault: "agent", meaning: "there is no such branch" },
  UNKNOWN_FUNCTION: { fault: "agent", meaning: "the file has no function of that dotted name (or several, and no line tells them apart)" },
  UNKNOWN_ENTRY: { fault: "agent", meaning: "the memory branch has no such entry" },
  UNKNOWN_RESOURCE: { fault: "agent", meaning: "the MCP server has no such resource" },
  UNKNOWN_REVISION: { fault: "agent", meaning: "neither an entry number nor a commit" },
  UNKNOWN_SAMPLE: { fault: "agent", meaning: "the MCP session has no such sample" },
  UNKNOWN_SEGMENT: { fault: "agent", meaning: "memory metadata has no such segment" },
  UNKNOWN_TOOL: { fault: "agent", meaning: "there is no tool of that name" },
  WRONG_SCENARIO: { fault: "agent", meaning: "the tool belongs to another scenario than the open one" },

  // internal
  INTERNAL: { fault: "internal", meaning: "a bug of gitgood: something that must not happen did" },
  ORACLE_FAILED: { fault: "internal", meaning: "the oracle agent could not reproduce the recorded answer" },
} as const satisfies Record<string, CodeInfo>;

export type ErrorCode = keyof typeof ERROR_CODES;
