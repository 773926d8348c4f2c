// The three ways a trainer plays an episode of `gitgood serve`, as the protocols' clients do: OpenEnv over
// HTTP (/reset, /step with episode_id), OpenEnv over its WebSocket (/ws: reset and step messages) and ORS
// (/create, then each call's RunToolOutput read from its SSE stream). Each plays a list of tool calls until
// one ends the episode, and ends it with `finish` when none did.
import { randomBytes } from "node:crypto";
import { request } from "node:http";

/** A POST of JSON with `headers`; resolves with the status and the parsed answer. */
function post(url, body, headers) {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", headers: { "Content-Type": "application/json", ...headers } }, (res) => {
      let text = "";
      res.on("data", (b) => (text += b));
      res.on("end", () => resolve({ status: res.statusCode, text }));
    });
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

async function postJson(url, body, headers) {
  const r = await post(url, body, headers);
  return { status: r.status, body: JSON.parse(r.text) };
}

/** A minimal RFC 6455 client: masked text frames out, unmasked text frames in, one answer per message sent. */
class WebSocket {
  constructor(socket) {
    this.socket = socket;
    this.buffer = Buffer.alloc(0);
    this.messages = [];
    this.waiters = [];
    this.closed = false;
    socket.on("data", (b) => {
      this.buffer = Buffer.concat([this.buffer, b]);
      this.parse();
    });
    socket.on("close", () => {
      this.closed = true;
      this.wake();
    });
  }

  static open(httpUrl, token) {
    const key = randomBytes(16).toString("base64");
    return new Promise((resolve, reject) => {
      const req = request(new URL("/ws", httpUrl), {
        headers: { Connection: "Upgrade", Upgrade: "websocket", "Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": key, Authorization: `Bearer ${token}` },
      });
      req.on("upgrade", (_res, socket, head) => {
        const ws = new WebSocket(socket);
        if (head.length > 0) socket.emit("data", head);
        resolve(ws);
      });
      req.on("response", (res) => {
        res.resume();
        reject(new Error(`WebSocket handshake refused: HTTP ${res.statusCode}`));
      });
      req.on("error", reject);
      req.end();
    });
  }

  wake() {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  parse() {
    for (;;) {
      const b = this.buffer;
      if (b.length < 2) return;
      let len = b[1] & 0x7f;
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
      if ((b[0] & 0x0f) === 0x1) this.messages.push(b.subarray(off, off + len).toString("utf8"));
      this.buffer = b.subarray(off + len);
      this.wake();
    }
  }

  frame(opcode, payload) {
    const len = payload.length;
    const head = len < 126 ? Buffer.from([0x80 | opcode, 0x80 | len]) : len < 65536 ? Buffer.from([0x80 | opcode, 0x80 | 126, len >> 8, len & 0xff]) : null;
    if (!head) throw new Error("message too long for this client");
    const mask = randomBytes(4);
    const body = Buffer.from(payload);
    for (let i = 0; i < body.length; i++) body[i] ^= mask[i % 4];
    this.socket.write(Buffer.concat([head, mask, body]));
  }

  async request(message) {
    this.frame(0x1, Buffer.from(JSON.stringify(message), "utf8"));
    while (this.messages.length === 0) {
      if (this.closed) throw new Error("the server closed the WebSocket");
      await new Promise((r) => this.waiters.push(r));
    }
    return JSON.parse(this.messages.shift());
  }

  async close() {
    this.frame(0x8, Buffer.from([0x03, 0xe8]));
    while (!this.closed) await new Promise((r) => this.waiters.push(r));
  }
}

const FINISH = { tool: "finish_scenario", args: {} };

/** OpenEnv over HTTP: the episode's end as `{reward, verdict, done, rewards}` (the shaped rewards). */
export async function playOpenEnvHttp(url, token, task, calls) {
  const auth = { Authorization: `Bearer ${token}` };
  const reset = await postJson(`${url}/reset`, task, auth);
  if (reset.status !== 200) throw new Error(`reset of ${task.sample_id}: HTTP ${reset.status} ${JSON.stringify(reset.body)}`);
  const id = reset.body.observation.episode_id;
  let last = null;
  for (const c of [...calls, FINISH]) {
    const r = await postJson(`${url}/step`, { episode_id: id, action: { type: "call_tool", tool_name: c.tool, arguments: c.args } }, auth);
    if (r.status !== 200) throw new Error(`step ${c.tool} of ${task.sample_id}: HTTP ${r.status} ${JSON.stringify(r.body)}`);
    last = r.body;
    if (last.done) break;
  }
  return { done: last.done, reward: last.reward, verdict: last.observation.verdict, rewards: last.observation.rewards };
}

/** OpenEnv over its WebSocket: one connection per episode, closed at its end. */
export async function playOpenEnvWebSocket(url, token, task, calls) {
  const ws = await WebSocket.open(url, token);
  try {
    const reset = await ws.request({ type: "reset", data: task });
    if (reset.type !== "observation") throw new Error(`reset of ${task.sample_id} over /ws: ${JSON.stringify(reset.data)}`);
    let last = null;
    for (const c of [...calls, FINISH]) {
      const m = await ws.request({ type: "step", data: { type: "call_tool", tool_name: c.tool, arguments: c.args } });
      if (m.type !== "observation") throw new Error(`step ${c.tool} of ${task.sample_id} over /ws: ${JSON.stringify(m.data)}`);
      last = m.data;
      if (last.done) break;
    }
    return { done: last.done, reward: last.reward, verdict: last.observation.verdict, rewards: last.observation.rewards };
  } finally {
    await ws.close();
  }
}

/** An SSE stream's events, in order. */
function events(text) {
  const out = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    let event = "message";
    const data = [];
    for (const line of block.split(/\r?\n/)) {
      if (line === "" || line.startsWith(":")) continue;
      const i = line.indexOf(":");
      const field = i < 0 ? line : line.slice(0, i);
      const value = i < 0 ? "" : line.slice(i + 1).replace(/^ /, "");
      if (field === "event") event = value;
      if (field === "data") data.push(value);
    }
    if (data.length > 0 || event !== "message") out.push({ event, data: data.join("\n") });
  }
  return out;
}

let sessions = 0;

/** ORS: a session of its own (X-Session-ID), created with the task's spec and deleted at the end. */
export async function playOrs(url, token, task, calls) {
  const headers = { "X-API-Key": token, "X-Session-ID": `replay-${process.pid}-${sessions++}` };
  const created = await postJson(`${url}/create`, { task_spec: task }, headers);
  if (created.status !== 200) throw new Error(`create of ${task.sample_id}: HTTP ${created.status} ${JSON.stringify(created.body)}`);
  try {
    let last = null;
    for (const c of [...calls, FINISH]) {
      const r = await post(`${url}/gitgood/call`, { name: c.tool, input: c.args }, { ...headers, Accept: "text/event-stream" });
      const [first, ...rest] = events(r.text);
      if (r.status !== 200 || first?.event !== "task_id" || rest.at(-1)?.event !== "end") throw new Error(`call ${c.tool} of ${task.sample_id}: HTTP ${r.status} ${r.text.slice(0, 300)}`);
      last = JSON.parse(rest.map((e) => e.data).join(""));
      if (!last.ok) throw new Error(`call ${c.tool} of ${task.sample_id}: ${last.error}`);
      if (last.output.finished) break;
    }
    return { done: last.output.finished, reward: last.output.reward, verdict: last.output.metadata.verdict, rewards: last.output.metadata.rewards };
  } finally {
    await postJson(`${url}/delete`, {}, headers);
  }
}
