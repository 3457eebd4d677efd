// HTTP/2 streams answered before their request body ended (src/server/early-answer.ts): a 408
// at --body-timeout, a 413 for a declared length past --body-limit, a 415, a 401 to a request
// without credentials. Each such stream is reset with NO_ERROR once its answer has gone out
// whole, so that it holds no slot or buffer for as long as the client cares to keep it, and the
// connection serves on; the connection is then probed with a PING (src/server/session-probe.ts),
// and one that answers it is kept, while a server whose clients went away as their streams were
// reset still closes promptly. Driven by a frame-level client, which sees every RST_STREAM.
import type { Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway } from "../helpers/gateway.js";
import type { TestGateway } from "../helpers/gateway.js";
import { makeCertificates } from "../helpers/certificates.js";
import type { Certificates } from "../helpers/certificates.js";
import { apiKeysFile } from "../helpers/api-keys-file.js";
import type { ApiKeysFile } from "../helpers/api-keys-file.js";
import { FLAG, FRAME, frame, headerBlock, rawSession } from "../helpers/h2-frames.js";
import type { Frame, RawSession } from "../helpers/h2-frames.js";
import { ApiKeys } from "../../src/auth/api-keys.js";

const BODY_TIMEOUT_MS = 400;
const BODY_LIMIT = 1024;
const STREAMS = 20;
const KEY = "early-answer-writer-key";
/** Connections that leave as their streams are reset, and the spread of the moments they leave in. */
const CLIENTS = 20;
const LEAVE_WITHIN_MS = 12;
/** How long a close may take before the test ends the connections itself. */
const CLOSE_WITHIN_MS = 5_000;
/** Bound on what a test waits for that comes at once or at --body-timeout, on a loaded machine. */
const SETTLE_MS = 10_000;
/** RFC 9113's error codes, as an RST_STREAM frame carries them. */
const NO_ERROR = 0x0;
const CANCEL = 0x8;
/** SETTINGS_INITIAL_WINDOW_SIZE (RFC 9113 "Defined Settings"). */
const INITIAL_WINDOW_SIZE = 0x4;

let certs: Certificates;
let keys: ApiKeysFile;
let gw: TestGateway;
let port = 0;

beforeAll(async () => {
  certs = makeCertificates(["localhost", "127.0.0.1"]);
  keys = await apiKeysFile([{ name: "writer", key: KEY, scopes: ["jobs:read", "jobs:write"] }]);
  gw = await startTestGateway({
    tls: { cert: certs.read(certs.server.cert), key: certs.read(certs.server.key) },
    headerTimeoutMs: BODY_TIMEOUT_MS, bodyTimeoutMs: BODY_TIMEOUT_MS,
    bodyLimit: BODY_LIMIT,
    maxStreams: 100,
    access: { apiKeys: new ApiKeys(keys.file) },
  });
  await gw.app.listen({ port: 0, host: "127.0.0.1" });
  const address = gw.app.server.address();
  port = typeof address === "object" && address !== null ? address.port : 0;
});

afterAll(async () => {
  await gw.close();
  await keys.remove();
  certs.remove();
});

function request(extra: Record<string, string>, method = "POST", path = "/v1/jobs"): Record<string, string> {
  return { ":method": method, ":scheme": "https", ":path": path, ":authority": `localhost:${port}`, ...extra };
}

/** What the server sent on one stream: its status (as its body says it), whether its answer ended, whether and how it was reset, and in which order. */
interface StreamSeen {
  readonly status: string | undefined;
  readonly endedAt: number;
  readonly resetAt: number;
  readonly resetCode: number | undefined;
}

function seen(frames: readonly Frame[], streamId: number): StreamSeen {
  let body = "";
  let endedAt = -1;
  let resetAt = -1;
  let resetCode: number | undefined;
  frames.forEach((f, index) => {
    if (f.streamId !== streamId) return;
    if (f.type === FRAME.DATA) body += f.payload.toString("utf8");
    if ((f.type === FRAME.HEADERS || f.type === FRAME.DATA) && (f.flags & FLAG.END_STREAM) !== 0) endedAt = index;
    if (f.type === FRAME.RST_STREAM && resetAt < 0) {
      resetAt = index;
      resetCode = f.payload.readUInt32BE(0);
    }
  });
  // The header block is HPACK with Huffman codes and a dynamic table, which this client does
  // not decode: the status is read from the problem (or health) document the answer carries.
  const status = /"status":\s*"?(\w+)"?/.exec(body)?.[1];
  return { status, endedAt, resetAt, resetCode };
}

const until = async (check: () => boolean, ms: number): Promise<void> => {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 10));
};

/** Opens STREAMS streams on one connection, each made by `open`, and waits until each is answered and, where it will be, reset. */
async function streams(open: (session: RawSession, id: number) => void): Promise<{ session: RawSession; ids: number[]; seen: StreamSeen[] }> {
  const session = await rawSession(port, certs.read(certs.ca.cert));
  const ids = Array.from({ length: STREAMS }, (_, i) => 1 + 2 * i);
  for (const id of ids) open(session, id);
  const settled = (): boolean => ids.every((id) => {
    const s = seen(session.frames, id);
    return s.endedAt >= 0 && s.resetAt >= 0;
  });
  await until(settled, SETTLE_MS);
  return { session, ids, seen: ids.map((id) => seen(session.frames, id)) };
}

/** Each stream was answered `status` whole (END_STREAM), then reset with NO_ERROR; and the connection answers another request. */
async function expectAnsweredThenReset(result: { session: RawSession; seen: StreamSeen[] }, status: string): Promise<void> {
  for (const s of result.seen) {
    expect(s.status).toBe(status);
    expect(s.endedAt).toBeGreaterThanOrEqual(0);
    expect(s.resetCode).toBe(NO_ERROR);
    // The reset follows the answer's last frame: it never overtakes what the answer says.
    expect(s.resetAt).toBeGreaterThan(s.endedAt);
  }
  const next = 1 + 2 * STREAMS;
  result.session.write(frame(FRAME.HEADERS, FLAG.END_HEADERS | FLAG.END_STREAM, next, headerBlock(request({}, "GET", "/healthz"))));
  await until(() => seen(result.session.frames, next).endedAt >= 0, SETTLE_MS);
  expect(seen(result.session.frames, next).status).toBe("ok");
  expect(seen(result.session.frames, next).resetAt).toBe(-1);
  result.session.socket.destroy();
}

describe("HTTP/2 streams answered before their body ended", () => {
  it("resets each stream answered 408 at --body-timeout, after the answer, and the connection serves on", async () => {
    const result = await streams((session, id) => {
      session.write(frame(FRAME.HEADERS, FLAG.END_HEADERS, id, headerBlock(request({ "content-type": "application/json", "x-api-key": KEY }))));
      session.write(frame(FRAME.DATA, 0, id, Buffer.from('{"jobId":')));
    });

    await expectAnsweredThenReset(result, "408");
  });

  it("resets each stream answered 413 for a declared length past --body-limit, before its body came", async () => {
    const result = await streams((session, id) => {
      session.write(frame(FRAME.HEADERS, FLAG.END_HEADERS, id, headerBlock(request({ "content-type": "application/json", "content-length": String(BODY_LIMIT * 10), "x-api-key": KEY }))));
      session.write(frame(FRAME.DATA, 0, id, Buffer.from("{"))); 
    });
    await expectAnsweredThenReset(result, "413");
  });

  it("resets each stream answered 415 for a media type the route does not read, before its body came", async () => {
    const result = await streams((session, id) => {
      session.write(frame(FRAME.HEADERS, FLAG.END_HEADERS, id, headerBlock(request({ "content-type": "text/plain", "x-api-key": KEY }))));
      session.write(frame(FRAME.DATA, 0, id, Buffer.from("half")));
    });
    await expectAnsweredThenReset(result, "415");
  });

  it("resets each stream answered 401 for want of credentials, before its body came", async () => {
    const result = await streams((session, id) => {
      session.write(frame(FRAME.HEADERS, FLAG.END_HEADERS, id, headerBlock(request({ "content-type": "application/json" }))));
      session.write(frame(FRAME.DATA, 0, id, Buffer.from('{"jobId":')));
    });
    await expectAnsweredThenReset(result, "401");
  });

  it("does not reset a stream whose body came whole before its answer", async () => {
    const session = await rawSession(port, certs.read(certs.ca.cert));
    const ids = Array.from({ length: STREAMS }, (_, i) => 1 + 2 * i);
    for (const id of ids) {
      session.write(frame(FRAME.HEADERS, FLAG.END_HEADERS, id, headerBlock(request({ "content-type": "text/plain", "x-api-key": KEY }))));
      session.write(frame(FRAME.DATA, FLAG.END_STREAM, id, Buffer.from("whole")));
    }
    await until(() => ids.every((id) => seen(session.frames, id).endedAt >= 0), SETTLE_MS);
    // Time for a reset to follow, were one coming.
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (const id of ids) {
      expect(seen(session.frames, id).status).toBe("415");
      expect(seen(session.frames, id).resetAt).toBe(-1);
    }
    session.socket.destroy();
  });

  it("cancels a stream whose 408 the client does not take within --body-timeout", async () => {
    const session = await rawSession(port, certs.read(certs.ca.cert));
    // A window of 0: the server may send the answer's headers, none of its body.
    const setting = Buffer.alloc(6);
    setting.writeUInt16BE(INITIAL_WINDOW_SIZE, 0);
    setting.writeUInt32BE(0, 2);
    session.write(frame(FRAME.SETTINGS, 0, 0, setting));
    // The 408 is the answer of the body deadline itself: only the drain deadline is left to end it.
    session.write(frame(FRAME.HEADERS, FLAG.END_HEADERS, 1, headerBlock(request({ "content-type": "application/json", "x-api-key": KEY }))));
    session.write(frame(FRAME.DATA, 0, 1, Buffer.from('{"jobId":')));
    const reset = await session.next((f) => f.streamId === 1 && f.type === FRAME.RST_STREAM);
    expect(reset.payload.readUInt32BE(0)).toBe(CANCEL);
    expect(seen(session.frames, 1).endedAt).toBe(-1);
    session.socket.destroy();
  });
});

describe("the connection of a stream answered before its body ended", () => {
  it("is probed with a PING once the stream is reset, and kept when the client answers it", async () => {
    const session = await rawSession(port, certs.read(certs.ca.cert));
    session.write(frame(FRAME.HEADERS, FLAG.END_HEADERS, 1, headerBlock(request({ "content-type": "application/json", "x-api-key": KEY }))));
    session.write(frame(FRAME.DATA, 0, 1, Buffer.from('{"jobId":')));
    await session.next((f) => f.streamId === 1 && f.type === FRAME.RST_STREAM);
    // rawSession answers each PING, as a client must.
    await session.next((f) => f.type === FRAME.PING && (f.flags & FLAG.ACK) === 0);
    // Past the probe's time: a connection that answered is not cut.
    await new Promise((resolve) => setTimeout(resolve, BODY_TIMEOUT_MS * 2));
    expect(session.socket.destroyed).toBe(false);
    session.write(frame(FRAME.HEADERS, FLAG.END_HEADERS | FLAG.END_STREAM, 3, headerBlock(request({}, "GET", "/healthz"))));
    await until(() => seen(session.frames, 3).endedAt >= 0, SETTLE_MS);
    expect(seen(session.frames, 3).status).toBe("ok");
    session.socket.destroy();
  });

  it("is cut when it neither answers the PING nor closes within --body-timeout", async () => {
    const session = await rawSession(port, certs.read(certs.ca.cert), { answerPings: false });
    session.write(frame(FRAME.HEADERS, FLAG.END_HEADERS, 1, headerBlock(request({ "content-type": "application/json", "x-api-key": KEY }))));
    session.write(frame(FRAME.DATA, 0, 1, Buffer.from('{"jobId":')));
    await session.next((f) => f.streamId === 1 && f.type === FRAME.RST_STREAM);
    await session.next((f) => f.type === FRAME.PING && (f.flags & FLAG.ACK) === 0);
    const pinged = Date.now();
    await session.closed;
    expect(Date.now() - pinged).toBeGreaterThanOrEqual(BODY_TIMEOUT_MS * 0.9);
    // Cut at the socket: no GOAWAY, which a session that cannot write could not send.
    expect(session.frames.some((f) => f.type === FRAME.GOAWAY)).toBe(false);
  });
});

describe("a server with streams answered before their body ended", () => {
  it("closes promptly when the clients go away as their streams are reset", async () => {
    const own = await startTestGateway({
      tls: { cert: certs.read(certs.server.cert), key: certs.read(certs.server.key) },
      headerTimeoutMs: BODY_TIMEOUT_MS, bodyTimeoutMs: BODY_TIMEOUT_MS,
      maxStreams: 4,
      access: { apiKeys: new ApiKeys(keys.file) },
    });
    // Its connections, to end them should the close not come: the test must not hang.
    const sockets = new Set<Socket>();
    own.app.server.on("secureConnection", (socket: Socket) => {
      sockets.add(socket);
      socket.once("close", () => sockets.delete(socket));
    });
    await own.app.listen({ port: 0, host: "127.0.0.1" });
    const address = own.app.server.address();
    const ownPort = typeof address === "object" && address !== null ? address.port : 0;
    const ids = [1, 3, 5, 7];
    // Each client leaves, its socket destroyed with answers unread, within a few ms of seeing
    // its 408s begin: when the server is writing its resets.
    await Promise.all(Array.from({ length: CLIENTS }, async () => {
      const session = await rawSession(ownPort, certs.read(certs.ca.cert));
      session.write(Buffer.concat(ids.flatMap((id) => [
        frame(FRAME.HEADERS, FLAG.END_HEADERS, id, headerBlock({ ...request({ "content-type": "application/json", "x-api-key": KEY }), ":authority": `localhost:${ownPort}` })),
        frame(FRAME.DATA, 0, id, Buffer.from('{"jobId":')),
      ])));
      await Promise.all(ids.map((id) => session.next((f) => f.type === FRAME.HEADERS && f.streamId === id)));
      await new Promise((resolve) => setTimeout(resolve, Math.random() * LEAVE_WITHIN_MS));
      session.socket.destroy();
    }));
    const started = Date.now();
    const closed = own.close().then(() => true);
    const inTime = await Promise.race([closed, new Promise<false>((resolve) => setTimeout(() => { resolve(false); }, CLOSE_WITHIN_MS))]);
    if (!inTime) for (const socket of sockets) socket.destroy();
    await closed;
    expect(inTime, "closed within the time allowed").toBe(true);
    // A connection left holding a write it cannot finish is cut by its probe, a --body-timeout
    // after its PING (a few of them on a loaded machine), not at some later deadline.
    expect(Date.now() - started).toBeLessThan(BODY_TIMEOUT_MS * 8);
  });
});
