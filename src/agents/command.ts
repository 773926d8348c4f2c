import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { nodeCommand } from "../sandbox/isolation.js";
import type { RunProxy } from "../proxy/index.js";
import type { Agent, Session } from "./agent.js";
import { runExternalAgent, sharedDir } from "./external.js";

const BIN = fileURLToPath(new URL("../../bin/gitgood.js", import.meta.url));

/**
 * Any external program as an agent. It runs in the sandbox's work tree (isolated, see `Sandbox.exec`)
 * with the initial context on stdin, and calls tools with `gitgood tool NAME --args JSON` (a `gitgood`
 * command is first on its PATH; GITGOOD_TOOL_SOCKET names the attempt's tool socket). The run waits for
 * it to exit; a non-zero exit is an error.
 */
export class CommandAgent implements Agent {
  readonly name: string;
  readonly external = true;

  constructor(
    private readonly command: string,
    /** The run's model proxy, which the program's model calls go through (none: it reaches no model). */
    private readonly proxy: RunProxy | null = null,
  ) {
    this.name = `command:${command.slice(0, 60)}`;
  }

  async run(session: Session): Promise<void> {
    await runExternalAgent(session, this.command, { PATH: gitgoodOnPath(session) }, this.proxy);
  }
}

/** Writes the attempt's `gitgood` command (the CLI, run by the jail's node) into its broker directory; gives the PATH with it first. */
export function gitgoodOnPath(session: Session): string {
  const shared = sharedDir(session);
  mkdirSync(path.join(shared.host, "bin"), { recursive: true });
  const shim = path.join(shared.host, "bin", "gitgood");
  const node = nodeCommand(session.scenario.sandbox.isolation);
  writeFileSync(shim, `#!/bin/sh\nexec ${JSON.stringify(node)} ${JSON.stringify(BIN)} "$@"\n`);
  chmodSync(shim, 0o755);
  return `${path.join(shared.seen, "bin")}${path.delimiter}${process.env.PATH ?? ""}`;
}
