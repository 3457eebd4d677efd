// GET /v1/jobs read by slow clients, over real sockets on loopback: the gateway pulls jobs from
// the Manager only as fast as the client takes them (back-pressure through the gRPC stream),
// and a client that stops taking them for longer than the request timeout is cut: NDJSON with
// its error line, JSON by an aborted body; its call to the Manager is cancelled.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { request as httpRequest } from "node:http";
import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import { create } from "@bufbuild/protobuf";
import { CurrentJobSchema, JobSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { stubGateway } from "../helpers/stub-manager.js";
import type { StubGateway } from "../helpers/stub-manager.js";
import { ndjsonLines } from "../helpers/http-get.js";

const REQUEST_TIMEOUT_MS = 1_000;
/** 12,000 jobs of some 2 KB: 24 MB, several times what the sockets on the way can hold. */
const JOBS = 12_000;
const DESCRIPTION = "x".repeat(2_000);

const manager = { produced: 0, cancelled: false };
const idOf = (i: number) => `j-${String(i).padStart(5, "0")}`;

let gw: StubGateway;
let url: string;

beforeAll(async () => {
  gw = await stubGateway(
    {
      // Each job is made when the gRPC server asks for it: the server writes with back-pressure.
      // eslint-disable-next-line @typescript-eslint/require-await -- a generator the server pulls
      jobSearch: async function* (_request, context) {
        try {
          for (let i = 0; i < JOBS; i++) {
            manager.produced++;
            yield create(CurrentJobSchema, { job: create(JobSchema, { jobId: { jobId: idOf(i) }, description: DESCRIPTION }) });
          }
        } finally {
          manager.cancelled = context.signal.aborted;
        }
      },
    },
    { requestTimeoutMs: REQUEST_TIMEOUT_MS },
  );
  url = await gw.app.listen({ port: 0, host: "127.0.0.1" });
});

afterAll(async () => {
  await gw.close();
});

beforeEach(() => {
  manager.produced = 0;
  manager.cancelled = false;
});

interface Reading {
  readonly response: IncomingMessage;
  text: string;
  /**
   * The most the gateway held at once: the bytes of the jobs the Manager had made less those
   * the gateway had handed to its client's socket. The kernel's socket buffers (up to tens of
   * MB on loopback, as it tunes them) are not in it; the HTTP/2 windows between the Manager and
   * the gateway are (some 64 KB).
   */
  maxHeldBytes: number;
  readonly ended: Promise<{ complete: boolean }>;
}

/** The bytes of one job's line, measured from the first line received. */
let lineBytes = 0;

/** GET /v1/jobs on a connection of its own, whose gateway side it watches. */
function read(headers: Record<string, string>): Promise<Reading> {
  const accepted = new Promise<Socket>((resolve) => {
    gw.app.server.once("connection", resolve);
  });
  return new Promise((resolve, reject) => {
    // A new connection: one reused from a test that read fast has kernel buffers tuned large.
    httpRequest(`${url}/v1/jobs`, { headers, agent: false }, (response) => {
      response.setEncoding("utf8");
      let close = (_complete: boolean): void => undefined;
      const reading: Reading = {
        response,
        text: "",
        maxHeldBytes: 0,
        ended: new Promise((done) => {
          close = (complete) => {
            done({ complete });
          };
        }),
      };
      void accepted.then((socket) => {
        const sample = (): void => {
          if (lineBytes === 0) return;
          const handedToKernel = socket.bytesWritten - socket.writableLength;
          reading.maxHeldBytes = Math.max(reading.maxHeldBytes, manager.produced * lineBytes - handedToKernel);
        };
        const sampler = setInterval(sample, 10);
        response.on("data", sample);
        response.once("close", () => {
          clearInterval(sampler);
        });
      });
      response.on("data", (chunk: string) => {
        reading.text += chunk;
        if (lineBytes === 0 && reading.text.includes("\n")) lineBytes = Buffer.byteLength(reading.text.slice(0, reading.text.indexOf("\n") + 1));
      });
      response.on("error", () => undefined);
      response.once("close", () => {
        close(response.complete);
      });
      resolve(reading);
    })
      .on("error", reject)
      .end();
  });
}

/** Reads like a slow client: after each `burstBytes`, stops reading for `pauseMs`. */
function slowly(reading: Reading, burstBytes: number, pauseMs: number): void {
  let sinceRest = 0;
  reading.response.on("data", (chunk: string) => {
    sinceRest += Buffer.byteLength(chunk);
    if (sinceRest < burstBytes) return;
    sinceRest = 0;
    reading.response.pause();
    setTimeout(() => reading.response.resume(), pauseMs);
  });
}

function expectJobsInOrder(lines: unknown[]): void {
  lines.forEach((line, i) => {
    expect((line as { jobId?: string }).jobId).toBe(idOf(i));
  });
}

describe("a slow client of GET /v1/jobs", () => {
  it("gets every job, in order, while the gateway holds a bounded part of the list", async () => {
    const reading = await read({ accept: "application/x-ndjson" });
    // Some MB/s, a fraction of what the gateway can send.
    slowly(reading, 256 * 1024, 25);
    const { complete } = await reading.ended;
    expect(complete).toBe(true);
    const lines = ndjsonLines(reading.text);
    expect(lines).toHaveLength(JOBS);
    expectJobsInOrder(lines);
    // Its buffers (64 KB of body, 16 KB of batch, grpc-js's 16 messages, the response's) and the
    // HTTP/2 windows: a few hundred KB of the 24 MB, whatever the list's length. A gateway that
    // read the stream as fast as the Manager sends would hold most of the list.
    expect(reading.maxHeldBytes).toBeGreaterThan(0);
    expect(reading.maxHeldBytes).toBeLessThan(1_000_000);
  });

  it("is not cut for pauses shorter than the request timeout, however many", async () => {
    const reading = await read({ accept: "application/x-ndjson" });
    // Pauses of 0.6 request timeouts, after every 6 MB: three or four of them.
    slowly(reading, 6_000_000, 600);
    const { complete } = await reading.ended;
    expect(complete).toBe(true);
    expect(ndjsonLines(reading.text)).toHaveLength(JOBS);
  });

  it("that stops reading for longer than the request timeout is cut: NDJSON ends with an error line, and the Manager stops", async () => {
    const reading = await read({ accept: "application/x-ndjson" });
    reading.response.pause();
    const paused = Date.now();
    // The gateway's clock starts once the sockets between are full and it can send no more.
    await expect.poll(() => manager.cancelled, { timeout: 30_000, interval: 20 }).toBe(true);
    expect(Date.now() - paused).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS);
    // The Manager's call is cancelled, well before the end of the list.
    expect(manager.produced).toBeLessThan(JOBS / 2);
    // The client reads again (before a second request timeout, after which it would be
    // disconnected) and finds the error line at the end.
    reading.response.resume();
    const { complete } = await reading.ended;
    expect(complete).toBe(true);
    const lines = ndjsonLines(reading.text);
    expect(lines.at(-1)).toMatchObject({
      error: { status: 429, code: "RESOURCE_EXHAUSTED", detail: `the client took nothing for ${REQUEST_TIMEOUT_MS} ms; the list is incomplete` },
    });
    // Every job the gateway had taken before the cut came first, whole and in order.
    expect(lines.length - 1).toBeGreaterThan(0);
    expectJobsInOrder(lines.slice(0, -1));
  });

  it("that stops reading for longer than the request timeout is cut off mid-body as JSON", async () => {
    const reading = await read({});
    reading.response.pause();
    await expect.poll(() => manager.cancelled, { timeout: 30_000, interval: 20 }).toBe(true);
    reading.response.resume();
    const { complete } = await reading.ended;
    expect(complete).toBe(false);
    expect(reading.text.startsWith('{"jobs":[')).toBe(true);
    expect(() => JSON.parse(reading.text) as unknown).toThrow();
  });

  it("that never reads again is disconnected", async () => {
    // The client, not reading, would not see the close: the gateway's side of the connection tells.
    const accepted = new Promise<Socket>((resolve) => {
      gw.app.server.once("connection", resolve);
    });
    const reading = await read({ accept: "application/x-ndjson" });
    reading.response.pause();
    const socket = await accepted;
    const started = Date.now();
    await new Promise((resolve) => socket.once("close", resolve));
    // Cut after one request timeout without taking anything; the error line then waits one more.
    expect(Date.now() - started).toBeGreaterThanOrEqual(2 * REQUEST_TIMEOUT_MS - 100);
    expect(Date.now() - started).toBeLessThan(2 * REQUEST_TIMEOUT_MS + 20_000);
    expect(manager.cancelled).toBe(true);
    reading.response.destroy();
  });
});
