import { randomBytes } from "node:crypto";
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ensureSandboxRoot, sandboxRoot } from "../sandbox/root.js";
import { removeAtExit } from "../util/cleanup.js";

/** A fresh bearer token for a server started without one. */
function generateToken(): string {
  return randomBytes(24).toString("base64url");
}

/** The servers that write their token to a file: `gitgood mcp --http`, `gitgood a2a serve|agent` and `gitgood serve`. */
export type TokenServer = "mcp" | "a2a" | "serve";

/**
 * Where the token of the HTTP server on `port` is written: the user's own gitgood directory (the
 * sandbox root: `$XDG_RUNTIME_DIR/gitgood` or `<tmp>/gitgood-<uid>`, mode 0700), `<server>-<port>.token`.
 */
function tokenFile(port: number, server: TokenServer): string {
  return path.join(ensureSandboxRoot(sandboxRoot()), `${server}-${port}.token`);
}

/** Writes `token` to its file, readable by the user alone (0600, a file made afresh); it is removed when the process ends. */
function writeTokenFile(port: number, token: string, server: TokenServer = "mcp"): string {
  const file = tokenFile(port, server);
  rmSync(file, { force: true });
  writeFileSync(file, `${token}\n`, { mode: 0o600, flag: "wx" });
  removeAtExit(file);
  return file;
}

/**
 * The bearer token of an HTTP server: the one given, else a fresh one. A fresh one is said once, with
 * `announce`, once the server listens: on stderr and in its 0600 file (which `announce` returns).
 */
export function serverToken(given: string | undefined, server: TokenServer): { token: string; announce: (port: number, log: (line: string) => void) => string | null } {
  if (given !== undefined) return { token: given, announce: () => null };
  const token = generateToken();
  return {
    token,
    announce(port, log) {
      const file = writeTokenFile(port, token, server);
      log(`token ${token} (also in ${file}); every request must carry Authorization: Bearer <token>`);
      return file;
    },
  };
}
