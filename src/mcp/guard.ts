import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { GitGoodError } from "../errors.js";
import { at } from "../util/at.js";

/** Who may talk to the HTTP server. */
export interface AccessPolicy {
  /** When set, every request must carry `Authorization: Bearer <token>`. */
  token?: string;
  /** Origins allowed besides the local ones (http(s)://localhost, 127.0.0.1, [::1] on any port). */
  allowedOrigins: readonly string[];
  /** Bound to loopback: the Host header must name a loopback host too (against DNS rebinding). */
  loopback: boolean;
  /**
   * Host names the Host header may name besides loopback ones; when given, a Host header naming any
   * other is refused wherever the server is bound (the A2A green agent: its card URL's host).
   */
  allowedHosts?: readonly string[];
}

interface Denial {
  status: 401 | 403;
  message: string;
  headers?: Record<string, string>;
}

const LOOPBACK_NAMES = new Set(["localhost", "::1", "[::1]"]);

/** True for an address or name that only this machine can reach. */
export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase();
  return LOOPBACK_NAMES.has(h) || /^127(\.\d{1,3}){3}$/.test(h);
}

function hostnameOf(value: string, scheme = "http://"): string | null {
  try {
    return new URL(value.includes("://") ? value : `${scheme}${value}`).hostname;
  } catch {
    return null;
  }
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function sameSecret(given: string, wanted: string): boolean {
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(wanted).digest();
  return timingSafeEqual(a, b);
}

/** A local origin, or one listed. An `Origin: null` (a file page, a sandboxed frame) is not local. */
export function originAllowed(origin: string, allowed: readonly string[]): boolean {
  const o = origin.trim().replace(/\/+$/, "");
  if (allowed.some((a) => a.trim().replace(/\/+$/, "").toLowerCase() === o.toLowerCase())) return true;
  if (!/^https?:\/\//i.test(o)) return false;
  const host = hostnameOf(o);
  return host !== null && isLoopbackHost(host);
}

/** Checks one request's headers; null means it may go on. */
export function checkAccess(headers: IncomingHttpHeaders, policy: AccessPolicy): Denial | null {
  const origin = single(headers.origin);
  if (origin !== undefined && !originAllowed(origin, policy.allowedOrigins)) {
    return { status: 403, message: `origin '${origin}' is not allowed (only local origins, or those given with --allow-origin)` };
  }
  if (policy.loopback || policy.allowedHosts) {
    const host = hostnameOf(single(headers.host) ?? "");
    const listed = host !== null && (policy.allowedHosts ?? []).some((h) => h.toLowerCase() === host.toLowerCase());
    if (host === null || !(isLoopbackHost(host) || listed)) {
      const names = policy.allowedHosts && policy.allowedHosts.length > 0 ? `a loopback host name or ${policy.allowedHosts.join(", ")}` : "a loopback host name";
      return { status: 403, message: `host '${single(headers.host) ?? ""}' is not allowed: this server only answers to ${names}` };
    }
  }
  if (policy.token !== undefined) {
    const auth = single(headers.authorization) ?? "";
    const m = /^Bearer\s+(.+)$/i.exec(auth.trim());
    if (!m || !sameSecret(at(m, 1), policy.token)) {
      return {
        status: 401,
        message: auth ? "the bearer token is wrong" : "a bearer token is required (Authorization: Bearer <token>)",
        headers: { "WWW-Authenticate": 'Bearer realm="gitgood"' },
      };
    }
  }
  return null;
}

/** Binding beyond loopback lets other machines connect: only with a bearer token (`how` says where one is given). */
export function requireTokenBeyondLoopback(host: string, token: string | undefined, how = "--token (or GITGOOD_MCP_TOKEN)"): void {
  if (!isLoopbackHost(host) && !token) {
    throw new GitGoodError("BAD_OPTION", `binding to ${host} lets other machines connect: give ${how}, or bind to 127.0.0.1`);
  }
}
