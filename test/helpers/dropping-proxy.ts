// An HTTP/2 proxy on port 0 in front of a real reference Manager that closes the connection
// under chosen calls the way a Node Manager does after too many cancelled streams: a GOAWAY
// with error code 2 (INTERNAL_ERROR), on which the client's Node destroys the session and every
// call on it fails. Every other call is passed to the Manager and its answer passed back,
// message by message. It counts the calls it receives, by method, so a test can tell how often
// the gateway tried.
import { connect, constants, createServer } from "node:http2";
import type { ClientHttp2Session, Http2Server, IncomingHttpHeaders, ServerHttp2Session, ServerHttp2Stream } from "node:http2";
import type { AddressInfo } from "node:net";

export interface DroppingProxy {
  readonly address: string;
  /** Calls received, by method name (the last part of the path: "JobSearch"). */
  readonly calls: Map<string, number>;
  /** Close the session under the next `count` calls of `method` (by its name, e.g. "JobSearch"). */
  drop(method: string, count: number): void;
  /**
   * Close the session under the next call of `method` after it has passed `messages` of the
   * Manager's answer on (e.g. 1: a stream that has started).
   */
  dropAfter(method: string, messages: number): void;
  close(): Promise<void>;
}

interface Plan {
  readonly method: string;
  /** Messages passed on before the session is closed; 0: at once. */
  readonly after: number;
}

/** Splits gRPC's length-prefixed frames as they arrive; calls `onMessage` with each whole frame. */
function frames(onMessage: (frame: Buffer) => void): (chunk: Buffer) => void {
  let pending = Buffer.alloc(0);
  return (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 5) {
      const size = 5 + pending.readUInt32BE(1);
      if (pending.length < size) return;
      onMessage(pending.subarray(0, size));
      pending = pending.subarray(size);
    }
  };
}

function forward(upstream: ClientHttp2Session, stream: ServerHttp2Stream, headers: IncomingHttpHeaders, plan: Plan | undefined): void {
  const outgoing: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value === "string" && (name === ":path" || name === ":method" || !name.startsWith(":"))) outgoing[name] = value;
  }
  const request = upstream.request(outgoing);
  stream.pipe(request);
  let passed = 0;
  request.on("response", (responseHeaders) => {
    const { ":status": status = 200, ...rest } = responseHeaders;
    stream.respond({ ":status": status, ...rest }, { waitForTrailers: true });
  });
  request.on(
    "data",
    frames((frame) => {
      if (stream.destroyed) return;
      passed++;
      const closeAfter = plan !== undefined && passed >= plan.after;
      stream.write(frame, () => {
        if (closeAfter) stream.session?.goaway(constants.NGHTTP2_INTERNAL_ERROR);
      });
    }),
  );
  let trailers: IncomingHttpHeaders = {};
  request.on("trailers", (received: IncomingHttpHeaders) => {
    trailers = received;
  });
  stream.on("wantTrailers", () => {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(trailers)) if (typeof value === "string") out[name] = value;
    stream.sendTrailers(out);
  });
  request.on("end", () => {
    if (!stream.destroyed) stream.end();
  });
  request.on("error", () => stream.destroy());
  stream.on("close", () => { request.close(); });
}

export async function startDroppingProxy(managerAddress: string): Promise<DroppingProxy> {
  const upstream = connect(`http://${managerAddress}`);
  upstream.on("error", () => undefined);
  const calls = new Map<string, number>();
  const plans: Plan[] = [];
  const server: Http2Server = createServer();
  const sessions = new Set<ServerHttp2Session>();
  server.on("session", (session) => {
    sessions.add(session);
    session.on("close", () => sessions.delete(session));
  });
  server.on("stream", (stream, headers) => {
    const method = String(headers[":path"]).split("/").pop() ?? "";
    calls.set(method, (calls.get(method) ?? 0) + 1);
    const at = plans.findIndex((plan) => plan.method === method);
    const plan = at === -1 ? undefined : plans.splice(at, 1)[0];
    stream.on("error", () => undefined);
    if (plan?.after === 0) {
      stream.session?.goaway(constants.NGHTTP2_INTERNAL_ERROR);
      return;
    }
    forward(upstream, stream, headers, plan);
  });
  server.on("sessionError", () => undefined);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    address: `127.0.0.1:${port}`,
    calls,
    drop: (method, count) => {
      for (let i = 0; i < count; i++) plans.push({ method, after: 0 });
    },
    dropAfter: (method, messages) => {
      plans.push({ method, after: messages });
    },
    close: async () => {
      upstream.close();
      const closed = new Promise<void>((resolve) => server.close(() => { resolve(); }));
      // Sessions still open (the gateway's channels) would hold close() back.
      for (const session of sessions) session.destroy();
      await closed;
    },
  };
}
