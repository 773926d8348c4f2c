// The recording model proxy external agents talk to (see server.ts), and where its jail-side forwarder is.
import { fileURLToPath } from "node:url";

export type { ApiKind, TurnReply, TurnUsage, UpstreamFamily } from "./api.js";
// The server and its API routes (node:http and node:https with them) are loaded when a run's proxy starts, by run-proxy.ts: import them from server.js and api.js.
export type { ModelProxy, ProxyAttempt, ProxyOptions, ProxyRecorder, Upstream } from "./server.js";
export { RECORD_MODEL_IO, type RecordModelIo } from "./types.js";
export { upstreamsFromEnv } from "./upstreams.js";
export { RunProxy } from "./run-proxy.js";

/** The forwarder script a jailed agent's wrapper starts: the compiled one in dist/ (also when this module runs from src/, in tests). */
export const FORWARDER = fileURLToPath(new URL("../../dist/proxy/forwarder.js", import.meta.url));
