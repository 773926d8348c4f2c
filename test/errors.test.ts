import { CommanderError, InvalidArgumentError } from "commander";
import { describe, expect, it } from "vitest";
import { ERROR_CODES, FAULTS, GitGoodError, exitCodeFor, faultOf, isErrorCode, toGitGoodError } from "../src/errors.js";

describe("error catalog", () => {
  it("gives every code one of the faults and a one-line meaning", () => {
    for (const [code, info] of Object.entries(ERROR_CODES)) {
      expect(code).toMatch(/^[A-Z][A-Z_]*[A-Z]$/);
      expect(FAULTS, code).toContain(info.fault);
      expect(info.meaning, code).toMatch(/^\S[^\n]*\S$/);
    }
  });

  it("classifies codes by whose fault they are; undeclared codes are internal", () => {
    expect(faultOf("BAD_OPTION")).toBe("usage");
    expect(faultOf("SAMPLE_MISMATCH")).toBe("data");
    expect(faultOf("TIMEOUT")).toBe("infrastructure");
    expect(faultOf("MODEL_ERROR")).toBe("infrastructure");
    expect(faultOf("AGENT_FAILED")).toBe("agent");
    expect(faultOf("CLIENT_DISCONNECTED")).toBe("agent");
    expect(faultOf("ORACLE_FAILED")).toBe("internal");
    expect(faultOf("FROM_A_NEWER_GITGOOD")).toBe("internal");
    expect(isErrorCode("GIT_FAILED")).toBe(true);
    expect(isErrorCode("toString")).toBe(false);
  });

  it("turns anything thrown into a GitGoodError with the code asked for", () => {
    const kept = new GitGoodError("NOT_FOUND", "gone", { path: "x" });
    expect(toGitGoodError(kept, "TIMEOUT")).toBe(kept);
    expect(toGitGoodError(new Error("boom")).toJSON()).toEqual({ code: "INTERNAL", message: "boom", data: {} });
    expect(toGitGoodError("late", "TIMEOUT").toJSON()).toEqual({ code: "TIMEOUT", message: "late", data: {} });
  });
});

describe("exit codes", () => {
  it("are 2 for wrong usage, 1 for other errors, 0 for help and version", () => {
    expect(exitCodeFor(new GitGoodError("BAD_OPTION", "--jobs must be at least 1"))).toBe(2);
    expect(exitCodeFor(new GitGoodError("RUN_MISMATCH", "other settings"))).toBe(2);
    expect(exitCodeFor(new GitGoodError("NOT_A_REPOSITORY", "not a git repository"))).toBe(1);
    expect(exitCodeFor(new GitGoodError("GIT_FAILED", "git failed"))).toBe(1);
    expect(exitCodeFor(new GitGoodError("AGENT_FAILED", "exit 3"))).toBe(1);
    expect(exitCodeFor(new GitGoodError("INTERNAL", "bug"))).toBe(1);
    expect(exitCodeFor(new TypeError("x is undefined"))).toBe(1);
    expect(exitCodeFor("thrown text")).toBe(1);
    expect(exitCodeFor(new CommanderError(1, "commander.unknownOption", "error: unknown option '--x'"))).toBe(2);
    expect(exitCodeFor(new InvalidArgumentError("not a number"))).toBe(2);
    expect(exitCodeFor(new CommanderError(0, "commander.helpDisplayed", "(outputHelp)"))).toBe(0);
    expect(exitCodeFor(new CommanderError(0, "commander.version", "0.1.0"))).toBe(0);
  });
});
