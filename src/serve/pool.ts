import { randomUUID } from "node:crypto";
import type { Sample } from "../dataset/sample.js";
import { GitGoodError, toGitGoodError } from "../errors.js";
import type { Attempt, ClientInfo } from "../mcp/attempt.js";
import { attemptKey } from "../runs/result.js";
import { chooseScenario } from "../scenarios/index.js";
import { Episode, nextRepeat, setUpAttempt, type EpisodeChoice, type ServeSource } from "./episode.js";
import { WarmPool } from "./warm.js";

export interface PoolOptions {
  /** Episodes that may be live at once (each holds a sandbox). */
  maxSessions: number;
  /** An episode with no request for this long is ended as disconnected. */
  idleTimeoutSeconds: number;
  /** An episode's wall-clock limit in seconds, counted from the client's ask (set-up included); none when absent. */
  timeLimitSeconds?: number;
  /** Sandboxes kept set up ahead of the clients per sample × scenario (0: every episode is set up when asked). */
  warm?: number;
  log: (line: string) => void;
}

interface Live {
  episode: Episode;
  lastSeen: number;
}

/**
 * The live episodes of a server: set up on request up to the cap, found by id, ended by the client,
 * by the idle sweep or when the server stops (an episode that ended by an action stays readable until
 * then). Every ended episode is recorded by the episode itself.
 */
export class EpisodePool {
  private readonly live = new Map<string, Live>();
  /** Episodes being set up: they count against the cap and hold their attempt key. */
  private readonly opening = new Map<string, string>();
  private next = 0;
  private readonly sweep: NodeJS.Timeout;
  private readonly settling = new Set<Promise<void>>();
  private readonly warm: WarmPool;

  constructor(
    readonly source: ServeSource,
    private readonly opts: PoolOptions,
  ) {
    const idleMs = opts.idleTimeoutSeconds * 1000;
    this.sweep = setInterval(() => this.closeIdle(idleMs), Math.max(200, Math.min(30_000, idleMs / 2)));
    this.sweep.unref();
    this.warm = new WarmPool(source, opts.warm ?? 0, opts.log);
  }

  /** Sets the warm pool up in the background (nothing when --warm is 0). */
  startWarming(): void {
    this.warm.fillAll();
  }

  /** Sandboxes set up ahead and not handed out yet (for the bench and the tests). */
  get warmCount(): number {
    return this.warm.count;
  }

  /** The attempt keys taken: live episodes' and those being set up. */
  private heldKeys(): Set<string> {
    return new Set([...[...this.live.values()].map((l) => l.episode.key), ...this.opening.values()]);
  }

  /** Episodes that hold a sandbox: those being set up and those not ended yet. */
  get size(): number {
    return [...this.live.values()].filter((l) => !l.episode.done).length + this.opening.size;
  }

  get maxSessions(): number {
    return this.opts.maxSessions;
  }

  /** The sample and scenario a choice names; a wrong sample id or scenario fails with one line. */
  pick(choice: EpisodeChoice): { sample: Sample; scenario: string } {
    const { samples } = this.source;
    let sample: Sample | undefined;
    if (choice.sampleId !== undefined) {
      sample = samples.find((s) => s.id === choice.sampleId);
      if (!sample) throw new GitGoodError("UNKNOWN_SAMPLE", `there is no sample '${choice.sampleId}' in split ${this.source.split}`);
    } else if (choice.seed !== undefined) {
      sample = samples[choice.seed % samples.length];
    } else {
      sample = samples[this.next++ % samples.length];
    }
    if (!sample) throw new GitGoodError("UNKNOWN_SAMPLE", `split ${this.source.split} has no samples`);
    return { sample, scenario: chooseScenario(sample, choice.scenario).name };
  }

  /** Sets a new episode up in a fresh sandbox; refused with CAPACITY_REACHED at the cap. */
  async open(choice: EpisodeChoice, client: () => ClientInfo | null, id?: string): Promise<Episode> {
    if (id !== undefined && (this.live.has(id) || this.opening.has(id))) {
      throw new GitGoodError("EPISODE_EXISTS", `episode ${id} is live already`);
    }
    if (this.size >= this.opts.maxSessions) {
      throw new GitGoodError("CAPACITY_REACHED", `${this.size} episodes are live, the most this server runs at once (--max-sessions ${this.opts.maxSessions})`);
    }
    const asked = new Date();
    const { sample, scenario } = this.pick(choice);
    const repeat = nextRepeat(this.source.recorder, this.heldKeys(), sample, scenario);
    const ticket = id ?? randomUUID();
    this.opening.set(ticket, attemptKey(sample.id, scenario, false, repeat));
    try {
      const warm = this.warm.take(sample, scenario, client);
      const attempt: Attempt = warm ?? (await setUpAttempt(this.source, sample, scenario, repeat, client));
      attempt.handOut(repeat, asked);
      const episode = Episode.of(attempt, id);
      this.live.set(episode.id, { episode, lastSeen: Date.now() });
      this.opts.log(`episode ${episode.id} opened: ${episode.key}${warm ? " (warm sandbox)" : ""}`);
      const limit = this.opts.timeLimitSeconds;
      if (limit !== undefined) await episode.limitTo(asked.getTime() + limit * 1000, limit);
      return episode;
    } finally {
      this.opening.delete(ticket);
    }
  }

  /** A live episode by id (its idle clock restarts), or null. */
  get(id: string): Episode | null {
    const l = this.live.get(id);
    if (!l) return null;
    l.lastSeen = Date.now();
    return l.episode;
  }

  /** Restarts an episode's idle clock (a WebSocket session's request). */
  touch(episode: Episode): void {
    const l = this.live.get(episode.id);
    if (l) l.lastSeen = Date.now();
  }

  /** Ends an episode and forgets it: recorded as disconnected when it had not ended by an action. */
  async close(id: string, how: string): Promise<void> {
    const l = this.live.get(id);
    if (!l) return;
    this.live.delete(id);
    const done = l.episode.close(how).catch((err: unknown) => this.opts.log(`closing episode ${id} failed: ${toGitGoodError(err).message}`));
    this.settling.add(done);
    await done.finally(() => this.settling.delete(done));
    this.opts.log(`episode ${id} closed`);
  }

  private closeIdle(idleMs: number): void {
    const now = Date.now();
    for (const [id, l] of this.live) {
      if (now - l.lastSeen > idleMs) void this.close(id, `the client sent no request for ${this.opts.idleTimeoutSeconds} s`);
    }
  }

  /** Ends every live episode (recorded as disconnected) and stops the idle sweep. */
  async closeAll(how: string): Promise<void> {
    clearInterval(this.sweep);
    await this.warm.close();
    await Promise.all([...this.live.keys()].map((id) => this.close(id, how)));
    await Promise.all([...this.settling]);
  }

  /** The process is being stopped: records every live episode as stopped, synchronously. */
  abandonAll(message: string): void {
    clearInterval(this.sweep);
    this.warm.closeNow();
    for (const l of this.live.values()) l.episode.abandonNow(message);
  }
}
