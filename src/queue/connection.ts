import type { RedisOptions } from "bullmq";
import { isIP } from "node:net";
import { Redis } from "ioredis";
import { GitGoodError } from "../errors.js";
import type { QueueAddress } from "./url.js";

/** How long the first connection may take before the server counts as unreachable. */
const CONNECT_TIMEOUT_MS = 5000;

/**
 * The connection options of a long-lived client (BullMQ's queue and worker, the shared limit): commands
 * wait while the server is away and the client reconnects for as long as it takes (a restarted Redis).
 */
export function connectionOptions(address: QueueAddress): RedisOptions {
  return {
    host: address.host,
    port: address.port,
    db: address.db,
    ...(address.username !== undefined ? { username: address.username } : {}),
    ...(address.password !== undefined ? { password: address.password } : {}),
    // The certificate is checked (Node's default): a server that cannot show one for the host is refused.
    ...(address.tls ? { tls: isIP(address.host) === 0 ? { servername: address.host } : {} } : {}),
    connectTimeout: CONNECT_TIMEOUT_MS,
    // BullMQ's blocking commands need this; a command issued while the server is away waits for it.
    maxRetriesPerRequest: null,
    retryStrategy: (times: number) => Math.min(100 * times, 2000),
  };
}

/** The reason a connection failed, as a short phrase (the errno code when there is one). */
function reasonOf(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === "string") return code;
  const message = err instanceof Error ? err.message : String(err);
  return message.split("\n")[0] ?? message;
}

/**
 * Connects once and asks the server for PONG: an unreachable server, a wrong password or a database it
 * does not have stops the command here with one line, before anything is written. Returns a client
 * that reconnects from now on; the caller closes it.
 */
export async function connectRedis(address: QueueAddress): Promise<Redis> {
  const client = new Redis({ ...connectionOptions(address), lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0, enableOfflineQueue: false });
  // The socket's error (ECONNREFUSED, say) says more than the "Connection is closed" connect() rejects with.
  let cause: unknown = null;
  client.on("error", (err) => (cause ??= err));
  try {
    await client.connect();
    await client.ping();
  } catch (err) {
    client.disconnect();
    throw new GitGoodError("QUEUE_UNREACHABLE", `cannot reach the queue's Redis at ${address.shown}: ${reasonOf(cause ?? err)}`, { url: address.shown });
  }
  client.disconnect();
  const live = new Redis(connectionOptions(address));
  live.on("error", () => undefined);
  return live;
}
