// A private Redis for the queue tests: a real redis-server (BullMQ's Lua scripts need one) on 127.0.0.1, on a
// free port, persistence off, in a temporary directory, stopped after. With GITGOOD_TEST_REDIS_URL set (a
// server CI provides), tests that need no server of their own use that one, each in a database of its own.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

export interface TestRedis {
  /** redis://127.0.0.1:PORT/DB (rediss:// with TLS) */
  url: string;
  port: number;
  /** Stops the server (a private one: a SIGKILL, as a crash) and starts it again on the same port, empty. */
  restart(): Promise<void>;
  /** Stops the private server and removes its directory (nothing for a shared one). */
  stop(): Promise<void>;
}

/** A port no one listens on now (the kernel's pick, closed again). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

/** Resolves once something accepts connections on the port; rejects after `ms` (a deadline) or when `failed()` says so. */
function listening(port: number, failed: () => string | null, ms = 20_000): Promise<void> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const attempt = (): void => {
      const problem = failed();
      if (problem !== null) return reject(new Error(problem));
      const socket = net.connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve();
      });
      socket.once("error", () => {
        socket.destroy();
        if (Date.now() - started > ms) reject(new Error(`redis-server did not listen on port ${port} within ${ms} ms`));
        else setTimeout(attempt, 25);
      });
    };
    attempt();
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

let sharedDb = 0;

/**
 * Starts a private redis-server for a test file (`own: true` always does; the restart test needs its own;
 * so does one with more `args`, redis-server's own options, such as a password or TLS).
 * Otherwise GITGOOD_TEST_REDIS_URL, when set, is used with the next database number of this process.
 */
export async function startRedis(opts: { own?: boolean; args?: readonly string[]; tls?: { cert: string; key: string } } = {}): Promise<TestRedis> {
  const shared = process.env.GITGOOD_TEST_REDIS_URL;
  if (shared && !opts.own && !opts.args && !opts.tls) {
    const base = new URL(shared);
    sharedDb = (sharedDb % 15) + 1;
    const url = `redis://${base.host}/${sharedDb}`;
    return {
      url,
      port: Number(base.port || 6379),
      restart: () => Promise.reject(new Error("a shared Redis cannot be restarted by a test")),
      stop: () => Promise.resolve(),
    };
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), "gitgood-redis-"));
  const port = await freePort();
  let child: ChildProcess | null = null;
  let stderr = "";
  const start = async (): Promise<void> => {
    stderr = "";
    // With TLS the port speaks TLS only (clients show no certificate of their own).
    const listen = opts.tls
      ? ["--port", "0", "--tls-port", String(port), "--tls-cert-file", opts.tls.cert, "--tls-key-file", opts.tls.key, "--tls-auth-clients", "no"]
      : ["--port", String(port)];
    const args = [...listen, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir, "--daemonize", "no", "--protected-mode", "yes", "--loglevel", "warning", ...(opts.args ?? [])];
    const c = spawn("redis-server", args, { stdio: ["ignore", "ignore", "pipe"] });
    c.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
    child = c;
    await listening(port, () => (c.exitCode !== null ? `redis-server exited with ${c.exitCode}: ${stderr.trim()}` : null));
  };
  const kill = async (): Promise<void> => {
    const c = child;
    if (!c) return;
    child = null;
    c.kill("SIGKILL");
    await exited(c);
  };
  await start();
  return {
    url: `${opts.tls ? "rediss" : "redis"}://127.0.0.1:${port}/0`,
    port,
    restart: async () => {
      await kill();
      await start();
    },
    stop: async () => {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
