// A server-streaming call whose messages are handed over as they arrive, still encoded. The
// typed client (src/grpc/client.ts) decodes each message for its caller; an event stream does
// not need that: every client of /v1/events receives the same messages, so they are decoded
// and turned into JSON once for all of them (src/sse/decoder.ts), not once per client. The
// messages are taken as fast as they come (flowing mode): the per-client bound is kept by the
// consumer (stream-body.ts), so unread data never holds up the channel that all streams share.
import type { Client as GrpcChannel, ClientReadableStream } from "@grpc/grpc-js";
import type { DescMethod } from "@bufbuild/protobuf";
import { toMetadata } from "../grpc/client.js";
import { methodCodec } from "../grpc/codec.js";
import { callError, isRetryableRead } from "../grpc/dropped.js";
import type { GrpcError } from "../grpc/errors.js";
import type { CallOptions } from "../grpc/types.js";

export interface UpstreamHandlers {
  message(bytes: Buffer): void;
  /** The Manager ended the stream (status OK). */
  end(): void;
  /** The call failed: the Manager's status, or CANCELLED after cancel(). */
  error(error: GrpcError): void;
}

/** Starts one call; returns the function that cancels it. */
export type OpenUpstream = (handlers: UpstreamHandlers) => () => void;

export function rawServerStream(channel: GrpcChannel, method: DescMethod, request: unknown, options: CallOptions): OpenUpstream {
  if (method.methodKind !== "server_streaming") throw new Error(`${method.name} is not a server stream`);
  const codec = methodCodec(method);
  const start = (): ClientReadableStream<Buffer> => {
    const metadata = toMetadata(options.metadata);
    // A stream is meant to last: without a timeout it has no deadline (grpc-js: Infinity).
    const deadline = options.timeoutMs === undefined ? Infinity : Date.now() + options.timeoutMs;
    return channel.makeServerStreamRequest(codec.path, codec.serializeRequest, (bytes: Buffer) => bytes, codec.createRequest(request), metadata, { deadline });
  };
  return (handlers) => {
    let call: ClientReadableStream<Buffer>;
    let done = false;
    // A stream that fails because its connection went away before it sent anything is opened
    // once more: nothing has reached the client yet, so the new one is the same stream.
    let mayRetry = true;
    const finish = (): boolean => {
      if (done) return false;
      done = true;
      options.signal?.removeEventListener("abort", cancel);
      return true;
    };
    const cancel = (): void => {
      call.cancel();
    };
    const open = (): void => {
      const current = start();
      call = current;
      current.on("data", (bytes: Buffer) => {
        mayRetry = false;
        if (!done && call === current) handlers.message(bytes);
      });
      current.on("end", () => {
        if (call === current && finish()) handlers.end();
      });
      current.on("error", (raw: unknown) => {
        if (call !== current) return;
        const error = callError(raw);
        if (mayRetry && !done && isRetryableRead(error) && options.signal?.aborted !== true) {
          mayRetry = false;
          open();
          return;
        }
        if (finish()) handlers.error(error);
      });
    };
    open();
    if (options.signal?.aborted === true) cancel();
    else options.signal?.addEventListener("abort", cancel, { once: true });
    return cancel;
  };
}
