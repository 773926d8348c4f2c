import { createHash } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";

// The server side of RFC 6455 (The WebSocket Protocol), as much as a JSON message channel needs: the
// opening handshake (section 4.2), text messages in one frame or fragmented (5.4), ping/pong (5.5.2-3)
// and the closing handshake (5.5.1, 7). Client frames must be masked (5.1); binary messages, unknown
// opcodes and oversized messages close the connection with the codes of 7.4.1.

const ACCEPT_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
/** The largest message a client may send (a tool call carrying a whole file fits). */
export const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

const OP_CONTINUATION = 0x0;
const OP_TEXT = 0x1;
const OP_BINARY = 0x2;
const OP_CLOSE = 0x8;
const OP_PING = 0x9;
const OP_PONG = 0xa;

/** Close codes (RFC 6455, 7.4.1). */
const CLOSE_NORMAL = 1000;
export const CLOSE_GOING_AWAY = 1001;
const CLOSE_PROTOCOL_ERROR = 1002;
const CLOSE_UNSUPPORTED = 1003;
const CLOSE_INVALID_DATA = 1007;
const CLOSE_TOO_BIG = 1009;

/** The value of Sec-WebSocket-Accept for a client's Sec-WebSocket-Key (RFC 6455, 4.2.2). */
export function acceptValue(key: string): string {
  return createHash("sha1").update(`${key}${ACCEPT_GUID}`).digest("base64");
}

/** Why an upgrade request is not a WebSocket opening handshake this server takes (null: it is). */
export function handshakeProblem(req: IncomingMessage): string | null {
  if (req.method !== "GET") return "a WebSocket handshake is a GET request";
  if (!/\bwebsocket\b/i.test(req.headers.upgrade ?? "")) return "the Upgrade header must name websocket";
  if (req.headers["sec-websocket-version"] !== "13") return "only WebSocket version 13 is spoken";
  const key = req.headers["sec-websocket-key"];
  if (typeof key !== "string" || Buffer.from(key, "base64").length !== 16) return "Sec-WebSocket-Key must be 16 bytes in base64";
  return null;
}

/** Encodes one unmasked frame (the server's frames are never masked). */
function frame(opcode: number, payload: Buffer): Buffer {
  const len = payload.length;
  const head = len < 126 ? Buffer.alloc(2) : len < 65536 ? Buffer.alloc(4) : Buffer.alloc(10);
  head[0] = 0x80 | opcode;
  if (len < 126) head[1] = len;
  else if (len < 65536) {
    head[1] = 126;
    head.writeUInt16BE(len, 2);
  } else {
    head[1] = 127;
    head.writeBigUInt64BE(BigInt(len), 2);
  }
  return Buffer.concat([head, payload]);
}

/**
 * One accepted WebSocket connection: `onMessage` gets each text message, `onClose` runs once when the
 * connection ends for any reason. A protocol violation closes it with the matching code.
 */
export class WebSocketConnection {
  onMessage: (text: string) => void = () => undefined;
  onClose: () => void = () => undefined;
  private buffered: Buffer = Buffer.alloc(0);
  private fragments: Buffer[] = [];
  private fragmentBytes = 0;
  private closing = false;
  private ended = false;

  constructor(private readonly socket: Duplex) {
    socket.on("data", (chunk: Buffer) => this.receive(chunk));
    socket.on("close", () => this.finish());
    socket.on("error", () => this.finish());
  }

  /** Answers the opening handshake and returns the connection; the caller has checked `handshakeProblem`. */
  static accept(req: IncomingMessage, socket: Duplex, head: Buffer): WebSocketConnection {
    const key = req.headers["sec-websocket-key"] as string;
    socket.write(
      ["HTTP/1.1 101 Switching Protocols", "Upgrade: websocket", "Connection: Upgrade", `Sec-WebSocket-Accept: ${acceptValue(key)}`, "", ""].join("\r\n"),
    );
    const ws = new WebSocketConnection(socket);
    if (head.length > 0) ws.receive(head);
    return ws;
  }

  get open(): boolean {
    return !this.closing && !this.ended;
  }

  /** Sends a text message (dropped once the connection is closing). */
  send(text: string): void {
    if (this.open) this.socket.write(frame(OP_TEXT, Buffer.from(text, "utf8")));
  }

  /** Starts the closing handshake; the socket ends when the client answers, or at once on a protocol error. */
  close(code = CLOSE_NORMAL, reason = ""): void {
    if (!this.open) return;
    this.closing = true;
    const payload = Buffer.alloc(2 + Buffer.byteLength(reason));
    payload.writeUInt16BE(code, 0);
    payload.write(reason, 2, "utf8");
    this.socket.write(frame(OP_CLOSE, payload));
    if (code !== CLOSE_NORMAL) this.socket.end();
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    this.socket.destroy();
    this.onClose();
  }

  private receive(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    while (!this.ended) {
      const used = this.parseOne();
      if (used === 0) return;
      this.buffered = this.buffered.subarray(used);
    }
  }

  /** Parses and handles one frame from the buffer; returns the bytes it used (0: the frame is not complete yet). */
  private parseOne(): number {
    const b = this.buffered;
    if (b.length < 2) return 0;
    const b0 = b[0] as number;
    const b1 = b[1] as number;
    const fin = (b0 & 0x80) !== 0;
    const opcode = b0 & 0x0f;
    if ((b0 & 0x70) !== 0) return this.fail(CLOSE_PROTOCOL_ERROR, "no extension was negotiated: reserved bits must be 0");
    if ((b1 & 0x80) === 0) return this.fail(CLOSE_PROTOCOL_ERROR, "a client's frames must be masked");
    let len = b1 & 0x7f;
    let offset = 2;
    if (len === 126) {
      if (b.length < 4) return 0;
      len = b.readUInt16BE(2);
      offset = 4;
    } else if (len === 127) {
      if (b.length < 10) return 0;
      const big = b.readBigUInt64BE(2);
      if (big > BigInt(MAX_MESSAGE_BYTES)) return this.fail(CLOSE_TOO_BIG, `a message may have at most ${MAX_MESSAGE_BYTES} bytes`);
      len = Number(big);
      offset = 10;
    }
    if (len > MAX_MESSAGE_BYTES) return this.fail(CLOSE_TOO_BIG, `a message may have at most ${MAX_MESSAGE_BYTES} bytes`);
    if (b.length < offset + 4 + len) return 0;
    const mask = b.subarray(offset, offset + 4);
    const payload = Buffer.from(b.subarray(offset + 4, offset + 4 + len));
    for (let i = 0; i < payload.length; i++) payload[i] = (payload[i] as number) ^ (mask[i % 4] as number);
    this.handle(opcode, fin, payload);
    return offset + 4 + len;
  }

  private fail(code: number, reason: string): number {
    this.close(code, reason);
    this.finish();
    return 0;
  }

  private handle(opcode: number, fin: boolean, payload: Buffer): void {
    if (opcode >= 0x8) {
      if (!fin || payload.length > 125) {
        this.fail(CLOSE_PROTOCOL_ERROR, "a control frame must be one frame of at most 125 bytes");
        return;
      }
      if (opcode === OP_CLOSE) {
        if (!this.closing) {
          this.closing = true;
          this.socket.write(frame(OP_CLOSE, payload.subarray(0, 2)));
        }
        this.socket.end();
      } else if (opcode === OP_PING) {
        if (this.open) this.socket.write(frame(OP_PONG, payload));
      } else if (opcode !== OP_PONG) {
        this.fail(CLOSE_PROTOCOL_ERROR, `unknown control opcode ${opcode}`);
      }
      return;
    }
    if (opcode === OP_BINARY) {
      this.fail(CLOSE_UNSUPPORTED, "this server takes text (JSON) messages only");
      return;
    }
    const starts = opcode === OP_TEXT;
    if (starts === (this.fragments.length > 0) || (opcode !== OP_TEXT && opcode !== OP_CONTINUATION)) {
      this.fail(CLOSE_PROTOCOL_ERROR, `unexpected opcode ${opcode}`);
      return;
    }
    this.fragmentBytes += payload.length;
    if (this.fragmentBytes > MAX_MESSAGE_BYTES) {
      this.fail(CLOSE_TOO_BIG, `a message may have at most ${MAX_MESSAGE_BYTES} bytes`);
      return;
    }
    this.fragments.push(payload);
    if (!fin) return;
    const whole = Buffer.concat(this.fragments);
    this.fragments = [];
    this.fragmentBytes = 0;
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(whole);
    } catch {
      this.fail(CLOSE_INVALID_DATA, "a text message must be UTF-8");
      return;
    }
    if (this.open) this.onMessage(text);
  }
}
