/**
 * The jail's end of the model proxy: run as `node forwarder.js PORT SOCKET READY_FILE` inside an agent's jail
 * (a network namespace of its own, where only loopback exists), it listens on 127.0.0.1:PORT there and joins
 * each connection to the proxy's Unix socket of the attempt, which the jail shows read-only. Once it listens it
 * creates READY_FILE. It is the only way out of the jail: every other address fails.
 */
import { writeFileSync } from "node:fs";
import net from "node:net";

const [port, socket, ready] = process.argv.slice(2);
if (!port || !socket || !ready) {
  process.stderr.write("usage: forwarder.js PORT SOCKET READY_FILE\n");
  process.exit(2);
}

const server = net.createServer((inbound) => {
  const outbound = net.connect(socket);
  inbound.pipe(outbound);
  outbound.pipe(inbound);
  const end = (): void => {
    inbound.destroy();
    outbound.destroy();
  };
  inbound.on("error", end);
  outbound.on("error", end);
  inbound.on("close", end);
  outbound.on("close", end);
});
server.on("error", (e) => {
  process.stderr.write(`gitgood model forwarder: ${e.message}\n`);
  process.exit(1);
});
server.listen(Number(port), "127.0.0.1", () => writeFileSync(ready, "ready\n"));
