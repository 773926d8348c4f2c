import type { ModelOptions } from "../model/lookup.js";
import { RunProxy, upstreamsFromEnv, type RecordModelIo, type Upstream, type UpstreamFamily } from "../proxy/index.js";

/**
 * A worker process's recording model proxies, as a local run has one: external agents and CLI-agent presets
 * reach their model through it, each attempt with a key of its own, and the proxy sends their requests on
 * with the user's key from this worker's own environment (OPENAI_/ANTHROPIC_ BASE_URL and API_KEY), never
 * one carried in Redis. Runs whose tickets ask models differently (what is recorded, the shared connection
 * limit, the response cache) get a proxy each; a proxy starts with the first attempt that needs it.
 */
export class WorkerProxies {
  private readonly proxies = new Map<string, RunProxy>();

  constructor(private readonly upstreams: Partial<Record<UpstreamFamily, Upstream>> = upstreamsFromEnv()) {}

  /** The proxy for tickets recorded as `record` and asked with `models` (`tag` names those settings: one proxy per tag). */
  for(tag: string, record: RecordModelIo, models: ModelOptions): RunProxy {
    const key = `${record} ${tag}`;
    let proxy = this.proxies.get(key);
    if (!proxy) {
      proxy = new RunProxy({ upstreams: this.upstreams, cache: models.cache, connections: models.connections, record });
      this.proxies.set(key, proxy);
    }
    return proxy;
  }

  async close(): Promise<void> {
    const all = [...this.proxies.values()];
    this.proxies.clear();
    await Promise.all(all.map((p) => p.close()));
  }
}
