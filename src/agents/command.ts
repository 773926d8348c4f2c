import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { GitGoodError } from "../errors.js";
import { readCalls } from "../sandbox/calls.js";
import { SANDBOX_ENV } from "../sandbox/locate.js";
import type { ScenarioKind } from "../scenarios/types.js";
import type { Agent, AgentSession } from "./agent.js";

const BIN = fileURLToPath(new URL("../../bin/gitgood.js", import.meta.url));
const OUTPUT_CAP = 200_000;

/**
 * Any external program as an agent. It runs in the sandbox's work tree with the initial context on
 * stdin, and calls tools with `gitgood tool NAME --args JSON` (a `gitgood` command is first on its
 * PATH; GITGOOD_SANDBOX names the scenario). The run waits for it to exit; a non-zero exit is an error.
 */
export class CommandAgent implements Agent {
  readonly name: string;

  constructor(private readonly command: string) {
    this.name = `command:${command.slice(0, 60)}`;
  }

  supports(_kind: ScenarioKind): boolean {
    return true;
  }

  async run(session: AgentSession): Promise<void> {
    session.beginTurn();
    session.stateChangedOutside = true;
    const shimDir = session.scenario.sandbox.privatePath("bin");
    mkdirSync(shimDir, { recursive: true });
    const shim = path.join(shimDir, "gitgood");
    writeFileSync(shim, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`);
    chmodSync(shim, 0o755);
    const child = spawn("sh", ["-c", this.command], {
      cwd: session.workDir,
      env: {
        ...process.env,
        [SANDBOX_ENV]: session.sandboxDir,
        GITGOOD_SCENARIO: session.kind,
        GITGOOD_SAMPLE_ID: session.sample.id,
        PATH: `${shimDir}${path.delimiter}${process.env.PATH ?? ""}`,
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
        if (child.pid) process.kill(-child.pid, "SIGKILL"); // the whole process group
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
}
