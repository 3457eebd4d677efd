// The Manager's live streams over HTTP: GET /v1/events (EventStream) and GET /v1/status
// (CreateStatusChannel), as Server-Sent Events, or NDJSON when asked (src/sse/). Each HTTP
// client has its own gRPC stream, cancelled when the client goes away. Until the first message
// arrives nothing is sent, so a refusal (a bad argument, no Manager) is an ordinary
// problem+json answer; after that, a failure is the stream's last event (`error`).
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import type { FastifyReply, FastifyRequest } from "fastify";
import { EventStreamEventSchema, Manager, NorskStatusEventSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { BytesClient, OpenBytesStream } from "norsk-manager-contract/grpc/client.js";
import type { CallOptions } from "norsk-manager-contract/grpc/types.js";
import { deadlinesOf, streamCallOptions } from "../operations/call-options.js";
import type { Deadlines } from "../operations/call-options.js";
import { problem, resourceExhausted, toProblem, unavailable } from "../http/problem.js";
import { logStreamFailure } from "../telemetry/manager-state.js";
import type { ProblemJson } from "../../schemas/common.js";
import { errorResponses } from "../http/responses.js";
import { sharedCallKey } from "../operations/shared-calls/key.js";
import type { SharedStreams } from "../operations/shared-calls/streams.js";
import { EventDecoder } from "../sse/decoder.js";
import type { EncodedEvent } from "../sse/decoder.js";
import { eventFilterOf, eventSubject } from "../operations/event-filter.js";
import { NDJSON, SSE, negotiateFormat, streamPreamble } from "../sse/frames.js";
import type { StreamFormat } from "../sse/frames.js";
import { SlowClientError, StreamBody } from "../sse/stream-body.js";
import type { StreamObserver, StreamSettings } from "../sse/stream-body.js";
import { EventLine, EventStreamQuery, StatusChannelQuery, StatusLine, sseText } from "../../schemas/events.js";
import { needs } from "../auth/scopes.js";

export interface EventRoutesOptions extends StreamSettings {
  /** The Manager's server streams, messages still encoded; each client's stream is a call of it. */
  readonly client: BytesClient<typeof Manager>;
  /** How long the Manager may take to start a stream (its first message), in ms. */
  readonly requestTimeoutMs: number;
  /** The longest total deadline a Grpc-Timeout may set on a stream, in ms. Default: requestTimeoutMs. */
  readonly maxRequestTimeoutMs?: number;
  /** The observer of each stream, by route and format (the metrics). Default: none. */
  readonly observe?: (route: string, format: StreamFormat) => StreamObserver;
  /** Streams that clients opening together share (src/operations/shared-calls/streams.ts). Default: none, a call per client. */
  readonly sharing?: SharedStreams | undefined;
}

// How a stream starts, runs and ends is said once, by the tag both streams are under
// (src/openapi/register.ts).
const STREAMING = "How a stream starts, runs and ends: see the events tag.";

function streamResponse(line: typeof EventLine) {
  return {
    description: "The stream: Server-Sent Events, or NDJSON with Accept: application/x-ndjson.",
    content: { [SSE]: { schema: sseText() }, [NDJSON]: { schema: line } },
  };
}

const EVENT_STREAM_SCHEMA = {
  operationId: "eventStream",
  tags: ["events"],
  summary: "Follow the Manager's events (Server-Sent Events)",
  description:
    "EventStream. First the current picture (nodeRunning, physicalNodeConnected, jobActive, and jobPending within " +
    "pendingWindowS), then initialDataComplete, then live events as they happen; jobId, tag and type narrow both alike, " +
    "and initialDataComplete is sent whatever they ask. " +
    "The Manager cannot resume a stream: a reconnection (with Last-Event-ID or not) gets a fresh picture, ids from 1 again, " +
    "which replaces what the client held (the picture is the whole current state), and live events after its " +
    `initialDataComplete. ${STREAMING}`,
  querystring: EventStreamQuery,
  response: { 200: streamResponse(EventLine), ...errorResponses("INVALID_ARGUMENT", "UNAVAILABLE", "DEADLINE_EXCEEDED") },
};

const STATUS_CHANNEL_SCHEMA = {
  operationId: "createStatusChannel",
  tags: ["events"],
  summary: "Follow the Manager's status (Server-Sent Events)",
  description: `CreateStatusChannel. First hello (the Manager's version), then a logEvent for each thing the Manager reports. ${STREAMING}`,
  querystring: StatusChannelQuery,
  response: { 200: streamResponse(StatusLine), ...errorResponses("INVALID_ARGUMENT", "UNAVAILABLE", "DEADLINE_EXCEEDED") },
};

/** What the streams of one plugin share. */
interface StreamRoutes {
  readonly settings: StreamSettings;
  readonly deadlines: Deadlines;
  /**
   * The streams open now, each with its request. Open streams never finish by themselves: at
   * shutdown each is ended with an error event, so that closing the server does not wait for
   * clients that would never leave.
   */
  readonly open: Map<StreamBody, FastifyRequest>;
  readonly observe: ((route: string, format: StreamFormat) => StreamObserver) | undefined;
}

/**
 * Where a route's streams come from: the call of one client's stream, and what the client is
 * sent of each message: the route's decoder (shared by every client of a route, each message
 * decoded once for all of them), narrowed by the client's filter; undefined: nothing.
 */
interface StreamSource {
  readonly call: (options: CallOptions) => OpenBytesStream;
  readonly decode: (bytes: Buffer) => EncodedEvent | undefined;
}

export const eventRoutes: FastifyPluginCallbackTypebox<EventRoutesOptions> = (app, options, done) => {
  const { client } = options;
  const routes: StreamRoutes = {
    settings: { heartbeatMs: options.heartbeatMs, bufferLimitBytes: options.bufferLimitBytes },
    deadlines: deadlinesOf(options),
    open: new Map(),
    observe: options.observe,
  };
  const events = new EventDecoder(EventStreamEventSchema, {}, eventSubject);
  const statuses = new EventDecoder(NorskStatusEventSchema);

  app.addHook("preClose", function endOpenStreams(hookDone) {
    for (const [body, request] of [...routes.open]) body.fail(shutdownProblem(request), 1_000);
    hookDone();
  });

  const { sharing } = options;

  // Never compressed: src/server/compression.ts says why.
  app.get("/v1/events", { schema: EVENT_STREAM_SCHEMA, compress: false, config: needs("events:read") }, function eventStream(request, reply) {
    const eventRequest = { pendingWindowS: request.query.pendingWindowS ?? 0 };
    // Per client, after the shared decoding: clients with different filters still share the
    // Manager's stream, which the filter does not change.
    const filter = eventFilterOf(request.query);
    const decode = (bytes: Buffer): EncodedEvent | undefined => {
      const event = events.decode(bytes);
      return event !== undefined && filter.passes(event.event, event.subject) ? event : undefined;
    };
    const call = (callOptions: CallOptions): OpenBytesStream =>
      sharing === undefined
        ? client.eventStream(eventRequest, callOptions)
        : sharing.open(sharedCallKey(Manager.method.eventStream, eventRequest, callOptions.metadata), callOptions, (own) => client.eventStream(eventRequest, own));
    return serveStream(routes, request, reply, { call, decode });
  });

  app.get("/v1/status", { schema: STATUS_CHANNEL_SCHEMA, compress: false, config: needs("events:read") }, function createStatusChannel(request, reply) {
    const call = (callOptions: CallOptions): OpenBytesStream =>
      sharing === undefined
        ? client.createStatusChannel({}, callOptions)
        : sharing.open(sharedCallKey(Manager.method.createStatusChannel, {}, callOptions.metadata), callOptions, (own) => client.createStatusChannel({}, own));
    return serveStream(routes, request, reply, { call, decode: (bytes) => statuses.decode(bytes) });
  });

  done();
};

/** Answers with the stream once it has started; a failed start is thrown, for a problem answer. */
async function serveStream(routes: StreamRoutes, request: FastifyRequest, reply: FastifyReply, source: StreamSource): Promise<FastifyReply> {
  const format = negotiateFormat(request.headers.accept);
  const body = streamBody(routes, request, reply, format, source);
  routes.open.set(body, request);
  body.once("close", () => routes.open.delete(body));
  endWithCredentials(body, request);
  try {
    await body.started;
  } catch (error) {
    routes.open.delete(body);
    throw error;
  }
  void reply
    .type(format === "sse" ? `${SSE}; charset=utf-8` : NDJSON)
    .header("cache-control", "no-cache")
    // Proxies such as nginx would otherwise hold events back to fill their buffers.
    .header("x-accel-buffering", "no")
    // A stream holds its connection to the end; closing it then lets a shutdown finish
    // rather than wait for an idle keep-alive connection to time out.
    .header("connection", "close");
  if (request.method === "HEAD") {
    // The headers a GET would have (the stream did start), and no stream held open for them.
    body.destroy();
    return reply.send();
  }
  return reply.send(body);
}

/** The body of one client's stream, its call opened. */
function streamBody(routes: StreamRoutes, request: FastifyRequest, reply: FastifyReply, format: StreamFormat, source: StreamSource): StreamBody {
  // The request timeout bounds the start only; the whole stream has no deadline unless the
  // client's Grpc-Timeout sets one (at most the maximum). There is no bound on the gaps: a
  // stream of events is quiet while nothing happens.
  const { idleTimeoutMs, ...callOptions } = streamCallOptions(request, reply, routes.deadlines);
  return new StreamBody({
    ...routes.settings,
    format,
    open: source.call(callOptions),
    decode: source.decode,
    preamble: streamPreamble(format),
    startTimeoutMs: Math.min(idleTimeoutMs, callOptions.timeoutMs),
    response: reply.raw,
    observer: routes.observe?.(request.routeOptions.url ?? "", format),
    problemOf: (error) =>
      toProblem(error instanceof SlowClientError ? resourceExhausted(`${error.message}; reconnect`) : error, request),
    onFailure: (error) => {
      if (error instanceof SlowClientError) request.log.info({ reason: error.message }, "event stream client too slow; closed");
      else logStreamFailure(request.log, error, "event stream failed");
    },
  });
}

/** The longest delay setTimeout keeps (a longer one fires at once): about 24.8 days. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A stream does not outlive its credentials: at the principal's expiry (a JWT's exp), or when
 * they are revoked (an API key's entry removed or changed, and --api-keys re-read), it ends with
 * an error event saying so, and the client reconnects with valid ones.
 */
function endWithCredentials(body: StreamBody, request: FastifyRequest): void {
  endAtExpiry(body, request);
  const revoked = request.principal?.revoked;
  if (revoked === undefined) return;
  const end = (): void => { body.fail(toProblem(problem("UNAUTHENTICATED", "the credentials were revoked or their scopes changed; reconnect with valid ones"), request)); };
  if (revoked.aborted) {
    end();
    return;
  }
  revoked.addEventListener("abort", end, { once: true });
  body.once("close", () => { revoked.removeEventListener("abort", end); });
}

/** At the principal's expiry, the stream ends. One timer per stream, cleared when the stream closes; none for credentials that do not expire. */
function endAtExpiry(body: StreamBody, request: FastifyRequest): void {
  const expiresAtMs = request.principal?.expiresAtMs;
  if (expiresAtMs === undefined) return;
  let timer: NodeJS.Timeout | undefined;
  const arm = (): void => {
    const remaining = expiresAtMs - Date.now();
    timer = remaining > MAX_TIMER_MS ? setTimeout(arm, MAX_TIMER_MS) : setTimeout(() => { body.fail(expiredProblem(request)); }, Math.max(0, remaining));
  };
  arm();
  body.once("close", () => { clearTimeout(timer); });
}

function expiredProblem(request: FastifyRequest): ProblemJson {
  return toProblem(problem("UNAUTHENTICATED", "the access token expired; reconnect with a fresh token"), request);
}

function shutdownProblem(request: FastifyRequest): ProblemJson {
  return {
    ...toProblem(unavailable(""), request),
    detail: "the gateway is shutting down; reconnect",
  };
}
