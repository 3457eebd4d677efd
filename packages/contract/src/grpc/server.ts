// Serving a generated service with grpc-js: the service definition (paths and codecs) and an
// adapter from typed handlers (promises, async iterables) to grpc-js's callback handlers.
import type { Metadata, status } from "@grpc/grpc-js";
import type {
  Server,
  ServerUnaryCall,
  ServerWritableStream,
  ServiceDefinition,
  UntypedServiceImplementation,
  sendUnaryData,
} from "@grpc/grpc-js";
import type { DescMethod, Message } from "@bufbuild/protobuf";
import { methodCodec } from "./codec.js";
import type { MethodCodec } from "./codec.js";
import { Code, GrpcError } from "./errors.js";
import type { HandlerContext, PartialServiceImpl, ServiceImpl, ServiceShape } from "./types.js";
import { serverCredentials } from "./tls.js";
import type { ServerTls } from "./tls.js";

export interface ServeOptions {
  /** Called with anything a handler throws that is not a GrpcError (answered as INTERNAL). Default: ignore. */
  readonly onUnexpectedError?: (error: unknown, method: DescMethod) => void;
  /** Called as each call arrives, before its handler runs or UNIMPLEMENTED is answered. Default: none. */
  readonly onCall?: (method: DescMethod, request: Message, context: HandlerContext) => void;
  /**
   * How many bytes a server stream may have written and not yet handed to its connection
   * (its client reads slower than it is written to) before the next message waits for them
   * to go. grpc-js's own bound counts messages, not bytes, so a stalled client could otherwise
   * hold a dozen messages of any size. Default: STREAM_BUFFER_BYTES.
   */
  readonly streamBufferBytes?: number;
}

/** ServeOptions.streamBufferBytes's default: 64 KiB. */
export const STREAM_BUFFER_BYTES = 64 * 1024;

export function serviceDefinition(service: ServiceShape): ServiceDefinition {
  const definition: Record<string, ServiceDefinition[string]> = {};
  for (const method of service.methods) {
    const codec = methodCodec(method);
    definition[method.localName] = {
      path: codec.path,
      originalName: method.name,
      requestStream: method.methodKind === "client_streaming" || method.methodKind === "bidi_streaming",
      responseStream: method.methodKind === "server_streaming" || method.methodKind === "bidi_streaming",
      requestSerialize: codec.serializeRequest,
      requestDeserialize: codec.deserializeRequest,
      responseSerialize: codec.serializeResponse,
      responseDeserialize: codec.deserializeResponse,
    };
  }
  return definition;
}

/** Registers `impl` for `service` on `server`; every method of the service must have its handler. */
export function addService<S extends ServiceShape>(
  server: Server,
  service: S,
  impl: ServiceImpl<S>,
  options: ServeOptions = {},
): void {
  const byName = impl as Readonly<Record<string, unknown>>;
  for (const method of service.methods) {
    if (typeof byName[method.localName] !== "function") throw new Error(`no handler for ${method.name}`);
  }
  addPartialService(server, service, impl, options);
}

/**
 * Registers the handlers `impl` has for `service` on `server`; a method it has none for answers
 * UNIMPLEMENTED, as grpc-js answers a method no service registered. `impl` is read at each
 * call, so a handler set, replaced or deleted while serving counts from the next call (test
 * stubs change theirs so).
 */
export function addPartialService<S extends ServiceShape>(
  server: Server,
  service: S,
  impl: PartialServiceImpl<S>,
  options: ServeOptions = {},
): void {
  const handlers: UntypedServiceImplementation = {};
  for (const method of service.methods) {
    const codec = methodCodec(method);
    const handler = dispatch(impl, method, codec, options);
    const report = (error: unknown): GrpcError => {
      if (!(error instanceof GrpcError)) options.onUnexpectedError?.(error, method);
      return GrpcError.from(error);
    };
    handlers[method.localName] =
      method.methodKind === "server_streaming"
        ? serveStream(handler, codec, report, options.streamBufferBytes ?? STREAM_BUFFER_BYTES)
        : serveUnary(handler, codec, report);
  }
  server.addService(serviceDefinition(service), handlers);
}

type HandlerFn = (request: Message, context: HandlerContext) => unknown;

/** The handler `byName` holds for `method` when a call arrives, or an UNIMPLEMENTED answer. */
function dispatch(byName: Readonly<Record<string, unknown>>, method: DescMethod, codec: MethodCodec, options: ServeOptions): HandlerFn {
  return (request, context) => {
    options.onCall?.(method, request, context);
    const handler = byName[method.localName];
    if (typeof handler !== "function") {
      throw new GrpcError(Code.UNIMPLEMENTED, `The server does not implement the method ${codec.path}`);
    }
    return (handler as HandlerFn)(request, context);
  };
}

function serveUnary(handler: HandlerFn, codec: MethodCodec, report: (e: unknown) => GrpcError) {
  return (call: ServerUnaryCall<Message, Message>, callback: sendUnaryData<Message>): void => {
    const { context, settle } = contextOf(call);
    Promise.resolve()
      .then(() => handler(call.request, context))
      .then(
        (result) => {
          settle();
          callback(null, codec.createResponse(result));
        },
        (error: unknown) => {
          settle();
          callback(toStatus(report(error)));
        },
      );
  };
}

// Each message is encoded here (codec.serializeResponse of a server stream encodes a message
// once, so grpc-js's own call finds it done) to count its bytes until grpc-js reports them
// written; past `bufferBytes`, the handler's next message waits (a message larger than the
// buffer still goes, alone).
function serveStream(handler: HandlerFn, codec: MethodCodec, report: (e: unknown) => GrpcError, bufferBytes: number) {
  return (call: ServerWritableStream<Message, Message>): void => {
    const { context, settle } = contextOf(call);
    const unsent = new UnsentBytes(bufferBytes, context.signal);
    void (async () => {
      try {
        // A server-streaming handler returns an AsyncIterable (ServiceImpl says so).
        for await (const item of handler(call.request, context) as AsyncIterable<unknown>) {
          if (context.signal.aborted) break;
          const message = codec.createResponse(item);
          const size = codec.serializeResponse(message).length;
          unsent.add(size);
          call.write(message, () => {
            unsent.sent(size);
          });
          await unsent.room();
        }
        if (!context.signal.aborted) {
          settle();
          call.end();
        }
      } catch (error) {
        if (!context.signal.aborted) {
          settle();
          call.emit("error", toStatus(report(error)));
        }
      }
    })();
  };
}

/** The bytes a stream has written that grpc-js has not yet reported sent, and waiting for room. */
class UnsentBytes {
  #bytes = 0;
  #wake: (() => void) | undefined;

  constructor(
    private readonly limit: number,
    private readonly signal: AbortSignal,
  ) {
    signal.addEventListener(
      "abort",
      () => {
        this.#notify();
      },
      { once: true },
    );
  }

  add(size: number): void {
    this.#bytes += size;
  }

  sent(size: number): void {
    this.#bytes -= size;
    if (this.#bytes <= this.limit) this.#notify();
  }

  /** Resolves once the unsent bytes are within the limit, or the call has ended (the loop then stops). */
  async room(): Promise<void> {
    while (this.#bytes > this.limit && !this.signal.aborted) {
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}

/**
 * The handler's view of its call. grpc-js emits "cancelled" whenever the call's stream closes,
 * a completed call included; `settle()` (called once the handler has answered) stops that late
 * event from aborting a signal that no one listens to any more, which would cost an exception
 * object per call.
 */
function contextOf(call: ServerUnaryCall<Message, Message> | ServerWritableStream<Message, Message>): {
  context: HandlerContext;
  settle: () => void;
} {
  const controller = new AbortController();
  const onCancelled = (): void => {
    controller.abort();
  };
  call.once("cancelled", onCancelled);
  if (call.cancelled) controller.abort();
  const deadline = Number(call.getDeadline());
  return {
    context: {
      metadata: metadataMap(call.metadata),
      signal: controller.signal,
      deadline: Number.isFinite(deadline) ? deadline : undefined,
    },
    settle: () => {
      call.removeListener("cancelled", onCancelled);
    },
  };
}

function metadataMap(metadata: Metadata): ReadonlyMap<string, string> {
  const map = new Map<string, string>();
  for (const [key, value] of Object.entries(metadata.getMap())) {
    if (typeof value === "string") map.set(key, value);
  }
  return map;
}

function toStatus(error: GrpcError): { code: status; details: string; metadata: Metadata } {
  return { code: error.code, details: error.details, metadata: error.metadata };
}

/**
 * Binds `server` to `address` ("host:port", port 0 picks a free one), with TLS when `tls` is
 * given; resolves with the port.
 */
export function listen(server: Server, address: string, tls?: ServerTls): Promise<number> {
  return new Promise((resolve, reject) => {
    server.bindAsync(address, serverCredentials(tls), (error, port) => {
      if (error) reject(error);
      else resolve(port);
    });
  });
}
