import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { PYTEST_COMMAND } from "../../src/testenv/defaults.js";
import { plainCommandWords } from "../../src/testenv/shell-words.js";

const VARS = { GITGOOD_JUNIT: "/tmp/results dir/junit.xml", GITGOOD_ENV: "/cache/env" };

/** The words `sh` makes of a command: the oracle. */
function shellWords(command: string): string[] {
  const r = spawnSync("sh", ["-c", `printf '%s\\0' ${command}`], { env: { PATH: process.env.PATH, ...VARS }, encoding: "utf8" });
  return r.stdout.split("\0").slice(0, -1);
}

describe("a test command run without a shell", () => {
  it("takes plain commands, with single quotes and gitgood's own variables in double quotes, as sh splits them", () => {
    for (const command of [
      PYTEST_COMMAND,
      "python -m pytest -rA -k 'sub and not slow' --tb=short",
      'node --test --test-reporter=junit --test-reporter-destination="$GITGOOD_JUNIT"',
      'python "${GITGOOD_ENV}/bin/run tests" -x',
      "node_modules/.bin/vitest run --reporter=default",
    ]) {
      expect(plainCommandWords(command, VARS), command).toEqual(shellWords(command));
    }
  });

  it("leaves to sh whatever it would interpret: operators, redirections, globs, escapes, other variables, assignments, its own words", () => {
    for (const command of [
      "cd tests && python -m pytest",
      "python -m pytest > log.txt",
      "python -m pytest tests/*.py",
      "python -m pytest $GITGOOD_JUNIT",
      'python -m pytest "$HOME/x"',
      'python -m pytest "$GITGOOD_UNSET"',
      'python -m pytest "$(id)"',
      "python -m pytest a\\ b",
      "PYTHONHASHSEED=0 python -m pytest",
      "exec python -m pytest",
      "python -m pytest; echo done",
      "python -m pytest 'unterminated",
      "",
    ]) {
      expect(plainCommandWords(command, VARS), command).toBeNull();
    }
  });
});
