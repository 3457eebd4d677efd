// Type-level view of a generated service: which methods are unary, which server-streaming,
// and the message types they take and give. Derived from the GenService shape that
// protoc-gen-es emits, so a new RPC in proto/ is typed here without further code.
import type { DescMessage, DescMethod, MessageInitShape, MessageShape } from "@bufbuild/protobuf";

/** The methods of a generated service, by local name (createJob, jobSearch, ...). */
export interface ServiceShape {
  readonly typeName: string;
  readonly methods: readonly DescMethod[];
  readonly method: Record<string, DescMethod>;
}

type MethodOf<S extends ServiceShape, K extends keyof S["method"]> = S["method"][K];
type In<M> = M extends { input: infer I extends DescMessage } ? I : never;
type Out<M> = M extends { output: infer O extends DescMessage } ? O : never;

/** Per-call options of the client. */
export interface CallOptions {
  /** Milliseconds until the call's deadline. Default: the client's `defaultTimeoutMs`. */
  readonly timeoutMs?: number | undefined;
  /** Sent as gRPC metadata; keys are lower-cased by grpc-js. Default: none. */
  readonly metadata?: Readonly<Record<string, string>> | undefined;
  /** Aborting it cancels the call (the server sees CANCELLED). Default: none. */
  readonly signal?: AbortSignal | undefined;
  /**
   * Server streams of a decoded client: the longest the consumer may wait for the first message,
   * and for each next one, in ms (time spent by the consumer between messages does not count).
   * A wait that lasts longer cancels the call, which fails with DEADLINE_EXCEEDED; unlike
   * `timeoutMs`, it bounds waiting, not reading, so a long stream that keeps coming is not cut.
   * A BytesClient ignores it: its consumer bounds the start itself (src/sse/stream-body.ts).
   * Default: none.
   */
  readonly idleTimeoutMs?: number | undefined;
}

export type UnaryCall<I extends DescMessage, O extends DescMessage> = (
  request: MessageInitShape<I>,
  options?: CallOptions,
) => Promise<MessageShape<O>>;

/** Iterating pulls messages as they arrive; stopping early (break, return, throw) cancels the call. */
export type ServerStreamCall<I extends DescMessage, O extends DescMessage> = (
  request: MessageInitShape<I>,
  options?: CallOptions,
) => AsyncIterable<MessageShape<O>>;

export type Client<S extends ServiceShape> = {
  readonly [K in keyof S["method"]]: MethodOf<S, K> extends { methodKind: "unary" }
    ? UnaryCall<In<MethodOf<S, K>>, Out<MethodOf<S, K>>>
    : MethodOf<S, K> extends { methodKind: "server_streaming" }
      ? ServerStreamCall<In<MethodOf<S, K>>, Out<MethodOf<S, K>>>
      : never;
};

/** What a server handler learns about its call. */
export interface HandlerContext {
  /** Incoming metadata, first value per key. */
  readonly metadata: ReadonlyMap<string, string>;
  /** Aborted when the client cancels, its deadline passes, or the connection drops. */
  readonly signal: AbortSignal;
  /** The call's deadline as the client set it, in ms since the epoch; undefined: none. */
  readonly deadline: number | undefined;
}

export type UnaryHandler<I extends DescMessage, O extends DescMessage> = (
  request: MessageShape<I>,
  context: HandlerContext,
) => Promise<MessageInitShape<O>> | MessageInitShape<O>;

/**
 * Yielded messages are written with back-pressure; returning ends the stream with OK. A
 * yielded message must not change afterwards: it is encoded once for every call that sends
 * it (src/grpc/codec.ts).
 */
export type ServerStreamHandler<I extends DescMessage, O extends DescMessage> = (
  request: MessageShape<I>,
  context: HandlerContext,
) => AsyncIterable<MessageInitShape<O>>;

export type ServiceImpl<S extends ServiceShape> = {
  readonly [K in keyof S["method"]]: MethodOf<S, K> extends { methodKind: "unary" }
    ? UnaryHandler<In<MethodOf<S, K>>, Out<MethodOf<S, K>>>
    : MethodOf<S, K> extends { methodKind: "server_streaming" }
      ? ServerStreamHandler<In<MethodOf<S, K>>, Out<MethodOf<S, K>>>
      : never;
};

/** Some of a service's handlers, by local name; addPartialService answers UNIMPLEMENTED for the rest. */
export type PartialServiceImpl<S extends ServiceShape> = Partial<ServiceImpl<S>>;
