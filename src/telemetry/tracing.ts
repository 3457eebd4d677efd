// Traces, with OpenTelemetry: a server span per HTTP request and a client span per gRPC call
// to the Manager, its child, with W3C trace context in and out (the request's traceparent and
// tracestate are the server span's parent; the client span's context goes to the Manager as
// traceparent and tracestate metadata). Spans are exported over OTLP/HTTP (JSON) to the
// collector at --otlp-endpoint (OTEL_EXPORTER_OTLP_ENDPOINT). Without one, nothing of
// OpenTelemetry is loaded (the SDK is imported here only then: see startTracing's callers)
// and no hook or interceptor is added, so tracing off costs nothing.
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { SpanKind, SpanStatusCode, context, propagation, trace } from "@opentelemetry/api";
import type { Span, Tracer } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { InterceptingCall, ListenerBuilder, RequesterBuilder, status as grpcStatus } from "@grpc/grpc-js";
import type { Interceptor, Metadata } from "@grpc/grpc-js";
import type { FastifyRequest, onRequestHookHandler } from "fastify";
import { codeName } from "../http/status.js";
import { routeOf } from "./request-facts.js";

export interface TracingOptions {
  /** The collector's base URL; spans go to `${endpoint}/v1/traces`, as the OTLP spec says. */
  readonly endpoint: string;
  /** The resource's service.name. Default: norsk-manager-gateway. */
  readonly serviceName?: string;
}

export interface Tracing {
  /** An onRequest hook that runs the rest of the request inside its server span. */
  readonly hook: onRequestHookHandler;
  /** Makes a client span of each gRPC call, and sends its context as metadata. */
  readonly interceptor: Interceptor;
  /** The trace id of a request's server span. */
  traceIdOf(request: FastifyRequest): string | undefined;
  /** Exports what is pending, and stops. */
  shutdown(): Promise<void>;
}

const spans = new WeakMap<FastifyRequest, Span>();

export function startTracing(options: TracingOptions): Tracing {
  const exporter = new OTLPTraceExporter({ url: `${options.endpoint.replace(/\/+$/, "")}/v1/traces` });
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ "service.name": options.serviceName ?? "norsk-manager-gateway" }),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const tracer = provider.getTracer("norsk-manager-gateway");
  return {
    hook: serverSpanHook(tracer),
    interceptor: clientSpanInterceptor(tracer),
    traceIdOf: (request) => spans.get(request)?.spanContext().traceId,
    shutdown: async () => {
      await provider.shutdown();
      contextManager.disable();
      context.disable();
      propagation.disable();
    },
  };
}

function serverSpanHook(tracer: Tracer): onRequestHookHandler {
  return (request, reply, done) => {
    const parent = propagation.extract(context.active(), request.headers);
    const route = routeOf(request);
    const span = tracer.startSpan(
      route === null ? request.method : `${request.method} ${route}`,
      {
        kind: SpanKind.SERVER,
        attributes: { "http.request.method": request.method, "url.path": request.url.split("?")[0] ?? "", ...(route === null ? {} : { "http.route": route }) },
      },
      parent,
    );
    spans.set(request, span);
    reply.raw.once("close", () => {
      span.setAttribute("http.response.status_code", reply.statusCode);
      // Who made the request, once authenticated (OpenTelemetry's enduser.id); none when anonymous.
      const { principal } = request as Partial<Pick<FastifyRequest, "principal">>;
      if (principal !== undefined && principal !== null && principal.kind !== "anonymous") span.setAttribute("enduser.id", principal.id);
      if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    });
    // Everything the request does from here on (hooks, handler, gRPC calls) runs in its span.
    context.with(trace.setSpan(parent, span), done);
  };
}

function clientSpanInterceptor(tracer: Tracer): Interceptor {
  return (options, nextCall) => {
    const path = options.method_definition.path;
    const [, service = "", method = ""] = /^\/([^/]*)\/(.*)$/.exec(path) ?? [];
    const span = tracer.startSpan(`${service}/${method}`, {
      kind: SpanKind.CLIENT,
      attributes: { "rpc.system": "grpc", "rpc.service": service, "rpc.method": method },
    });
    const callContext = trace.setSpan(context.active(), span);
    const requester = new RequesterBuilder()
      .withStart((metadata, _listener, next) => {
        // The Manager's parent is this call's span, not the HTTP client's: set, not added.
        propagation.inject(callContext, metadata, { set: (carrier: Metadata, key, value) => { carrier.set(key, value); } });
        const watching = new ListenerBuilder()
          .withOnReceiveStatus((status, nextStatus) => {
            span.setAttribute("rpc.grpc.status_code", status.code);
            span.setAttribute("rpc.grpc.status_name", codeName(status.code));
            if (status.code !== grpcStatus.OK) span.setStatus({ code: SpanStatusCode.ERROR, message: codeName(status.code) });
            span.end();
            nextStatus(status);
          })
          .build();
        next(metadata, watching);
      })
      .build();
    return new InterceptingCall(nextCall(options), requester);
  };
}
