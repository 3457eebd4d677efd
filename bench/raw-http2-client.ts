// A gRPC client of two calls (UpdateJob, JobSearch) straight over node:http2, without grpc-js:
// what bench:grpc sets against grpc-js to show what grpc-js itself costs per call. Just enough
// of the protocol for a healthy server on loopback ("gRPC over HTTP/2": length-prefixed
// messages, grpc-status in the trailers): no deadlines, retries, reconnection or compression,
// which is why the gateway does not use it.
import { connect, constants } from "node:http2";
import type { ClientHttp2Session } from "node:http2";
import type { DescMethod, Message } from "@bufbuild/protobuf";
import { Manager } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { Client } from "norsk-manager-contract/grpc/types.js";
import { methodCodec } from "norsk-manager-contract/grpc/codec.js";

/** The messages of one call's answer, each as sent (5-byte prefix removed). */
function call(session: ClientHttp2Session, method: DescMethod, request: unknown, metadata: Readonly<Record<string, string>> | undefined): Promise<Buffer[]> {
  const codec = methodCodec(method);
  const body = codec.serializeRequest(codec.createRequest(request));
  const frame = Buffer.allocUnsafe(5 + body.length);
  frame.writeUInt8(0, 0);
  frame.writeUInt32BE(body.length, 1);
  body.copy(frame, 5);
  return new Promise((resolve, reject) => {
    const stream = session.request({
      [constants.HTTP2_HEADER_METHOD]: "POST",
      [constants.HTTP2_HEADER_PATH]: codec.path,
      "content-type": "application/grpc",
      te: "trailers",
      ...metadata,
    });
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("trailers", (trailers: Record<string, string | undefined>) => {
      const code = trailers["grpc-status"];
      if (code !== "0") reject(new Error(`grpc-status ${String(code)}`));
    });
    stream.on("error", reject);
    stream.on("end", () => {
      const all = Buffer.concat(chunks);
      const messages: Buffer[] = [];
      for (let at = 0; at + 5 <= all.length; ) {
        const length = all.readUInt32BE(at + 1);
        messages.push(all.subarray(at + 5, at + 5 + length));
        at += 5 + length;
      }
      resolve(messages);
    });
    stream.end(frame);
  });
}

/** UpdateJob and JobSearch of the Manager at `address`, as the contract's Client types them. */
export function rawHttp2Manager(address: string): { manager: Client<typeof Manager>; close(): void } {
  const session = connect(`http://${address}`);
  const update = methodCodec(Manager.method.updateJob);
  const search = methodCodec(Manager.method.jobSearch);
  const manager = {
    updateJob: async (request: unknown, options: { metadata?: Record<string, string> } = {}): Promise<Message> => {
      const [answer] = await call(session, Manager.method.updateJob, request, options.metadata);
      return update.deserializeResponse(answer ?? Buffer.alloc(0));
    },
    jobSearch: (request: unknown, options: { metadata?: Record<string, string> } = {}): AsyncIterable<Message> => ({
      async *[Symbol.asyncIterator]() {
        for (const bytes of await call(session, Manager.method.jobSearch, request, options.metadata)) yield search.deserializeResponse(bytes);
      },
    }),
  };
  // Only the two calls bench:grpc makes are here.
  return { manager: manager as unknown as Client<typeof Manager>, close: () => { session.close(); } };
}
