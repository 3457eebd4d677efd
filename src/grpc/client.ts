// A typed client over one long-lived grpc-js channel: a promise per unary call, an async
// iterable per server stream. Every call has a deadline; an AbortSignal cancels it.
import { Client as GrpcClient, Metadata, credentials, status } from "@grpc/grpc-js";
import type { ChannelCredentials, ChannelOptions, ClientReadableStream } from "@grpc/grpc-js";
import type { DescMethod, Message } from "@bufbuild/protobuf";
import { methodCodec } from "./codec.js";
import type { MethodCodec } from "./codec.js";
import { callError } from "./dropped.js";
import { GrpcError } from "./errors.js";
import type { CallOptions, Client, ServiceShape } from "./types.js";

export interface ChannelSettings {
  /** Default: insecure (plaintext HTTP/2), as the Manager is reached on a private network. */
  readonly credentials?: ChannelCredentials;
  /** Passed to grpc-js unchanged. Default: none. */
  readonly options?: ChannelOptions;
}

/** One channel to `host:port`; share it between clients and close it once. */
export function createChannel(address: string, settings: ChannelSettings = {}): GrpcClient {
  return new GrpcClient(address, settings.credentials ?? credentials.createInsecure(), settings.options ?? {});
}

export interface ClientSettings {
  /** Deadline of a call that names none, in milliseconds. Default: 10 000. */
  readonly defaultTimeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;

export function createClient<S extends ServiceShape>(service: S, channel: GrpcClient, settings: ClientSettings = {}): Client<S> {
  const defaultTimeoutMs = settings.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
  const calls: Record<string, unknown> = {};
  for (const method of service.methods) {
    calls[method.localName] = makeCall(channel, method, defaultTimeoutMs);
  }
  // The mapped type Client<S> is exactly what the loop built, method by method.
  return calls as Client<S>;
}

function makeCall(channel: GrpcClient, method: DescMethod, defaultTimeoutMs: number): unknown {
  const codec = methodCodec(method);
  switch (method.methodKind) {
    case "unary":
      return (request: unknown, options: CallOptions = {}) => unary(channel, codec, request, options, defaultTimeoutMs);
    case "server_streaming":
      return (request: unknown, options: CallOptions = {}) => ({
        [Symbol.asyncIterator]: () => serverStream(channel, codec, request, options, defaultTimeoutMs),
      });
    default:
      return () => {
        throw new GrpcError(status.UNIMPLEMENTED, `${method.methodKind} calls are not supported by this client`);
      };
  }
}

function unary(
  channel: GrpcClient,
  codec: MethodCodec,
  request: unknown,
  options: CallOptions,
  defaultTimeoutMs: number,
): Promise<Message> {
  return new Promise((resolve, reject) => {
    const { signal } = options;
    if (signal?.aborted) {
      reject(new GrpcError(status.CANCELLED, "call aborted before it started"));
      return;
    }
    const onAbort = (): void => {
      call.cancel();
    };
    const call = channel.makeUnaryRequest(
      codec.path,
      codec.serializeRequest,
      codec.deserializeResponse,
      codec.createRequest(request),
      toMetadata(options.metadata),
      { deadline: deadline(options, defaultTimeoutMs) },
      (error, value) => {
        signal?.removeEventListener("abort", onAbort);
        if (error !== null || value === undefined) reject(callError(error));
        else resolve(value);
      },
    );
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

async function* serverStream(
  channel: GrpcClient,
  codec: MethodCodec,
  request: unknown,
  options: CallOptions,
  defaultTimeoutMs: number,
): AsyncGenerator<Message> {
  const { signal } = options;
  if (signal?.aborted) throw new GrpcError(status.CANCELLED, "call aborted before it started");
  const call: ClientReadableStream<Message> = channel.makeServerStreamRequest(
    codec.path,
    codec.serializeRequest,
    codec.deserializeResponse,
    codec.createRequest(request),
    toMetadata(options.metadata),
    { deadline: deadline(options, defaultTimeoutMs) },
  );
  const onAbort = (): void => {
    call.cancel();
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  let finished = false;
  try {
    for await (const message of call as AsyncIterable<Message>) yield message;
    finished = true;
  } catch (error) {
    finished = true;
    throw callError(error);
  } finally {
    signal?.removeEventListener("abort", onAbort);
    // The consumer stopped early: tell the server, so it stops producing.
    if (!finished) call.cancel();
  }
}

function deadline(options: CallOptions, defaultTimeoutMs: number): Date {
  return new Date(Date.now() + (options.timeoutMs ?? defaultTimeoutMs));
}

/** grpc-js Metadata of plain entries; shared with the raw event streams (src/sse/upstream.ts). */
export function toMetadata(entries: Readonly<Record<string, string>> | undefined): Metadata {
  const metadata = new Metadata();
  if (entries !== undefined) {
    for (const [key, value] of Object.entries(entries)) metadata.set(key, value);
  }
  return metadata;
}
