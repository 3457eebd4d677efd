// What an HTTP request carries into its gRPC call: a deadline, the allow-listed metadata,
// and a signal that fires when the HTTP client goes away (docs/ARCHITECTURE.md §5).
import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import type { CallOptions } from "./types.js";

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

const FORWARDED = ["authorization", "x-request-id", "traceparent"] as const;
const PREFIX = "grpc-metadata-";

/**
 * The metadata forwarded to the Manager: Authorization, X-Request-Id, traceparent, and every
 * Grpc-Metadata-<name> header as <name>. Nothing else reaches the Manager: cookies, hosts and
 * proxies' headers are the gateway's business, not the Manager's.
 */
export function forwardedMetadata(headers: IncomingHttpHeaders, requestId: string): Record<string, string> {
  const metadata: Record<string, string> = {};
  for (const name of FORWARDED) {
    const value = headers[name];
    if (typeof value === "string") metadata[name] = value;
  }
  metadata["x-request-id"] = requestId;
  for (const [name, value] of Object.entries(headers)) {
    if (!name.startsWith(PREFIX) || name.length === PREFIX.length) continue;
    const key = name.slice(PREFIX.length);
    // Binary (-bin) metadata would need base64 handling; and grpc-* keys are reserved.
    if (key.endsWith("-bin") || key.startsWith("grpc-")) continue;
    metadata[key] = Array.isArray(value) ? value.join(", ") : (value ?? "");
  }
  return metadata;
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

export function callOptions(input: CallContextInput): CallOptions {
  const timeoutMs =
    input.grpcTimeoutMs === undefined ? input.requestTimeoutMs : Math.min(input.grpcTimeoutMs, input.requestTimeoutMs);
  return {
    timeoutMs,
    metadata: forwardedMetadata(input.headers, input.requestId),
    signal: disconnectSignal(input.response),
  };
}
