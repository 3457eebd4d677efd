// Which request headers can become gRPC metadata, and why the others cannot. grpc-js throws
// (synchronously, from Metadata.set) on a key or value it cannot carry, and node's HTTP/2 layer
// refuses connection-specific headers, leaving the call to hang until its deadline; so a
// header is checked against these rules before any call starts, and refused with a 400 that
// names it rather than reaching either. Reserved keys are refused too, not silently dropped:
// a client that sends Grpc-Metadata-Authorization means something by it, and should learn at
// once that it cannot override what an auth proxy set (docs/architecture.md, "HTTP surface").

/** grpc-js's own rules (metadata.ts): keys of [0-9a-z_.-], non-binary values of printable ASCII. */
const LEGAL_KEY = /^[0-9a-z_.-]+$/;
const LEGAL_VALUE = /^[\x20-\x7e]*$/;

/** Metadata that comes from its own HTTP header, never from Grpc-Metadata-*: name as the client writes it. */
export const OWN_HEADER: ReadonlyMap<string, string> = new Map([
  ["authorization", "Authorization"],
  ["x-request-id", "X-Request-Id"],
  ["traceparent", "traceparent"],
  ["tracestate", "tracestate"],
]);

/**
 * Metadata the gateway sets itself, from what it verified, and a client never may: the
 * authenticated principal's id (docs/operations/authentication.md, "The principal").
 */
export const PRINCIPAL_KEY = "x-gateway-principal";
const GATEWAY_SET: ReadonlyMap<string, string> = new Map([[PRINCIPAL_KEY, "the gateway sets it to the authenticated principal"]]);

/**
 * Keys that HTTP/2 or gRPC's transport set themselves (grpc-js overwrites some, node's http2
 * refuses the connection-specific ones, and a content-length would not match the frames).
 */
const TRANSPORT = new Set([
  "connection",
  "content-length",
  "content-type",
  "host",
  "http2-settings",
  "keep-alive",
  "proxy-connection",
  "te",
  "transfer-encoding",
  "upgrade",
  "user-agent",
]);

export const VALUE_MESSAGE = "must be printable ASCII: gRPC metadata cannot carry other characters";

/** Why `value` cannot be sent as a metadata value, or undefined when it can. */
export function valueFault(value: string): string | undefined {
  return LEGAL_VALUE.test(value) ? undefined : VALUE_MESSAGE;
}

/** Why `key` (a Grpc-Metadata-<key> header's name, prefix removed) cannot be sent, or undefined. */
export function keyFault(key: string): string | undefined {
  if (key === "") return "names no metadata key";
  if (!LEGAL_KEY.test(key)) return "is not a valid gRPC metadata key (letters, digits, '-', '_' and '.' only)";
  const own = OWN_HEADER.get(key);
  if (own !== undefined) return `cannot set ${key}: send it as the ${own} header`;
  const gateway = GATEWAY_SET.get(key);
  if (gateway !== undefined) return `cannot set ${key}: ${gateway}`;
  if (key.startsWith("grpc-")) return "cannot set grpc-* metadata: those keys belong to the gRPC protocol";
  if (TRANSPORT.has(key)) return `cannot set ${key}: HTTP/2 and gRPC set it themselves`;
  // Binary metadata would need base64 decoding, which nothing asks for yet.
  if (key.endsWith("-bin")) return "binary (-bin) metadata is not supported";
  return undefined;
}
