import { GitGoodError } from "../errors.js";
import { readCalls } from "../sandbox/calls.js";
import { SANDBOX_ENV } from "../sandbox/locate.js";
import type { Session } from "./agent.js";

const OUTPUT_CAP = 200_000;

/**
 * Runs an agent program (a shell command) on a session through the sandbox's exec seam: in the work
 * tree, with the initial context on stdin and GITGOOD_SANDBOX, GITGOOD_SCENARIO and GITGOOD_SAMPLE_ID
 * (plus `env`) set. It acts through another process (`gitgood tool` or `gitgood mcp`), whose logged
 * calls join the trajectory when it exits. On a time-out its whole process group is killed; a
 * non-zero exit is an error.
 */
export async function runExternalAgent(session: Session, command: string, env: Record<string, string>): Promise<void> {
  session.beginTurn();
  session.stateChangedOutside = true;
  const sandbox = session.scenario.sandbox;
  const r = await sandbox.exec(["sh", "-c", command], {
    env: {
      [SANDBOX_ENV]: sandbox.dir,
      GITGOOD_SCENARIO: session.definition.name.toLowerCase(),
      GITGOOD_SAMPLE_ID: session.sample.id,
      ...env,
    },
    input: session.context.text,
    signal: session.signal,
    maxOutput: OUTPUT_CAP,
    keep: "tail",
  });
  for (const c of readCalls(sandbox)) session.recordExternalCall(c.tool, c.args, c);
  const out = r.stdout.toString("utf8");
  const err = r.stderr.toString("utf8");
  const how = r.code !== null ? `exited with code ${r.code}` : `was killed (${r.signal ?? "signal"})`;
  session.note("note", `command ${how}\n--- stdout ---\n${out}\n--- stderr ---\n${err}`);
  if (r.code !== 0 && !session.signal.aborted) {
    const last = err.trim().split("\n").at(-1) ?? "";
    throw new GitGoodError("AGENT_FAILED", `agent command ${how}${last ? `: ${last}` : ""}`, { code: r.code });
  }
}
