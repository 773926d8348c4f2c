// A stand-in for an attempt's tool broker, for bench/startup.js: it listens on the Unix socket given as
// its argument and answers the broker's protocol (one JSON line in, one out) with fixed replies, so the
// client's start-up is timed apart from any scenario's work. Prints "ready" once it listens.
import { rmSync } from "node:fs";
import net from "node:net";

const socket = process.argv[2];
if (!socket) throw new Error("usage: node bench/fake-broker.js SOCKET");
rmSync(socket, { force: true });

const DESCRIPTION = {
  scenario: "MCR",
  sample_id: "bench",
  tools: ["view_current_merge_conflict_with"],
  functions: [],
  help: "view_current_merge_conflict_with: the current conflict",
};

const server = net.createServer((conn) => {
  let text = "";
  conn.on("data", (b) => (text += b.toString("utf8")));
  conn.on("end", () => {
    const request = JSON.parse(text);
    const value = request.op === "describe" ? DESCRIPTION : { ok: true, output: "<<<<<<< HEAD\na\n=======\nb\n>>>>>>> topic", done: false };
    conn.end(`${JSON.stringify({ ok: true, value })}\n`);
  });
});
server.listen(socket, () => process.stdout.write("ready\n"));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
