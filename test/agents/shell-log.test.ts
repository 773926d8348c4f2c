import { describe, expect, it } from "vitest";
import { recordedGitCommands } from "../../src/agents/shell-log.js";

const record = (...args: string[]): string => `${args.length}\0${args.map((a) => `${a}\0`).join("")}`;

describe("the git commands an external agent's recording git wrote", () => {
  it("reads each record as a command line, quoting what a shell would need quoted", () => {
    const bytes = Buffer.from(record("log", "--all", "-S", "a word") + record("status") + record("commit", "-m", "it's"));
    expect(recordedGitCommands(bytes)).toEqual(["git log --all -S 'a word'", "git status", `git commit -m 'it'\\''s'`]);
  });

  it("skips bytes that are not a record's count and stops at a record cut short", () => {
    const bytes = Buffer.from(`junk\0${record("reflog")}3\0show\0`);
    expect(recordedGitCommands(bytes)).toEqual(["git reflog"]);
    expect(recordedGitCommands(Buffer.alloc(0))).toEqual([]);
  });
});
