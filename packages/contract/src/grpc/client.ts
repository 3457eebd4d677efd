// A typed client over one long-lived grpc-js channel: a promise per unary call, an async
// iterable per server stream. Every call has a deadline; an AbortSignal cancels it.
//
// A client made with `messages: "bytes"` offers the server streams only, and hands their
// messages over still encoded, as they arrive. An event stream needs that: every client of
// /v1/events receives the same messages, so they are decoded and turned into JSON once for all
// of them (src/sse/decoder.ts), not once per client. Such a stream is read as fast as it comes
// (flowing mode): a consumer that wants a bound keeps it itself (src/sse/stream-body.ts), so
// unread data never holds up a channel that other calls share.
import { Client as GrpcClient, Metadata, credentials, status } from "@grpc/grpc-js";
import type { ChannelCredentials, ChannelOptions, ClientReadableStream, Interceptor } from "@grpc/grpc-js";
import type { DescMessage, DescMethod, Message, MessageInitShape } from "@bufbuild/protobuf";
import { methodCodec } from "./codec.js";
import type { MethodCodec } from "./codec.js";
import { callError, isRetryableRead } from "./dropped.js";
import { GrpcError } from "./errors.js";
import type { CallOptions, Client, ServiceShape } from "./types.js";

export interface ChannelSettings {
  /** Default: insecure (plaintext HTTP/2), as the Manager is reached on a private network. */
  readonly credentials?: ChannelCredentials;
  /** Passed to grpc-js unchanged. Default: none. */
  readonly options?: ChannelOptions;
  /** Run around every call on the channel, in order (metrics, traces). Default: none. */
  readonly interceptors?: readonly Interceptor[];
}

/** One channel to `host:port`; share it between clients and close it once. */
export function createChannel(address: string, settings: ChannelSettings = {}): GrpcClient {
  return new GrpcClient(address, settings.credentials ?? credentials.createInsecure(), {
    ...settings.options,
    ...(settings.interceptors === undefined ? {} : { interceptors: [...settings.interceptors] }),
  });
}

export interface ClientSettings {
  /** Deadline of a call that names none, in milliseconds. Default: 10 000. */
  readonly defaultTimeoutMs?: number;
  /** Messages decoded for the caller (the default). */
  readonly messages?: "decoded";
}

export interface BytesClientSettings {
  /** Server streams only, their messages still encoded: a BytesClient. */
  readonly messages: "bytes";
  /** Deadline of a call that names none, in milliseconds. Default: none, as a stream is meant to last. */
  readonly defaultTimeoutMs?: number;
}

/** What a stream of still-encoded messages tells its consumer; exactly one of end and error comes last. */
export interface BytesStreamHandlers {
  message(bytes: Buffer): void;
  /** The server ended the stream (status OK). */
  end(): void;
  /** The call failed: the server's status, or CANCELLED after cancel or abort. */
  error(error: GrpcError): void;
}

/**
 * Opens the call and hands its messages to `handlers`; returns the function that cancels it.
 * A call whose connection goes away before its first message is opened once more: nothing
 * has reached the consumer yet, so the new call is the same stream.
 */
export type OpenBytesStream = (handlers: BytesStreamHandlers) => () => void;

/** Prepares a call; nothing is sent (and no metadata is built) until it is opened. */
export type BytesStreamCall<I extends DescMessage> = (request: MessageInitShape<I>, options?: CallOptions) => OpenBytesStream;

type InputOf<M> = M extends { input: infer I extends DescMessage } ? I : never;

/** The server-streaming methods of a service, by local name, as calls of still-encoded messages. */
export type BytesClient<S extends ServiceShape> = {
  readonly [K in keyof S["method"] as S["method"][K] extends { methodKind: "server_streaming" } ? K : never]: BytesStreamCall<
    InputOf<S["method"][K]>
  >;
};

const DEFAULT_TIMEOUT_MS = 10_000;

export function createClient<S extends ServiceShape>(service: S, channel: GrpcClient, settings: BytesClientSettings): BytesClient<S>;
export function createClient<S extends ServiceShape>(service: S, channel: GrpcClient, settings?: ClientSettings): Client<S>;
export function createClient<S extends ServiceShape>(
  service: S,
  channel: GrpcClient,
  settings: ClientSettings | BytesClientSettings = {},
): Client<S> | BytesClient<S> {
  const calls: Record<string, unknown> = {};
  if (settings.messages === "bytes") {
    const defaultTimeoutMs = settings.defaultTimeoutMs ?? Infinity;
    for (const method of service.methods) {
      if (method.methodKind === "server_streaming") calls[method.localName] = makeBytesCall(channel, method, defaultTimeoutMs);
    }
    // The mapped type BytesClient<S> is exactly what the loop built: its server streams.
    return calls as BytesClient<S>;
  }
  const defaultTimeoutMs = settings.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
  for (const method of service.methods) calls[method.localName] = makeCall(channel, method, defaultTimeoutMs);
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

function makeBytesCall(channel: GrpcClient, method: DescMethod, defaultTimeoutMs: number): BytesStreamCall<DescMessage> {
  const codec = methodCodec(method);
  return (request, options = {}) =>
    (handlers) =>
      bytesStream(() => startStream(channel, codec, keepEncoded, request, options, defaultTimeoutMs), options.signal, handlers);
}

function unary(channel: GrpcClient, codec: MethodCodec, request: unknown, options: CallOptions, defaultTimeoutMs: number): Promise<Message> {
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted === true) {
      reject(new GrpcError(status.CANCELLED, "call aborted before it started"));
      return;
    }
    let stopListening = (): void => undefined;
    const call = channel.makeUnaryRequest(
      codec.path,
      codec.serializeRequest,
      codec.deserializeResponse,
      codec.createRequest(request),
      toMetadata(options.metadata),
      { deadline: deadline(options, defaultTimeoutMs) },
      (error, value) => {
        stopListening();
        if (error !== null || value === undefined) reject(callError(error));
        else resolve(value);
      },
    );
    stopListening = cancelOnAbort(options.signal, () => {
      call.cancel();
    });
  });
}

async function* serverStream(
  channel: GrpcClient,
  codec: MethodCodec,
  request: unknown,
  options: CallOptions,
  defaultTimeoutMs: number,
): AsyncGenerator<Message> {
  if (options.signal?.aborted === true) throw new GrpcError(status.CANCELLED, "call aborted before it started");
  const call = startStream(channel, codec, codec.deserializeResponse, request, options, defaultTimeoutMs);
  const stopListening = cancelOnAbort(options.signal, () => {
    call.cancel();
  });
  const waiting = new WaitBound(options.idleTimeoutMs, () => {
    call.cancel();
  });
  const messages = (call as AsyncIterable<Message>)[Symbol.asyncIterator]();
  let finished = false;
  try {
    for (;;) {
      waiting.start();
      const next = await messages.next();
      waiting.stop();
      if (next.done === true) break;
      yield next.value;
    }
    finished = true;
  } catch (error) {
    finished = true;
    throw waiting.expired ? waiting.error() : callError(error);
  } finally {
    waiting.stop();
    stopListening();
    // The consumer stopped early: tell the server, so it stops producing.
    if (!finished) call.cancel();
  }
  // A wait that expired fails the stream however grpc-js reported the cancellation: it must
  // never look like a whole stream that merely ended.
  if (waiting.expired) throw waiting.error();
}

/**
 * CallOptions.idleTimeoutMs over the waits of one stream: a wait (start() to stop()) that lasts
 * longer than `ms` runs `expire`, which cancels the call; from then on `expired` holds and the
 * stream fails with error(). No bound when `ms` is undefined.
 */
class WaitBound {
  #timer: NodeJS.Timeout | undefined;
  #expired = false;

  constructor(
    private readonly ms: number | undefined,
    private readonly expire: () => void,
  ) {}

  get expired(): boolean {
    return this.#expired;
  }

  start(): void {
    if (this.ms === undefined) return;
    this.#timer = setTimeout(() => {
      this.#expired = true;
      this.expire();
    }, this.ms);
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  error(): GrpcError {
    return new GrpcError(status.DEADLINE_EXCEEDED, `no message within ${String(this.ms)} ms`);
  }
}

/** The bytes-stream contract of OpenBytesStream over calls made by `start`. */
function bytesStream(start: () => ClientReadableStream<Buffer>, signal: AbortSignal | undefined, handlers: BytesStreamHandlers): () => void {
  let call: ClientReadableStream<Buffer>;
  let done = false;
  let mayRetry = true;
  let stopListening = (): void => undefined;
  const finish = (): boolean => {
    if (done) return false;
    done = true;
    stopListening();
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
      if (mayRetry && !done && isRetryableRead(error) && signal?.aborted !== true) {
        mayRetry = false;
        open();
        return;
      }
      if (finish()) handlers.error(error);
    });
  };
  open();
  // Opened even when already aborted, then cancelled: the consumer learns of it as CANCELLED.
  stopListening = cancelOnAbort(signal, cancel);
  return cancel;
}

function startStream<T>(
  channel: GrpcClient,
  codec: MethodCodec,
  deserialize: (bytes: Buffer) => T,
  request: unknown,
  options: CallOptions,
  defaultTimeoutMs: number,
): ClientReadableStream<T> {
  const metadata = toMetadata(options.metadata);
  return channel.makeServerStreamRequest(codec.path, codec.serializeRequest, deserialize, codec.createRequest(request), metadata, {
    deadline: deadline(options, defaultTimeoutMs),
  });
}

const keepEncoded = (bytes: Buffer): Buffer => bytes;

/** In ms since the epoch; Infinity (no deadline) when the timeout is. */
function deadline(options: CallOptions, defaultTimeoutMs: number): number {
  return Date.now() + (options.timeoutMs ?? defaultTimeoutMs);
}

/** Cancels when `signal` aborts, at once if it already has; returns what stops listening. */
function cancelOnAbort(signal: AbortSignal | undefined, cancel: () => void): () => void {
  if (signal === undefined) return () => undefined;
  if (signal.aborted) {
    cancel();
    return () => undefined;
  }
  signal.addEventListener("abort", cancel, { once: true });
  return () => {
    signal.removeEventListener("abort", cancel);
  };
}

/** grpc-js Metadata of plain entries; built anew for each call, as grpc-js may keep what it is given. */
function toMetadata(entries: Readonly<Record<string, string>> | undefined): Metadata {
  const metadata = new Metadata();
  if (entries !== undefined) {
    for (const [key, value] of Object.entries(entries)) metadata.set(key, value);
  }
  return metadata;
}
