import { GitGoodError } from "../errors.js";
import type { ServeSource } from "./episode.js";
import { listen, type DoorOptions } from "./http.js";
import { openEnvRoutes } from "./openenv.js";
import { orsRoutes } from "./ors.js";
import { EpisodePool } from "./pool.js";

/** The wire protocols `gitgood serve` speaks. */
export const PROTOCOLS = ["openenv", "ors"] as const;
export type Protocol = (typeof PROTOCOLS)[number];

export interface ServeOptions extends DoorOptions {
  protocol: Protocol;
  source: ServeSource;
  /** Episodes live at once. */
  maxSessions: number;
  /** An episode with no request for this long is ended as disconnected. */
  idleTimeoutSeconds: number;
  /** An episode's wall-clock limit in seconds, set-up included (none when absent). */
  timeLimitSeconds?: number;
  /** Sandboxes set up ahead per sample × scenario (`--warm`). */
  warm?: number;
}

export interface ServeHandle {
  /** http://HOST:PORT */
  url: string;
  /** Ends every live episode (recorded as disconnected) and stops listening. */
  close(): Promise<void>;
  /** The process is being stopped: records every live episode as stopped, synchronously. */
  abandonAll(message: string): void;
  /** Sandboxes set up ahead and not handed out yet. */
  readonly warmCount: number;
}

/**
 * Serves the samples of `source` as a reinforcement-learning environment over `protocol`: every episode
 * an attempt in a fresh sandbox, recorded in the run directory of `source.recorder`.
 */
export async function serveEnvironment(opts: ServeOptions): Promise<ServeHandle> {
  if (opts.source.samples.length === 0) throw new GitGoodError("BAD_OPTION", "there are no samples to serve");
  const pool = new EpisodePool(opts.source, {
    maxSessions: opts.maxSessions,
    idleTimeoutSeconds: opts.idleTimeoutSeconds,
    timeLimitSeconds: opts.timeLimitSeconds,
    warm: opts.warm,
    log: opts.log,
  });
  const routes = opts.protocol === "openenv" ? openEnvRoutes(pool) : orsRoutes(pool);
  const listening = await listen(opts, routes);
  pool.startWarming();
  return {
    url: listening.url,
    async close() {
      routes.closeAll();
      await pool.closeAll("the server was stopped");
      await listening.close();
    },
    abandonAll: (message) => pool.abandonAll(message),
    get warmCount() {
      return pool.warmCount;
    },
  };
}
