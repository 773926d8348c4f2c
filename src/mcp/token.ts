import { randomBytes } from "node:crypto";
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ensureSandboxRoot, sandboxRoot } from "../sandbox/root.js";
import { removeAtExit } from "../util/cleanup.js";

/** A fresh bearer token for a server started without one. */
export function generateToken(): string {
  return randomBytes(24).toString("base64url");
}

/**
 * Where the token of the HTTP server on `port` is written: the user's own gitgood directory (the
 * sandbox root: `$XDG_RUNTIME_DIR/gitgood` or `<tmp>/gitgood-<uid>`, mode 0700), `mcp-<port>.token`.
 */
function tokenFile(port: number): string {
  return path.join(ensureSandboxRoot(sandboxRoot()), `mcp-${port}.token`);
}

/** Writes `token` to its file, readable by the user alone (0600, a file made afresh); it is removed when the process ends. */
export function writeTokenFile(port: number, token: string): string {
  const file = tokenFile(port);
  rmSync(file, { force: true });
  writeFileSync(file, `${token}\n`, { mode: 0o600, flag: "wx" });
  removeAtExit(file);
  return file;
}
