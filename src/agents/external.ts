import { spawn } from "node:child_process";
import { GitGoodError } from "../errors.js";
import { readCalls } from "../sandbox/calls.js";
import { SANDBOX_ENV } from "../sandbox/locate.js";
import type { AgentSession } from "./agent.js";

const OUTPUT_CAP = 200_000;

/**
 * Runs an agent program (a shell command) on a session: in the sandbox's work tree, with the initial
 * context on stdin and GITGOOD_SANDBOX, GITGOOD_SCENARIO and GITGOOD_SAMPLE_ID (plus `env`) set. It
 * acts through another process (`gitgood tool` or `gitgood mcp`), whose logged calls join the
 * trajectory when it exits. On a time-out its whole process group is killed; a non-zero exit is an error.
 */
export async function runExternalAgent(session: AgentSession, command: string, env: Record<string, string>): Promise<void> {
  session.beginTurn();
  session.stateChangedOutside = true;
  const child = spawn("sh", ["-c", command], {
    cwd: session.workDir,
    env: {
      ...process.env,
      [SANDBOX_ENV]: session.sandboxDir,
      GITGOOD_SCENARIO: session.kind,
      GITGOOD_SAMPLE_ID: session.sample.id,
      ...env,
    },
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (b: Buffer) => (out = (out + b.toString("utf8")).slice(-OUTPUT_CAP)));
  child.stderr.on("data", (b: Buffer) => (err = (err + b.toString("utf8")).slice(-OUTPUT_CAP)));
  child.stdin.on("error", () => undefined);
  child.stdin.end(session.context.text);
  const stop = (): void => {
    try {
      if (child.pid) process.kill(-child.pid, "SIGKILL"); // the program and whatever it started
    } catch {
      /* already gone */
    }
  };
  session.signal.addEventListener("abort", stop);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on("error", (e) => reject(new GitGoodError("AGENT_FAILED", `cannot start the agent command: ${e.message}`)));
    child.on("close", (c) => resolve(c));
  });
  session.signal.removeEventListener("abort", stop);
  for (const c of readCalls(session.scenario.sandbox)) session.recordExternalCall(c.tool, c.args, c);
  session.note("note", `command exited with ${code}\n--- stdout ---\n${out}\n--- stderr ---\n${err}`);
  if (code !== 0 && !session.signal.aborted) {
    const last = err.trim().split("\n").at(-1) ?? "";
    throw new GitGoodError("AGENT_FAILED", `agent command exited with code ${code}${last ? `: ${last}` : ""}`, { code });
  }
}
