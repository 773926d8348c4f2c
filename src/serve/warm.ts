import type { Sample } from "../dataset/sample.js";
import { GitGoodError, toGitGoodError } from "../errors.js";
import type { Attempt, ClientInfo } from "../mcp/attempt.js";
import { scenariosFor } from "../scenarios/index.js";
import { setUpAttempt, type ServeSource } from "./episode.js";

/** Sandboxes set up at once while filling the pool (the machine's other work goes on meanwhile). */
const BUILDS_AT_ONCE = 2;

interface Ready {
  attempt: Attempt;
  /** Tells the attempt who its client is, once it is handed out. */
  handTo: (client: () => ClientInfo | null) => void;
}

interface Wanted {
  sample: Sample;
  scenario: string;
}

const slot = (sampleId: string, scenario: string): string => `${sampleId}\n${scenario}`;

/**
 * `--warm N`: N sandboxes per sample × scenario set up before any client asks, each handed out once and
 * never again. A sandbox an agent has worked in is removed when its episode ends, never reset and reused:
 * its git directory was the agent's to write (hooks, config, objects), and gitgood never runs git on the
 * host against one. Each sandbox handed out is replaced in the background; a sample whose set-up fails
 * is not warmed again (its episodes are set up when asked, and fail there with the error).
 */
export class WarmPool {
  private readonly ready = new Map<string, Ready[]>();
  private readonly queue: Wanted[] = [];
  private readonly running = new Set<Promise<void>>();
  private readonly failed = new Set<string>();
  private stopped = false;

  constructor(
    private readonly source: ServeSource,
    private readonly size: number,
    private readonly log: (line: string) => void,
  ) {}

  /** Sandboxes ready to hand out. */
  get count(): number {
    let n = 0;
    for (const list of this.ready.values()) n += list.length;
    return n;
  }

  /** Asks for `size` sandboxes of every sample × scenario. */
  fillAll(): void {
    if (this.size === 0) return;
    for (const sample of this.source.samples) {
      for (const def of scenariosFor(sample)) for (let i = 0; i < this.size; i++) this.queue.push({ sample, scenario: def.name });
    }
    this.log(`warming ${this.queue.length} sandbox(es): ${this.size} per sample × scenario`);
    this.pump();
  }

  /** A ready sandbox of this sample × scenario for `client`, never handed out before (a replacement is set up), or null. */
  take(sample: Sample, scenario: string, client: () => ClientInfo | null): Attempt | null {
    const list = this.ready.get(slot(sample.id, scenario));
    const got = list?.shift();
    if (!got) return null;
    got.handTo(client);
    if (!this.failed.has(slot(sample.id, scenario))) {
      this.queue.push({ sample, scenario });
      this.pump();
    }
    return got.attempt;
  }

  private pump(): void {
    while (!this.stopped && this.running.size < BUILDS_AT_ONCE) {
      const wanted = this.queue.shift();
      if (!wanted) return;
      const build = this.build(wanted).finally(() => {
        this.running.delete(build);
        this.pump();
        if (!this.stopped && this.running.size === 0) this.log(`warm: ${this.count} sandbox(es) ready`);
      });
      this.running.add(build);
    }
  }

  private async build({ sample, scenario }: Wanted): Promise<void> {
    const where = slot(sample.id, scenario);
    if (this.failed.has(where)) return;
    let client: () => ClientInfo | null = () => null;
    try {
      // Numbered when handed out (Attempt.handOut): a sandbox never handed out takes no repeat of the run.
      const attempt = await setUpAttempt(this.source, sample, scenario, 0, () => client());
      if (this.stopped) {
        removeUnused(attempt);
        return;
      }
      const list = this.ready.get(where) ?? [];
      list.push({ attempt, handTo: (c) => (client = c) });
      this.ready.set(where, list);
    } catch (err) {
      this.failed.add(where);
      this.log(`warming ${sample.id} (${scenario}) failed, its episodes are set up when asked: ${toGitGoodError(err).message}`);
    }
  }

  /** Stops filling, waits for the set-ups under way and removes every sandbox not handed out. */
  async close(): Promise<void> {
    this.stopped = true;
    this.queue.length = 0;
    await Promise.all([...this.running]);
    this.closeNow();
  }

  /** Removes every ready sandbox at once, synchronously (the process is being stopped). */
  closeNow(): void {
    this.stopped = true;
    for (const list of this.ready.values()) for (const r of list.splice(0)) removeUnused(r.attempt);
  }
}

/** Removes the sandbox of an attempt no client was given: nothing is recorded for it. */
function removeUnused(attempt: Attempt): void {
  attempt.abandon(new GitGoodError("SERVER_STOPPED", "gitgood serve stopped before handing this sandbox out"), "stopped");
}
