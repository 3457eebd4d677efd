// What an HTTP request's headers carry into its gRPC calls (docs/architecture.md, "Metadata"):
// a Grpc-Timeout, the allow-listed metadata, and a signal that fires when the HTTP client goes
// away. The headers that reach the Manager are checked first: a malformed Grpc-Timeout, or a
// header gRPC metadata cannot carry, is a 400 naming it, never silently ignored and never an
// exception inside grpc-js. The call options made of them are src/operations/call-options.ts's.
import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import type { FastifyRequest } from "fastify";
import { invalidArgument } from "./problem.js";
import { PRINCIPAL_KEY, keyFault, valueFault } from "norsk-manager-contract/grpc/metadata-rules.js";

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
 * traceparent and tracestate (W3C trace context comes as a pair), every Grpc-Metadata-<name>
 * header as <name>, and the authenticated principal's id as x-gateway-principal (never a
 * client's: metadataFaults refuses it, and it is left out here). Nothing else reaches the Manager: cookies, hosts and proxies' headers are
 * the gateway's business, not the Manager's. Callers refuse a request with metadataFaults first;
 * anything that would be a fault is left out here all the same, so this never yields metadata
 * that grpc-js would throw on.
 */
export function forwardedMetadata(headers: IncomingHttpHeaders, requestId: string, principal?: string): Record<string, string> {
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
  if (principal !== undefined) metadata[PRINCIPAL_KEY] = principalValue(principal);
  return metadata;
}

/**
 * A principal's id as a metadata value: as it is when it is printable ASCII without '%', else
 * with each other byte of its UTF-8 (and '%') percent-encoded (RFC 3986, 2.1), so that any id a
 * token or certificate holds reaches the Manager and decodes back to itself.
 */
export function principalValue(id: string): string {
  if (/^[\x20-\x24\x26-\x7e]*$/.test(id)) return id;
  let value = "";
  for (const byte of Buffer.from(id, "utf8")) {
    value += byte >= 0x20 && byte <= 0x7e && byte !== 0x25 ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return value;
}

/** node joins repeated headers with ", ", except the few it keeps as arrays (set-cookie). */
function joined(value: string | string[] | undefined): string {
  return Array.isArray(value) ? value.join(", ") : (value ?? "");
}

/**
 * Aborts when the response's connection closes before the response was finished. A response
 * closes once, so the listener is a plain one (once() would wrap it in another closure per
 * request).
 */
export function disconnectSignal(response: ServerResponse): AbortSignal {
  const controller = new AbortController();
  response.on("close", () => {
    if (!response.writableFinished) controller.abort();
  });
  return controller.signal;
}

const TIMEOUT_MESSAGE = "must be 1 to 8 digits and a unit (H, M, S, m, u, n), e.g. 500m";

/** What a request's headers give each of its calls. */
export interface CallHeaders {
  /** The request's Grpc-Timeout in ms, if it has one. */
  readonly grpcTimeoutMs: number | undefined;
  /** The metadata forwarded to the Manager (forwardedMetadata). */
  readonly metadata: Record<string, string>;
}

/**
 * The request's Grpc-Timeout and forwarded metadata, with the principal that authenticated (none
 * for an open route or without authentication); throws a 400 listing every unusable header.
 */
export function callHeaders(request: FastifyRequest): CallHeaders {
  const { headers } = request;
  const header = headers["grpc-timeout"];
  const grpcTimeoutMs = typeof header === "string" ? parseGrpcTimeout(header) : undefined;
  // One pass over the headers that both checks and forwards them (metadataFaults, then
  // forwardedMetadata, each with its own pass, say the same): a request without a fault
  // allocates no list of faults.
  let faults: HeaderFault[] | undefined;
  if (header !== undefined && grpcTimeoutMs === undefined) faults = [{ header: "grpc-timeout", message: TIMEOUT_MESSAGE }];
  const metadata: Record<string, string> = {};
  for (const name of FORWARDED) {
    const value = headers[name];
    if (typeof value !== "string") continue;
    const message = valueFault(value);
    if (message === undefined) metadata[name] = value;
    else (faults ??= []).push({ header: name, message });
  }
  metadata["x-request-id"] = request.id;
  for (const name in headers) {
    if (!name.startsWith(PREFIX)) continue;
    const key = name.slice(PREFIX.length);
    const text = joined(headers[name]);
    const message = keyFault(key) ?? valueFault(text);
    if (message === undefined) metadata[key] = text;
    else (faults ??= []).push({ header: name, message });
  }
  if (faults !== undefined) throw invalidArgument("the request headers are invalid", { errors: faults });
  // An app built without the access hook (src/auth/access.ts) has no principal at all.
  const { principal } = request as Partial<Pick<FastifyRequest, "principal">>;
  if (principal !== undefined && principal !== null && principal.kind !== "anonymous") metadata[PRINCIPAL_KEY] = principalValue(principal.id);
  return { grpcTimeoutMs, metadata };
}
