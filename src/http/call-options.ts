// What an HTTP request carries into its gRPC call (docs/architecture.md, "HTTP surface"): a
// deadline, the allow-listed metadata, and a signal that fires when the HTTP client goes away. The
// headers
// that reach the Manager are checked first: a malformed Grpc-Timeout, or a header gRPC metadata
// cannot carry, is a 400 naming it, never silently ignored and never an exception inside grpc-js.
import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import type { FastifyReply, FastifyRequest } from "fastify";
import { invalidArgument } from "./problem.js";
import type { CallOptions } from "norsk-manager-contract/grpc/types.js";
import { keyFault, valueFault } from "norsk-manager-contract/grpc/metadata-rules.js";

const UNIT_MS: Readonly<Record<string, number>> = { H: 3_600_000, M: 60_000, S: 1_000, m: 1, u: 1e-3, n: 1e-6 };

/**
 * Parses a Grpc-Timeout value (gRPC over HTTP/2: 1-8 digits and a unit H, M, S, m, u or n) into
 * milliseconds, or returns undefined when it is malformed. Sub-millisecond values round up to
 * 1 ms so that "1n" still means "almost no time", not "no deadline".
 */
export function parseGrpcTimeout(value: string): number | undefined {
  const match = /^([0-9]{1,8})([HMSmun])$/.exec(value);
  if (match === null) return undefined;
  const [, digits = "", unit = ""] = match;
  const ms = Number(digits) * (UNIT_MS[unit] ?? 0);
  return ms === 0 ? 0 : Math.max(1, Math.ceil(ms));
}

/** Forwarded under their own names; X-Request-Id is forwarded as the request id instead. */
const FORWARDED = ["authorization", "traceparent", "tracestate"] as const;
const PREFIX = "grpc-metadata-";

/** A request header that cannot become metadata, and why (for a 400 naming it). */
export interface HeaderFault {
  readonly header: string;
  readonly message: string;
}

/**
 * Every header forwardedMetadata would send that gRPC metadata cannot carry, or that may not be
 * set through Grpc-Metadata-* (see metadata-rules.ts); empty when the request is fine. X-Request-Id
 * is not among them: the request id sent is the one the gateway accepted or generated.
 */
export function metadataFaults(headers: IncomingHttpHeaders): HeaderFault[] {
  const faults: HeaderFault[] = [];
  for (const name of FORWARDED) {
    const value = headers[name];
    const message = typeof value === "string" ? valueFault(value) : undefined;
    if (message !== undefined) faults.push({ header: name, message });
  }
  for (const [name, value] of Object.entries(headers)) {
    if (!name.startsWith(PREFIX)) continue;
    const message = keyFault(name.slice(PREFIX.length)) ?? valueFault(joined(value));
    if (message !== undefined) faults.push({ header: name, message });
  }
  return faults;
}

/**
 * The metadata forwarded to the Manager: Authorization, the request id as X-Request-Id,
 * traceparent and tracestate (W3C trace context comes as a pair), and every Grpc-Metadata-<name>
 * header as <name>. Nothing else reaches the Manager: cookies, hosts and proxies' headers are
 * the gateway's business, not the Manager's. Callers refuse a request with metadataFaults first;
 * anything that would be a fault is left out here all the same, so this never yields metadata
 * that grpc-js would throw on.
 */
export function forwardedMetadata(headers: IncomingHttpHeaders, requestId: string): Record<string, string> {
  const metadata: Record<string, string> = {};
  for (const name of FORWARDED) {
    const value = headers[name];
    if (typeof value === "string" && valueFault(value) === undefined) metadata[name] = value;
  }
  metadata["x-request-id"] = requestId;
  for (const [name, value] of Object.entries(headers)) {
    if (!name.startsWith(PREFIX)) continue;
    const key = name.slice(PREFIX.length);
    const text = joined(value);
    if (keyFault(key) === undefined && valueFault(text) === undefined) metadata[key] = text;
  }
  return metadata;
}

/** node joins repeated headers with ", ", except the few it keeps as arrays (set-cookie). */
function joined(value: string | string[] | undefined): string {
  return Array.isArray(value) ? value.join(", ") : (value ?? "");
}

/** Aborts when the response's connection closes before the response was finished. */
export function disconnectSignal(response: ServerResponse): AbortSignal {
  const controller = new AbortController();
  response.once("close", () => {
    if (!response.writableFinished) controller.abort();
  });
  return controller.signal;
}

export interface CallContextInput {
  readonly headers: IncomingHttpHeaders;
  readonly requestId: string;
  readonly response: ServerResponse;
  /** The configured deadline of every call, in ms. */
  readonly requestTimeoutMs: number;
  /** A valid Grpc-Timeout of the request, in ms, if it had one. */
  readonly grpcTimeoutMs?: number | undefined;
}

/**
 * A call answered in one piece (docs/architecture.md, "Deadlines"): its deadline is the
 * request timeout, or the request's Grpc-Timeout when that is shorter. A longer Grpc-Timeout
 * changes nothing: such a call takes milliseconds, and a Manager that does not answer within
 * the configured deadline is failing.
 */
export function callOptions(input: CallContextInput): CallOptions {
  const timeoutMs =
    input.grpcTimeoutMs === undefined ? input.requestTimeoutMs : Math.min(input.grpcTimeoutMs, input.requestTimeoutMs);
  return {
    timeoutMs,
    metadata: forwardedMetadata(input.headers, input.requestId),
    signal: disconnectSignal(input.response),
  };
}

export interface StreamContextInput extends CallContextInput {
  /** The longest total deadline a Grpc-Timeout may set, in ms. */
  readonly maxRequestTimeoutMs: number;
}

/**
 * A list or stream read as the Manager sends it (docs/architecture.md, "Deadlines"): the
 * request timeout bounds the wait for the first result and for each next one (idleTimeoutMs),
 * not the whole; the whole has a deadline only when the request's Grpc-Timeout sets one, which
 * may be longer than the request timeout, up to maxRequestTimeoutMs. Infinity: no deadline.
 */
export function streamCallOptions(input: StreamContextInput): CallOptions & { readonly timeoutMs: number; readonly idleTimeoutMs: number } {
  return {
    timeoutMs: input.grpcTimeoutMs === undefined ? Infinity : Math.min(input.grpcTimeoutMs, input.maxRequestTimeoutMs),
    idleTimeoutMs: input.requestTimeoutMs,
    metadata: forwardedMetadata(input.headers, input.requestId),
    signal: disconnectSignal(input.response),
  };
}

const TIMEOUT_MESSAGE = "must be 1 to 8 digits and a unit (H, M, S, m, u, n), e.g. 500m";

/** The request's Grpc-Timeout in ms, if it has one; a 400 listing every unusable header. */
function checkedHeaders(request: FastifyRequest): number | undefined {
  const header = request.headers["grpc-timeout"];
  const grpcTimeoutMs = typeof header === "string" ? parseGrpcTimeout(header) : undefined;
  const faults: HeaderFault[] = [];
  if (header !== undefined && grpcTimeoutMs === undefined) faults.push({ header: "grpc-timeout", message: TIMEOUT_MESSAGE });
  faults.push(...metadataFaults(request.headers));
  if (faults.length > 0) throw invalidArgument("the request headers are invalid", { errors: faults });
  return grpcTimeoutMs;
}

/** Throws a 400 listing every unusable header; otherwise the options of the request's calls. */
export function callOptionsFor(request: FastifyRequest, reply: FastifyReply, requestTimeoutMs: number): CallOptions {
  return callOptions({
    headers: request.headers,
    requestId: request.id,
    response: reply.raw,
    requestTimeoutMs,
    grpcTimeoutMs: checkedHeaders(request),
  });
}

/** What bounds the calls of a request: the deadlines of (docs/reference/http-api.md, "Deadlines"). */
export interface Deadlines {
  /** A call's deadline; of a list or stream, the bound of its start and of each gap. In ms. */
  readonly requestTimeoutMs: number;
  /** The longest total deadline a Grpc-Timeout may set on a list or stream, in ms. */
  readonly maxRequestTimeoutMs: number;
}

/** streamCallOptions of the request; throws a 400 listing every unusable header. */
export function streamCallOptionsFor(request: FastifyRequest, reply: FastifyReply, deadlines: Deadlines): ReturnType<typeof streamCallOptions> {
  return streamCallOptions({
    headers: request.headers,
    requestId: request.id,
    response: reply.raw,
    ...deadlines,
    grpcTimeoutMs: checkedHeaders(request),
  });
}

/** What a route plugin that calls the Manager is given, whatever its client. */
export interface CallingRouteOptions<C> {
  readonly client: C;
  /** Deadline of each gRPC call, in ms; a Grpc-Timeout header may shorten it. */
  readonly requestTimeoutMs: number;
  /** The longest total deadline a Grpc-Timeout may set on a list, in ms. Default: requestTimeoutMs. */
  readonly maxRequestTimeoutMs?: number | undefined;
}

/** A plugin's deadlines; without a maximum, a Grpc-Timeout cannot lengthen anything. */
export function deadlinesOf(options: Pick<CallingRouteOptions<unknown>, "requestTimeoutMs" | "maxRequestTimeoutMs">): Deadlines {
  return { requestTimeoutMs: options.requestTimeoutMs, maxRequestTimeoutMs: options.maxRequestTimeoutMs ?? options.requestTimeoutMs };
}
