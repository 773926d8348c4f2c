#!/usr/bin/env node
// The model proxy's overhead per request: the same chat-completions request sent straight to a fake upstream
// on 127.0.0.1 and through gitgood's recording proxy, alternating, with the median of each and their difference
// (goal: ≤ 5 ms). Whole answers and streamed ones. Needs `npm run build`.
//   node bench/proxy.js [--requests N]
/* global AbortController */
import http from "node:http";
import { ModelProxy } from "../dist/proxy/index.js";

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const N = arg("--requests", 300);

const messages = Array.from({ length: 20 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `turn ${i} `.repeat(50) }));
const whole = JSON.stringify({ id: "c", object: "chat.completion", choices: [{ index: 0, message: { role: "assistant", content: "ok ".repeat(200) }, finish_reason: "stop" }], usage: { prompt_tokens: 900, completion_tokens: 200 } });
const chunks = [
  ...Array.from({ length: 50 }, (_, i) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: `tok${i} ` } }] })}\n\n`),
  `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 900, completion_tokens: 50 } })}\n\n`,
  "data: [DONE]\n\n",
];

const upstream = http.createServer((req, res) => {
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    if (JSON.parse(body).stream) {
      res.writeHead(200, { "content-type": "text/event-stream" });
      for (const c of chunks) res.write(c);
      res.end();
    } else {
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(whole) });
      res.end(whole);
    }
  });
});
await new Promise((r) => upstream.listen(0, "127.0.0.1", r));
const base = `http://127.0.0.1:${upstream.address().port}/v1`;
const proxy = await ModelProxy.start({ upstreams: { openai: { baseURL: base, apiKey: "user-key" } } });
const recorder = { recordModel() {}, note() {} };
const attempt = await proxy.attempt(recorder, new AbortController().signal);
const agent = new http.Agent({ keepAlive: true });

function post(url, key, body) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const req = http.request(url, { method: "POST", agent, headers: { "content-type": "application/json", authorization: `Bearer ${key}`, "content-length": Buffer.byteLength(body) } }, (res) => {
      res.on("data", () => {});
      res.on("end", () => resolve(Number(process.hrtime.bigint() - t0) / 1e6));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

console.log(`model proxy overhead, ${N} requests each way, alternating (load average ${(await import("node:os")).loadavg()[0].toFixed(1)})`);
for (const stream of [false, true]) {
  const body = JSON.stringify({ model: "m", stream, messages });
  const direct = [];
  const proxied = [];
  for (let i = 0; i < 20; i++) {
    await post(`${base}/chat/completions`, "user-key", body);
    await post(`${attempt.url}/v1/chat/completions`, attempt.key, body);
  }
  for (let i = 0; i < N; i++) {
    direct.push(await post(`${base}/chat/completions`, "user-key", body));
    proxied.push(await post(`${attempt.url}/v1/chat/completions`, attempt.key, body));
  }
  const d = median(direct);
  const p = median(proxied);
  console.log(`${stream ? "streamed" : "whole   "}  direct ${d.toFixed(2)} ms  through the proxy ${p.toFixed(2)} ms  overhead ${(p - d).toFixed(2)} ms  (goal ≤ 5 ms: ${p - d <= 5 ? "met" : "missed"})`);
}
await attempt.close();
await proxy.close();
upstream.close();
agent.destroy();
