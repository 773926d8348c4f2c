import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_MESSAGE_BYTES, WebSocketConnection, acceptValue, handshakeProblem } from "../../src/serve/websocket.js";
import { WsClient } from "./clients.js";

// The RFC 6455 server on its own: an echo server on 127.0.0.1, driven by the test client's raw frames.
let server: http.Server;
let url: string;

beforeAll(async () => {
  server = http.createServer((_req, res) => res.writeHead(404).end());
  server.on("upgrade", (req, socket, head) => {
    const problem = handshakeProblem(req);
    if (problem) {
      socket.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n");
      return;
    }
    const ws = WebSocketConnection.accept(req, socket, head);
    ws.onMessage = (text) => ws.send(JSON.stringify({ echo: text }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

describe("the WebSocket server (RFC 6455)", () => {
  it("computes the handshake's accept value as the RFC's example does", () => {
    expect(acceptValue("dGhlIHNhbXBsZSBub25jZQ==")).toBe("s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
  });

  it("echoes a message in one frame, a fragmented one, and one with a 16-bit length", async () => {
    const ws = await WsClient.connect(url, {});
    expect(await ws.request("one")).toEqual({ echo: '"one"' });
    ws.sendFrame(0x1, Buffer.from('"frag'), true, false);
    ws.sendFrame(0x9, Buffer.from("ping"));
    ws.sendFrame(0x0, Buffer.from('ment"'));
    expect(await ws.next()).toEqual({ echo: '"fragment"' });
    const big = "x".repeat(70_000);
    expect(await ws.request(big)).toEqual({ echo: JSON.stringify(big) });
    ws.end();
    await ws.whenClosed();
  });

  it("closes on a binary message (1003), an unmasked frame (1002) and an oversized one (1009)", async () => {
    const binary = await WsClient.connect(url, {});
    binary.sendFrame(0x2, Buffer.from([1, 2, 3]));
    await binary.whenClosed();
    expect(binary.closeCode).toBe(1003);

    const unmasked = await WsClient.connect(url, {});
    unmasked.sendFrame(0x1, Buffer.from("{}"), false);
    await unmasked.whenClosed();
    expect(unmasked.closeCode).toBe(1002);

    const huge = await WsClient.connect(url, {});
    huge.sendHeader(0x1, MAX_MESSAGE_BYTES + 1);
    await huge.whenClosed();
    expect(huge.closeCode).toBe(1009);
  });
});
