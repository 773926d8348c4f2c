import { GitGoodError } from "../errors.js";

/** Where a job queue lives: a Redis server and database, and the queue's name there. */
export interface QueueAddress {
  host: string;
  port: number;
  db: number;
  username?: string;
  password?: string;
  /** `rediss://`: the connection is TLS, the server's certificate checked against the system's CAs (and NODE_EXTRA_CA_CERTS). */
  tls: boolean;
  /** The queue's name (`--queue-name`, default DEFAULT_QUEUE_NAME). */
  name: string;
  /** The URL as the user should see it again: without the password. */
  shown: string;
}

export const DEFAULT_QUEUE_NAME = "gitgood";
const DEFAULT_REDIS_PORT = 6379;

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

function bad(text: string, why: string): GitGoodError {
  return new GitGoodError("BAD_OPTION", `--queue ${text} is not a Redis URL (${why}); give redis://HOST:PORT[/DB], or rediss:// for TLS`);
}

/**
 * Reads `--queue redis[s]://[USER:PASSWORD@]HOST[:PORT][/DB]` and `--queue-name`. Anything else (another
 * scheme, a path after the database, query options, a database that is not a small number) is refused
 * in one line, before any connection is tried.
 */
export function parseQueueAddress(text: string, name: string = DEFAULT_QUEUE_NAME): QueueAddress {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw bad(text, "it does not parse");
  }
  if (url.protocol !== "redis:" && url.protocol !== "rediss:") throw bad(text, `the scheme is ${url.protocol.replace(/:$/, "") || "missing"}, not redis or rediss`);
  const tls = url.protocol === "rediss:";
  if (url.hostname === "") throw bad(text, "no host");
  if (url.search !== "" || url.hash !== "") throw bad(text, "options after ? or # are not taken");
  const port = url.port === "" ? DEFAULT_REDIS_PORT : Number(url.port);
  const dbText = url.pathname.replace(/^\//, "");
  if (dbText !== "" && !/^\d{1,4}$/.test(dbText)) throw bad(text, `the database '${dbText}' is not a number`);
  const db = dbText === "" ? 0 : Number(dbText);
  if (!NAME.test(name)) {
    throw new GitGoodError("BAD_OPTION", `--queue-name ${JSON.stringify(name)} is not a queue name (letters, digits, '.', '_', '-'; at most 100)`);
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  return {
    host,
    port,
    db,
    ...(url.username !== "" ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password !== "" ? { password: decodeURIComponent(url.password) } : {}),
    tls,
    name,
    shown: `${tls ? "rediss" : "redis"}://${url.host}/${db}`,
  };
}
