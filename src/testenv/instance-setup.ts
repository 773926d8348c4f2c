import { lstatSync } from "node:fs";
import path from "node:path";
// The quote module alone: shell-quote's index types re-declare Array.prototype.join globally.
import shellQuote from "shell-quote/quote.js";
import { GitGoodError } from "../errors.js";

/**
 * The set-up an instance asks for, as commands of an environment build (run in the project's copy, with
 * the environment's `pip`). A dataset's instance describes it with commit0's fields (SWE-bench's specs use
 * the same names):
 * - `pre_install`: shell commands run first (an `apt-get install` without `-y` gets it, as commit0 adds it);
 * - `packages`: requirements files (`*.txt`, installed with `-r`) or package names, a list or one string;
 * - `pip_packages`: requirement strings (an environment marker after `;` dropped, as commit0 does);
 * - `install`: the project's own install, commands separated by `; `, each a `pip …`, `python -m pip …` or
 *   `python setup.py …` command.
 * `python` (the interpreter version) is not a command: the environment's interpreter is the spec's.
 * A field of the wrong shape is BAD_ENV_SPEC, in one line naming the field.
 */
export function instanceSetupCommands(setup: Readonly<Record<string, unknown>>): string[] {
  const commands: string[] = [];
  for (const command of strings(setup, "pre_install")) {
    commands.push(/\bapt(-get)? install\b/.test(command) && !/(^|\s)-y\b/.test(command) ? command.replace(/\bapt(-get)? install\b/, (m) => `${m} -y --no-install-recommends`) : command);
  }
  for (const item of strings(setup, "packages", true)) {
    commands.push(item.includes(".txt") ? `pip install -r ${quote(item)}` : `pip install ${item.split(/\s+/).map(quote).join(" ")}`);
  }
  const pins = strings(setup, "pip_packages")
    .map((p) => (p.split(";")[0] as string).trim())
    .filter((p) => p !== "");
  if (pins.length > 0) commands.push(`pip install ${pins.map(quote).join(" ")}`);
  const install = setup.install;
  if (install !== undefined && install !== null && install !== "") {
    if (typeof install !== "string") throw bad("install", "expected a command");
    for (const one of install.split("; ").map((c) => c.trim()).filter((c) => c !== "")) {
      if (!/^(pip3? |python3? -m pip |python3? setup\.py )/.test(one)) throw bad("install", `'${one}' is not a pip or setup.py command`);
      commands.push(one);
    }
  }
  return commands;
}

/** Requirements files of a project's tests, by the names projects give them (checked in this order). */
const TEST_REQUIREMENTS = [
  "requirements-test.txt",
  "requirements-tests.txt",
  "requirements_test.txt",
  "requirements_tests.txt",
  "test-requirements.txt",
  "test_requirements.txt",
  "tests-requirements.txt",
  "requirements/test.txt",
  "requirements/tests.txt",
  "requirements/testing.txt",
  "tests/requirements.txt",
];

/** The extras and dependency groups that hold a project's test dependencies in pyproject.toml. */
const TEST_GROUPS = ["test", "tests", "testing"];

/**
 * Python's own reader of pyproject.toml (tomllib, Python 3.11+), run in the build: prints the requirements of
 * the test extras (`[project.optional-dependencies]`) and dependency groups (`[dependency-groups]`, plain
 * strings), one a line, into the file named by its argument. An older Python has no tomllib: it says so.
 */
const PYPROJECT_TEST_DEPS = [
  "import sys",
  "try:",
  "    import tomllib",
  "except ImportError:",
  "    print('gitgood: this Python cannot read pyproject.toml (no tomllib); its test dependencies are not installed')",
  "    sys.exit(0)",
  "data = tomllib.load(open('pyproject.toml', 'rb'))",
  `groups = ${JSON.stringify(TEST_GROUPS)}`,
  "extras = data.get('project', {}).get('optional-dependencies', {})",
  "dgroups = data.get('dependency-groups', {})",
  "reqs = [r for g in groups for r in list(extras.get(g, [])) + [d for d in dgroups.get(g, []) if isinstance(d, str)]]",
  "open(sys.argv[1], 'w').write(''.join(r + '\\n' for r in reqs))",
].join("\n");

/**
 * The commands that install the test dependencies a project declares: its test requirements files, and the
 * test extras and dependency groups of its pyproject.toml. Installed with the environment's pip, a package
 * the machine already has is taken as it is; one it lacks needs the network (offline: the build fails,
 * naming it).
 */
export function declaredTestDependencies(workTree: string): string[] {
  const commands = TEST_REQUIREMENTS.filter((f) => isFile(workTree, f)).map((f) => `pip install -r ${quote(f)}`);
  if (isFile(workTree, "pyproject.toml")) {
    const list = '"$GITGOOD_ENV/pyproject-test-requirements.txt"';
    commands.push(`python -c ${quote(PYPROJECT_TEST_DEPS)} ${list} && if [ -s ${list} ]; then pip install -r ${list}; fi`);
  }
  return commands;
}

function isFile(workTree: string, rel: string): boolean {
  try {
    return lstatSync(path.join(workTree, rel)).isFile();
  } catch {
    return false;
  }
}

/** A field that holds one command or requirement, or a list of them (`single`: a string is one item). */
function strings(setup: Readonly<Record<string, unknown>>, field: string, single = false): string[] {
  const v = setup[field];
  if (v === undefined || v === null || v === "") return [];
  if (single && typeof v === "string") return [v];
  if (!Array.isArray(v) || v.some((x) => typeof x !== "string")) throw bad(field, single ? "expected text or a list of text" : "expected a list of text");
  return (v as string[]).filter((x) => x.trim() !== "");
}

function bad(field: string, why: string): GitGoodError {
  return new GitGoodError("BAD_ENV_SPEC", `the instance's setup.${field}: ${why}`, { field });
}

/** A word for `sh`, which gives it back exactly (a leading `~` is not expanded). */
function quote(word: string): string {
  return shellQuote([word]);
}
