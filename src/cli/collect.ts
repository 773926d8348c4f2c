import { Command } from "commander";
import { failedSettled } from "../queue/executor.js";
import { queueIdentity } from "../queue/jobs.js";
import { RunQueue } from "../queue/producer.js";
import { queueSecret } from "../queue/secret.js";
import { DEFAULT_QUEUE_NAME, parseQueueAddress } from "../queue/url.js";
import { lockRunDir } from "../runs/run-lock.js";
import { RunStore } from "../runs/store.js";
import { RunWriter } from "../runs/writer.js";
import type { CliIO } from "./io.js";

interface CollectFlags {
  queue: string;
  queueName: string;
  spillDir?: string;
  secretFile?: string;
}

export function collectCommand(io: CliIO): Command {
  return new Command("collect")
    .description("write the finished jobs of a queue into their run directory (when the producer of 'gitgood run --queue' is gone)")
    .argument("<run-dir>", "the run directory 'gitgood run --queue' made")
    .requiredOption("--queue <url>", "the queue's Redis: redis://HOST:PORT[/DB]")
    .option("--queue-name <name>", "the queue's name on that server", DEFAULT_QUEUE_NAME)
    .option("--spill-dir <dir>", "where this machine sees the workers' --spill-dir; the only place a spilled trajectory is read from")
    .option("--secret-file <file>", "the file holding the secret the producer and workers share (default: $GITGOOD_QUEUE_SECRET); results not signed with it are refused")
    .action(async (dir: string, flags: CollectFlags) => {
      const address = parseQueueAddress(flags.queue, flags.queueName);
      const secret = queueSecret(flags.secretFile);
      const config = RunStore.readConfig(dir);
      const queue = await RunQueue.open(address, queueIdentity(config.identity), { secret, spillDir: flags.spillDir ?? null });
      const unlock = lockRunDir(dir);
      try {
        const writer = new RunWriter(RunStore.openExisting(dir));
        const taken = await queue.collect({
          write: (s) => void writer.write(s),
          failed: async (data, error) => void writer.write(await failedSettled(data, error)),
        });
        await queue.release();
        io.stderr.write(`collected ${taken.length} finished job(s) of the queue ${address.name} into ${dir}\n`);
      } finally {
        unlock();
        await queue.close();
      }
    });
}
