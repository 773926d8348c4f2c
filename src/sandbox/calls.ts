import { appendFileSync, existsSync, readFileSync } from "node:fs";
import type { Sandbox } from "./sandbox.js";

/** One tool call made through `gitgood tool`, as kept in the sandbox for the run's trajectory. */
export interface LoggedCall {
  at: string;
  tool: string;
  args: unknown;
  ok: boolean;
  output: string;
  done: boolean;
}

const FILE = "tool-calls.jsonl";

/** Appends a call to the sandbox's call log (one line, one write). */
export function logCall(sandbox: Sandbox, call: LoggedCall): void {
  appendFileSync(sandbox.privatePath(FILE), `${JSON.stringify(call)}\n`);
}

/** The calls logged in a sandbox, oldest first; damaged lines are skipped. */
export function readCalls(sandbox: Sandbox): LoggedCall[] {
  const file = sandbox.privatePath(FILE);
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .flatMap((line) => {
      if (!line.trim()) return [];
      try {
        return [JSON.parse(line) as LoggedCall];
      } catch {
        return [];
      }
    });
}
