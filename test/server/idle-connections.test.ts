// The app's close closes the HTTP/1.1 connections that carry nothing at once (src/server/
// idle-connections.ts): one a client opened and never used, one kept alive after its answer,
// over plain HTTP and over TLS; and answers a request that has begun rather than cut it.
import type { Socket } from "node:net";
import { connect as tlsConnect } from "node:tls";
import type { TLSSocket } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IN_MEMORY, startManager } from "norsk-reference-manager";
import type { RunningManager } from "norsk-reference-manager";
import { makeCertificates } from "../helpers/certificates.js";
import type { Certificates } from "../helpers/certificates.js";
import { gatewayTo } from "../helpers/gateway.js";
import type { GatewayUnderTest } from "../helpers/gateway.js";
import { openRaw } from "../helpers/raw-socket.js";

/**
 * Bound on a close with nothing to wait for, on a loaded machine: far below the idle timeout
 * (`--idle-timeout`'s default, in src/config.ts) that such a connection would otherwise be kept for.
 */
const PROMPTLY_MS = 5_000;
const GET = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";

let manager: RunningManager;
let certs: Certificates;

beforeAll(async () => {
  manager = await startManager({ port: 0, dataDir: IN_MEMORY });
  certs = makeCertificates(["localhost", "127.0.0.1"]);
});

afterAll(async () => {
  await manager.close();
  certs.remove();
});

/** Resolves with the ms the close took; rejects past `withinMs`. */
async function closeWithin(gateway: GatewayUnderTest, withinMs: number): Promise<number> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`the close still waits after ${String(withinMs)} ms`));
    }, withinMs);
  });
  try {
    await Promise.race([gateway.close(), late]);
    return Date.now() - started;
  } finally {
    clearTimeout(timer);
  }
}

/** The server's side of the next connection it accepts (for TLS, once its handshake is done). */
const serverSide = (gateway: GatewayUnderTest, event: "connection" | "secureConnection"): Promise<Socket> =>
  new Promise((resolve) => gateway.app.server.once(event, resolve));

const until = (check: () => boolean): Promise<void> =>
  new Promise((resolve) => {
    const poll = (): void => {
      if (check()) resolve();
      else setTimeout(poll, 5);
    };
    poll();
  });

describe("the app's close over HTTP/1.1", () => {
  it("closes a connection that was opened and never used", async () => {
    const gateway = await gatewayTo(manager.address, { listen: true });
    const unused = await openRaw(gateway.url);
    await closeWithin(gateway, PROMPTLY_MS);
    await unused.closed(PROMPTLY_MS);
  });

  it("closes a connection kept alive after its answer", async () => {
    const gateway = await gatewayTo(manager.address, { listen: true });
    const kept = await openRaw(gateway.url, GET);
    await until(() => kept.received().includes("\r\n\r\n"));
    expect(kept.received()).toMatch(/^HTTP\/1\.1 200 /);
    await closeWithin(gateway, PROMPTLY_MS);
    await kept.closed(PROMPTLY_MS);
  });

  it("answers a request that has begun, the closing gateway's 503, instead of cutting its connection", async () => {
    const gateway = await gatewayTo(manager.address, { listen: true });
    const accepted = serverSide(gateway, "connection");
    const begun = await openRaw(gateway.url, "GET /healthz HTTP/1.1\r\n");
    const server = await accepted;
    await until(() => server.bytesRead > 0);
    const closing = gateway.close();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(begun.isOpen()).toBe(true);
    begun.socket.write("Host: 127.0.0.1\r\n\r\n");
    await until(() => begun.received().includes("\r\n\r\n"));
    expect(begun.received()).toMatch(/^HTTP\/1\.1 503 /);
    await closing;
  });

  it("closes an unused HTTP/1.1 connection of a TLS listener, which node does not track", async () => {
    const gateway = await gatewayTo(manager.address, { listen: true, tls: { cert: certs.read(certs.server.cert), key: certs.read(certs.server.key) } });
    const { port } = new URL(gateway.url);
    const accepted = serverSide(gateway, "secureConnection");
    const socket = await new Promise<TLSSocket>((resolve, reject) => {
      const opened = tlsConnect({ host: "127.0.0.1", port: Number(port), ca: certs.read(certs.ca.cert), servername: "localhost", ALPNProtocols: ["http/1.1"] }, () => {
        resolve(opened);
      });
      opened.once("error", reject);
    });
    expect(socket.alpnProtocol).toBe("http/1.1");
    await accepted;
    const closed = new Promise((resolve) => socket.once("close", resolve));
    socket.on("error", () => undefined);
    await closeWithin(gateway, PROMPTLY_MS);
    await closed;
  });
});
