// The server adapter (src/grpc/server.ts) on a real grpc-js server and client over loopback.
import { afterEach, describe, expect, it } from "vitest";
import { createServer, connect } from "node:net";
import type { Socket } from "node:net";
import { Client as GrpcChannel, Server, credentials } from "@grpc/grpc-js";
import { create, toBinary } from "@bufbuild/protobuf";
import { CurrentJobSchema, JobSchema, JobSearchRequestSchema, Manager } from "../../src/gen/norsk/api/manager_pb.js";
import { addPartialService, listen } from "../../src/grpc/index.js";
import type { PartialServiceImpl } from "../../src/grpc/index.js";

const cleanup: (() => void)[] = [];

afterEach(() => {
  for (const step of cleanup.splice(0).reverse()) step();
});

/** A server whose JobSearch yields `messageBytes`-sized jobs without end, counting them. */
async function producingServer(messageBytes: number, streamBufferBytes: number): Promise<{ address: string; produced: () => number }> {
  let produced = 0;
  const description = "x".repeat(messageBytes);
  const impl: PartialServiceImpl<typeof Manager> = {
    jobSearch: async function* (_request, { signal }) {
      for (let i = 0; !signal.aborted; i++) {
        produced++;
        yield create(CurrentJobSchema, { job: create(JobSchema, { jobId: { jobId: `j-${i}` }, description }) });
        await new Promise((r) => setImmediate(r));
      }
    },
  };
  const server = new Server();
  addPartialService(server, Manager, impl, { streamBufferBytes });
  const port = await listen(server, "127.0.0.1:0");
  cleanup.push(() => {
    server.forceShutdown();
  });
  return { address: `127.0.0.1:${port}`, produced: () => produced };
}

/**
 * A TCP relay to `target`; once deafen() is called, it passes what the client sends but
 * nothing more of what the server sends: a client that has stopped reading, as far as the
 * server can tell.
 */
async function relay(target: string): Promise<{ address: string; deafen: () => void }> {
  const [host = "", port = ""] = target.split(":");
  const upstream: Socket[] = [];
  const server = createServer((inbound) => {
    const outbound = connect(Number(port), host);
    upstream.push(outbound);
    inbound.pipe(outbound).pipe(inbound);
    for (const socket of [inbound, outbound]) socket.on("error", () => undefined);
    cleanup.push(() => {
      inbound.destroy();
      outbound.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanup.push(() => server.close());
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("relay has no port");
  return {
    address: `127.0.0.1:${address.port}`,
    deafen: () => {
      for (const socket of upstream) {
        socket.unpipe();
        socket.pause();
      }
    },
  };
}

/**
 * Opens a JobSearch whose answers stop reaching the client once the first is produced; returns
 * how many the server produced beyond those the client received, once that stops changing. The
 * difference, not the count: how many pass before the relay goes deaf depends on scheduling.
 */
async function producedWhileStalled(server: { address: string; produced: () => number }): Promise<number> {
  const { address, deafen } = await relay(server.address);
  const channel = new GrpcChannel(address, credentials.createInsecure());
  const call = channel.makeServerStreamRequest(
    `/${Manager.typeName}/JobSearch`,
    (r: Buffer) => r,
    (b: Buffer) => b,
    Buffer.from(toBinary(JobSearchRequestSchema, create(JobSearchRequestSchema))),
  );
  let received = 0;
  call.on("data", () => received++);
  call.on("error", () => undefined);
  cleanup.push(() => {
    call.cancel();
    channel.close();
  });
  while (server.produced() === 0) await new Promise((r) => setTimeout(r, 5));
  deafen();
  // Settled: no new message for 20 consecutive checks (the count is bounded, so this ends).
  let last = 0;
  for (let quiet = 0; quiet < 20; ) {
    await new Promise((r) => setTimeout(r, 25));
    const now = server.produced() - received;
    quiet = now === last ? quiet + 1 : 0;
    last = now;
  }
  return last;
}

describe("server streams", () => {
  it("stop producing for a client that does not read once streamBufferBytes are unsent, whatever the message count", async () => {
    // Messages of 256 KiB: the client holds what its buffer and window take, the server at
    // most one message beyond its 64 KiB buffer, and the handler is not asked for more.
    const bounded = await producedWhileStalled(await producingServer(256 * 1024, 64 * 1024));
    // The same with room for 32 messages: the difference is what the bound held back.
    const unbounded = await producedWhileStalled(await producingServer(256 * 1024, 32 * 256 * 1024));
    // The first message is larger than the buffer: it goes alone, and the handler waits.
    expect(bounded).toBeLessThanOrEqual(2);
    expect(unbounded).toBeGreaterThanOrEqual(16);
  });
});
