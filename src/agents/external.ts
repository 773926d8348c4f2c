import path from "node:path";
import { GitGoodError } from "../errors.js";
import { SANDBOX_ENV } from "../sandbox/locate.js";
import type { Session } from "./agent.js";
import type { RunProxy } from "../proxy/index.js";
import { openModelAccess, type SharedDir } from "./model-access.js";
import { gitRecorder, recordedGitCommands, shellResultText } from "./shell-log.js";

export type { SharedDir } from "./model-access.js";
import { TOOL_SOCKET_ENV } from "./tool-socket.js";

export { TOOL_SOCKET_ENV };

const OUTPUT_CAP = 200_000;


/** The broker directory of a session whose agent is another program. */
export function sharedDir(session: Session): SharedDir {
  const endpoint = session.toolEndpoint;
  if (!endpoint) throw new GitGoodError("INTERNAL", "an external agent runs only with the runner's tool broker (session.toolEndpoint)");
  const seen = session.scenario.sandbox.seenAt(endpoint.dir);
  return { host: endpoint.dir, seen, socket: path.join(seen, path.basename(endpoint.socket)) };
}

/**
 * Runs an agent program (a shell command) on a session through the sandbox's exec seam, in the
 * sandbox's isolation: in the work tree, with the initial context on stdin and GITGOOD_TOOL_SOCKET,
 * GITGOOD_SCENARIO and GITGOOD_SAMPLE_ID (plus `env`) set, and of the host's variables only the
 * allow-list (sandbox/agent-env.ts) and those the user passes (`--pass-env`). It acts through the attempt's tool broker
 * (with `gitgood tool` or `gitgood mcp --tool-socket`), which records every call in the session; the git
 * commands it runs itself are recorded too, after it ends (shell-log.ts). With the
 * run's model proxy, it talks to its model through it (OPENAI_BASE_URL, ANTHROPIC_BASE_URL and a key of the
 * attempt's own; see model-access.ts), and each call is a model turn of the trajectory. On a
 * time-out its whole process tree is killed; a non-zero exit is an error.
 */
export async function runExternalAgent(
  session: Session,
  command: string,
  env: Record<string, string>,
  proxy: RunProxy | null = null,
  input: string = session.context.text,
): Promise<{ stdout: string; stderr: string }> {
  session.beginTurn();
  const shared = sharedDir(session);
  const sandbox = session.scenario.sandbox;
  const access = proxy ? await openModelAccess(session, proxy, shared) : null;
  const given = { ...access?.env, ...env };
  let r;
  try {
    r = await sandbox.exec(["sh", "-c", `${access?.prelude ?? ""}${command}`], {
      agent: true,
      env: {
        [SANDBOX_ENV]: undefined,
        [TOOL_SOCKET_ENV]: shared.socket,
        GITGOOD_SCENARIO: session.definition.name.toLowerCase(),
        GITGOOD_SAMPLE_ID: session.sample.id,
        ...given,
        ...gitRecorder(shared.host, shared.seen, given.PATH ?? process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin"),
      },
      shared: shared.host,
      input,
      signal: session.signal,
      maxOutput: OUTPUT_CAP,
      keep: "tail",
      channel: true,
    });
  } finally {
    await access?.attempt.close();
  }
  for (const c of recordedGitCommands(r.channel)) session.recordShellCommand?.(c.command, { ok: c.exit === 0, output: shellResultText(c) });
  const out = r.stdout.toString("utf8");
  const err = r.stderr.toString("utf8");
  const how = r.code !== null ? `exited with code ${r.code}` : `was killed (${r.signal ?? "signal"})`;
  session.note("note", `command ${how}\n--- stdout ---\n${out}\n--- stderr ---\n${err}`);
  if (r.code !== 0 && !session.signal.aborted) {
    const last = err.trim().split("\n").at(-1) ?? "";
    throw new GitGoodError("AGENT_FAILED", `agent command ${how}${last ? `: ${last}` : ""}`, { code: r.code });
  }
  return { stdout: out, stderr: err };
}
