import { Command } from "commander";
import { GitGoodError } from "../errors.js";
import { distinctRunDirs } from "../export/attempts.js";
import { requireTokenBeyondLoopback } from "../mcp/guard.js";
import { RunStore } from "../runs/store.js";
import { RunSet } from "../view/data.js";
import { serveViewer } from "../view/server.js";
import type { CliIO } from "./io.js";

interface ViewFlags {
  port: string;
  host: string;
  token?: string;
}

/** The viewer's token variable, for a token that must not show in the process list. */
const VIEW_TOKEN_ENV = "GITGOOD_VIEW_TOKEN";

export function viewCommand(io: CliIO): Command {
  return new Command("view")
    .description("serve a local, read-only web viewer over run directories (live while a run writes): summary, samples, transcripts, comparison")
    .argument("<run-dir...>", "directories written by 'gitgood run'")
    .option("--port <n>", "port to listen on (0: a free one)", "0")
    .option("--host <addr>", "address to bind to; not loopback requires --token", "127.0.0.1")
    .option("--token <token>", `the secret in the viewer's address (or set ${VIEW_TOKEN_ENV}; default: a random one)`)
    .action(async (dirs: string[], flags: ViewFlags) => {
      const port = Number(flags.port);
      if (!/^\d+$/.test(flags.port) || port > 65535) throw new GitGoodError("BAD_OPTION", `--port takes a port number (0 to 65535), not '${flags.port}'`);
      const token = flags.token ?? (process.env[VIEW_TOKEN_ENV] || undefined);
      if (token !== undefined && token.length < 16) throw new GitGoodError("BAD_OPTION", "--token must be at least 16 characters long");
      requireTokenBeyondLoopback(flags.host, token);
      distinctRunDirs(dirs);
      for (const d of dirs) RunStore.readConfig(d);
      const handle = await serveViewer({ runs: new RunSet(dirs), host: flags.host, port, token });
      io.stderr.write(`gitgood view: serving ${dirs.length} run(s); open ${handle.url}\n(stop with Ctrl-C)\n`);
      io.stdout.write(`${handle.url}\n`);
      await new Promise<void>((resolve) => {
        if (io.signal?.aborted) return resolve();
        io.signal?.addEventListener("abort", () => resolve(), { once: true });
        if (io.ownsProcess) for (const s of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.once(s, () => resolve());
      });
      await handle.close();
    });
}
