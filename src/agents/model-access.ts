import path from "node:path";
import { FORWARDER, type ProxyAttempt, type RunProxy } from "../proxy/index.js";
import { isolates, nodeCommand } from "../sandbox/isolation.js";
import { shellQuote } from "./mcp-config.js";
import type { Session } from "./agent.js";

/** The directory of the attempt's tool broker: where gitgood writes it (`host`), and where the agent program sees it (`seen`). */
export interface SharedDir {
  host: string;
  seen: string;
  /** The tool socket as the program sees it. */
  socket: string;
}

/** The name of the proxy's Unix socket in an attempt's broker directory. */
const SOCKET = "model.sock";

/** How an agent program reaches the model: the environment it gets, a shell prelude to run first, and the attempt to close after. */
export interface ModelAccess {
  /** Base URL as the agent sees it, without `/v1`. */
  url: string;
  key: string;
  env: Record<string, string>;
  /** Shell lines run before the agent's command (in a jail: start the forwarder and wait for it). */
  prelude: string;
  attempt: ProxyAttempt;
}

/** The variables that point an agent program at the proxy, under the names each API's own SDKs and CLIs read. */
function proxyEnv(url: string, key: string): Record<string, string> {
  return {
    OPENAI_BASE_URL: `${url}/v1`,
    OPENAI_API_KEY: key,
    ANTHROPIC_BASE_URL: url,
    ANTHROPIC_API_KEY: key,
    // Google's Gen AI SDKs and gemini-cli: the base URL without a version (they add /v1beta/models/…).
    GOOGLE_GEMINI_BASE_URL: url,
    GEMINI_API_KEY: key,
    GITGOOD_MODEL_URL: url,
    GITGOOD_MODEL_KEY: key,
    NO_PROXY: "127.0.0.1,localhost",
    no_proxy: "127.0.0.1,localhost",
  };
}

/**
 * Opens the attempt's way to the model through the run's proxy. A program without a jail, or with the
 * network (`--network`), reaches the proxy on 127.0.0.1 directly. A jailed program has a network namespace
 * of its own with only loopback: the proxy listens on a Unix socket in the attempt's broker directory (which
 * the jail shows read-only), and the prelude starts the forwarder there, on the same port of the jail's own
 * loopback, before the agent runs. A variable the user passes to agents by name (`--pass-env`) is left as given.
 */
export async function openModelAccess(session: Session, proxy: RunProxy, shared: SharedDir): Promise<ModelAccess> {
  const server = await proxy.proxy();
  const sandbox = session.scenario.sandbox;
  const iso = sandbox.isolation;
  const jailed = isolates(iso) && !iso.network;
  const attempt = await server.attempt(session, session.signal, jailed ? path.join(shared.host, SOCKET) : undefined);
  const url = `http://127.0.0.1:${attempt.port}`;
  const env = Object.fromEntries(Object.entries(proxyEnv(url, attempt.key)).filter(([name]) => !iso.passEnv.includes(name)));
  let prelude = "";
  if (jailed) {
    const ready = '"${TMPDIR:-/tmp}/.gitgood-model-ready"';
    const log = '"${TMPDIR:-/tmp}/.gitgood-model-forwarder.log"';
    const argv = [nodeCommand(iso), FORWARDER, String(attempt.port), path.join(shared.seen, SOCKET)].map(shellQuote).join(" ");
    prelude = [
      `${argv} ${ready} </dev/null >/dev/null 2>${log} &`,
      "gitgood_forwarder=$!",
      `while [ ! -e ${ready} ]; do kill -0 "$gitgood_forwarder" 2>/dev/null || { echo "gitgood: the model proxy's forwarder did not start: $(cat ${log})" >&2; exit 1; }; sleep 0.01; done`,
      "",
    ].join("\n");
  }
  return { url, key: attempt.key, env, prelude, attempt };
}
