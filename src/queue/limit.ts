import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { abortedError } from "../model/abort.js";
import type { RequestLimit } from "../model/connections.js";

/** How long a held connection counts without being renewed: a worker killed while holding one frees it after this. */
const LEASE_MS = 30_000;

/**
 * Takes a slot when fewer than ARGV[2] unexpired holders are in the sorted set KEYS[1] (score: the
 * lease's end on the server's clock). Returns 1 when taken.
 */
const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
  redis.call('PEXPIRE', KEYS[1], 2 * tonumber(ARGV[3]))
  return 1
end
return 0
`;

/** Extends a held slot's lease (XX: a slot already lost to expiry is not taken back). */
const RENEW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], 2 * tonumber(ARGV[2]))
return 1
`;

/** Waits `ms`, or less when `signal` aborts. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

/**
 * `--max-connections` across machines: at most `max` model requests in flight among every worker of a
 * queue, held in a Redis sorted set of leases. A waiting request polls (25 ms, growing to 250 ms); a
 * held slot is renewed while its request runs, and one whose holder died frees itself when its lease
 * runs out.
 */
export class SharedConnectionLimit implements RequestLimit {
  constructor(
    private readonly redis: Redis,
    private readonly key: string,
    readonly max: number,
    private readonly leaseMs = LEASE_MS,
  ) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`a connection limit must be a whole number of at least 1, not ${max}`);
  }

  async run<T>(work: () => Promise<T>, signal: AbortSignal | undefined, model: string): Promise<T> {
    const token = randomUUID();
    let wait = 25;
    for (;;) {
      if (signal?.aborted) throw abortedError(model);
      const taken = await this.redis.eval(ACQUIRE, 1, this.key, token, this.max, this.leaseMs);
      if (taken === 1) break;
      await pause(wait + Math.floor(Math.random() * wait), signal);
      wait = Math.min(250, wait * 2);
    }
    const renew = setInterval(() => {
      this.redis.eval(RENEW, 1, this.key, token, this.leaseMs).catch(() => undefined);
    }, Math.max(1000, Math.floor(this.leaseMs / 3)));
    renew.unref();
    try {
      return await work();
    } finally {
      clearInterval(renew);
      await this.redis.zrem(this.key, token).catch(() => undefined);
    }
  }
}
