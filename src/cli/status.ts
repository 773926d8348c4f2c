import { Command } from "commander";
import { identityHash, queueIdentity } from "../queue/jobs.js";
import { formatStatus, queueStatus } from "../queue/status.js";
import { DEFAULT_QUEUE_NAME, parseQueueAddress } from "../queue/url.js";
import { RunStore } from "../runs/store.js";
import { escapeControls } from "../util/escape.js";
import type { CliIO } from "./io.js";

interface StatusFlags {
  queue: string;
  queueName: string;
  json: boolean;
}

export function statusCommand(io: CliIO): Command {
  return new Command("status")
    .description("a queue's progress: waiting, active, completed and failed jobs, and each worker's rate (with RUN-DIR: what it has recorded)")
    .argument("[run-dir]", "the run directory of the queue's run")
    .requiredOption("--queue <url>", "the queue's Redis: redis://HOST:PORT[/DB]")
    .option("--queue-name <name>", "the queue's name on that server", DEFAULT_QUEUE_NAME)
    .option("--json", "print the status as JSON", false)
    .action(async (dir: string | undefined, flags: StatusFlags) => {
      const address = parseQueueAddress(flags.queue, flags.queueName);
      const run = dir === undefined ? null : RunStore.read(dir);
      const status = await queueStatus(address);
      const recorded = run === null ? null : run.records.length;
      const other = run !== null && status.run !== null && status.run !== identityHash(queueIdentity(run.config.identity));
      if (flags.json) {
        io.stdout.write(`${JSON.stringify({ ...status, recorded, ...(run !== null ? { holds_this_run: status.run !== null && !other } : {}) }, null, 2)}\n`);
        return;
      }
      io.stdout.write(`${escapeControls(formatStatus(status, recorded))}\n`);
      if (other) io.stdout.write(`(the queue holds another run than ${dir})\n`);
    });
}
