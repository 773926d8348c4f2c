import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { PYTEST_COMMAND } from "../../src/testenv/defaults.js";
import { plainCommandWords } from "../../src/testenv/shell-words.js";
import { mulberry32 } from "../../src/dataset/random.js";

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

  it("splits generated commands exactly as sh does whenever it takes them (seeded fuzz)", () => {
    const random = mulberry32(36);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
    const outside = [..."aZ09_@%+,./:=-", ..."$`\\!*?~#&;|<>(){}[]\n"];
    const inSingle = [..." \t\n\"$`\\!*?~#&;|aZ09", "é", "日"];
    const inDouble = [..." \t\n'*?~#&;|aZ09", "é", "日", "$GITGOOD_JUNIT", "${GITGOOD_ENV}", "$", "`", "\\", "!", "$GITGOOD_UNSET", "$HOME"];
    const piece = (): string => {
      const r = random();
      const run = (chars: readonly string[]): string => Array.from({ length: Math.floor(random() * 5) }, () => pick(chars)).join("");
      if (r < 0.4) return run(outside.slice(0, random() < 0.9 ? 14 : outside.length));
      if (r < 0.7) return `'${run(inSingle)}'`;
      return `"${run(inDouble.slice(0, random() < 0.85 ? 14 : inDouble.length))}"`;
    };
    let taken = 0;
    for (let i = 0; i < 600; i++) {
      const words = Array.from({ length: 1 + Math.floor(random() * 4) }, () => Array.from({ length: 1 + Math.floor(random() * 3) }, piece).join(""));
      const command = `run ${words.join(pick([" ", "  ", "\t"]))}`;
      const parsed = plainCommandWords(command, VARS);
      if (parsed === null) continue;
      taken++;
      expect(parsed, command).toEqual(shellWords(command));
    }
    expect(taken).toBeGreaterThan(200);
  });
});
