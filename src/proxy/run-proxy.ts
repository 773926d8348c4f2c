import type { ModelProxy, ProxyOptions } from "./server.js";

/**
 * The model proxy of one run, started when the first external agent attempt needs it and closed with the
 * run: the CLI makes one per run and hands it to the agent it builds. The server's code (an HTTP and HTTPS
 * client and server) is loaded when it starts, so a run whose agents ask no model through it never loads it.
 */
export class RunProxy {
  private started: Promise<ModelProxy> | null = null;

  constructor(readonly options: ProxyOptions) {}

  /** The run's proxy, started by the first call. */
  proxy(): Promise<ModelProxy> {
    this.started ??= import("./server.js").then(({ ModelProxy }) => ModelProxy.start(this.options));
    return this.started;
  }

  /** Closes the proxy, if it was started. */
  async close(): Promise<void> {
    const started = this.started;
    this.started = null;
    if (started) await (await started).close().catch(() => undefined);
  }
}
