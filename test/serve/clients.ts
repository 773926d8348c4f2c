import { randomBytes } from "node:crypto";
import { request } from "node:http";
import type { Socket } from "node:net";
import { Readable } from "node:stream";
import { main } from "../../src/cli/main.js";
import { captureSink, setEnv } from "../helpers/cli.js";
import { sandboxVars } from "../helpers/mcp.js";

// Clients written from the protocols' published shapes (OpenEnv 0.2.3's http_server.py and types.py; ORS
// python-sdk 0.1.0's server.py, types.py and client/_http.py), not from gitgood's server code.

export const TEST_SERVE_TOKEN = "serve-test-token";
export const AUTH = { Authorization: `Bearer ${TEST_SERVE_TOKEN}` };

export interface Served {
  url: string;
  stderr: () => string;
  stop: () => Promise<number>;
}

/** Runs `gitgood serve ARGS` in this process (token TEST_SERVE_TOKEN) until `stop`, once it says where it listens. */
export async function serveInProcess(args: string[], sandboxRoot: string): Promise<Served> {
  const controller = new AbortController();
  let listening!: (url: string) => void;
  const url = new Promise<string>((resolve) => (listening = resolve));
  const stderr = captureSink(() => {
    const m = /listening on (http:\/\/\S+)/.exec(stderr.text());
    if (m) listening(m[1] as string);
  });
  const restoreEnv = setEnv({ ...sandboxVars(sandboxRoot), GITGOOD_SERVE_TOKEN: TEST_SERVE_TOKEN });
  const done = main(["serve", ...args], { stdout: captureSink(), stderr, stdin: Readable.from([]), signal: controller.signal }).finally(restoreEnv);
  const early = done.then((code) => Promise.reject(new Error(`serve exited with ${code} before listening: ${stderr.text()}`)));
  return {
    url: await Promise.race([url, early]),
    stderr: stderr.text,
    stop: () => {
      controller.abort();
      return done;
    },
  };
}

export interface Json {
  status: number;
  body: Record<string, unknown>;
}

export async function postJson(url: string, body: unknown, headers: Record<string, string> = AUTH): Promise<Json> {
  const r = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: JSON.stringify(body) });
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
}

export async function getJson(url: string, headers: Record<string, string> = AUTH): Promise<{ status: number; body: unknown }> {
  const r = await fetch(url, { headers });
  return { status: r.status, body: await r.json() };
}

/** An OpenEnv StepResponse as the client reads it. */
export interface StepReply {
  observation: Record<string, unknown>;
  reward: number | null;
  done: boolean;
}

/** The text of a CallToolObservation: its MCP result's text content, or its error's message. */
export function observedText(obs: Record<string, unknown>): string {
  const result = obs.result as { content?: { text?: string }[] } | null;
  const error = obs.error as { message?: string } | null;
  return [...(result?.content ?? []).map((c) => c.text ?? ""), error?.message ?? ""].join("\n");
}

/** A minimal RFC 6455 client: masked text frames out, unmasked frames in, over one upgraded socket. */
export class WsClient {
  private buffer = Buffer.alloc(0);
  private readonly messages: string[] = [];
  private waiters: (() => void)[] = [];
  closed = false;
  private sentClose = false;
  closeCode: number | null = null;

  private constructor(private readonly socket: Socket) {
    socket.on("data", (b: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, b]);
      this.parse();
    });
    socket.on("close", () => {
      this.closed = true;
      this.wake();
    });
  }

  /** Opens `ws://…/ws`; rejects with the HTTP status when the server refuses the handshake. */
  static connect(httpUrl: string, headers: Record<string, string> = AUTH): Promise<WsClient> {
    const url = new URL("/ws", httpUrl);
    const key = randomBytes(16).toString("base64");
    return new Promise((resolve, reject) => {
      const req = request(url, { headers: { Connection: "Upgrade", Upgrade: "websocket", "Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": key, ...headers } });
      req.on("upgrade", (_res, socket: Socket, head: Buffer) => {
        const client = new WsClient(socket);
        if (head.length > 0) socket.emit("data", head);
        resolve(client);
      });
      req.on("response", (res) => {
        res.resume();
        reject(new Error(`handshake refused: ${res.statusCode ?? 0}`));
      });
      req.on("error", reject);
      req.end();
    });
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  private parse(): void {
    for (;;) {
      const b = this.buffer;
      if (b.length < 2) return;
      const opcode = (b[0] as number) & 0x0f;
      let len = (b[1] as number) & 0x7f;
      let off = 2;
      if (len === 126) {
        if (b.length < 4) return;
        len = b.readUInt16BE(2);
        off = 4;
      } else if (len === 127) {
        if (b.length < 10) return;
        len = Number(b.readBigUInt64BE(2));
        off = 10;
      }
      if (b.length < off + len) return;
      const payload = b.subarray(off, off + len);
      this.buffer = b.subarray(off + len);
      if (opcode === 0x1) this.messages.push(payload.toString("utf8"));
      if (opcode === 0x8) {
        // The closing handshake: answer the server's close frame with one of our own.
        this.closeCode = payload.length >= 2 ? payload.readUInt16BE(0) : 1005;
        if (!this.sentClose) this.sendFrame(0x8, Buffer.from(payload.subarray(0, 2)));
        this.sentClose = true;
      }
      this.wake();
    }
  }

  /** A frame's header: FIN, opcode, the mask bit and the length in 7, 16 or 64 bits. */
  private static header(opcode: number, len: number, masked: boolean, fin: boolean): Buffer {
    const first = (fin ? 0x80 : 0) | opcode;
    const m = masked ? 0x80 : 0;
    if (len < 126) return Buffer.from([first, m | len]);
    if (len < 65536) {
      const h = Buffer.from([first, m | 126, 0, 0]);
      h.writeUInt16BE(len, 2);
      return h;
    }
    const h = Buffer.alloc(10);
    h[0] = first;
    h[1] = m | 127;
    h.writeBigUInt64BE(BigInt(len), 2);
    return h;
  }

  /** Sends one frame, masked as a client must (unless told not to), final unless `fin` is false. */
  sendFrame(opcode: number, payload: Buffer, masked = true, fin = true): void {
    const head = WsClient.header(opcode, payload.length, masked, fin);
    if (!masked) {
      this.socket.write(Buffer.concat([head, payload]));
      return;
    }
    const mask = randomBytes(4);
    const body = Buffer.from(payload);
    for (let i = 0; i < body.length; i++) body[i] = (body[i] as number) ^ (mask[i % 4] as number);
    this.socket.write(Buffer.concat([head, mask, body]));
  }

  /** Sends only a masked frame's header announcing `len` bytes (a message too large to be taken). */
  sendHeader(opcode: number, len: number): void {
    this.socket.write(Buffer.concat([WsClient.header(opcode, len, true, true), randomBytes(4)]));
  }

  send(message: unknown): void {
    this.sendFrame(0x1, Buffer.from(JSON.stringify(message), "utf8"));
  }

  /** The next message, parsed. */
  async next(): Promise<{ type: string; data: Record<string, unknown> }> {
    while (this.messages.length === 0) {
      if (this.closed) throw new Error(`connection closed (${this.closeCode ?? "no close frame"})`);
      await new Promise<void>((r) => this.waiters.push(r));
    }
    return JSON.parse(this.messages.shift() as string) as { type: string; data: Record<string, unknown> };
  }

  async request(message: unknown): Promise<{ type: string; data: Record<string, unknown> }> {
    this.send(message);
    return this.next();
  }

  /** Waits until the server has closed the connection. */
  async whenClosed(): Promise<void> {
    while (!this.closed) await new Promise<void>((r) => this.waiters.push(r));
  }

  end(): void {
    this.sentClose = true;
    this.sendFrame(0x8, Buffer.from([0x03, 0xe8]));
  }
}

/** An SSE stream read whole: its events in order. */
export async function postSse(url: string, body: unknown, headers: Record<string, string>): Promise<{ status: number; events: { event: string; data: string }[] }> {
  const r = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json", Accept: "text/event-stream", ...headers }, body: JSON.stringify(body) });
  const text = await r.text();
  const events: { event: string; data: string }[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    let event = "message";
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith(":") || line === "") continue;
      const i = line.indexOf(":");
      const field = i < 0 ? line : line.slice(0, i);
      const value = i < 0 ? "" : line.slice(i + 1).replace(/^ /, "");
      if (field === "event") event = value;
      if (field === "data") data.push(value);
    }
    if (data.length > 0 || event !== "message") events.push({ event, data: data.join("\n") });
  }
  return { status: r.status, events };
}

/** ORS: a tool call's RunToolOutput, put together from its chunk and end events. */
export async function orsCall(base: string, sid: string, name: string, input: unknown): Promise<{ ok: boolean; output?: { blocks: { text: string }[]; metadata: Record<string, unknown>; reward: number | null; finished: boolean }; error?: string }> {
  const r = await postSse(`${base}/gitgood/call`, { name, input }, { "X-API-Key": TEST_SERVE_TOKEN, "X-Session-ID": sid });
  if (r.status !== 200) throw new Error(`call ${name}: HTTP ${r.status}`);
  const [first, ...rest] = r.events;
  if (first?.event !== "task_id") throw new Error(`call ${name}: no task_id event first`);
  const error = rest.find((e) => e.event === "error");
  if (error) throw new Error(`call ${name}: ${error.data}`);
  if (rest.at(-1)?.event !== "end") throw new Error(`call ${name}: the stream does not end with an end event`);
  return JSON.parse(rest.map((e) => e.data).join("")) as never;
}
