// Configuration: flag, then environment variable, then default (docs/architecture.md,
// "Configuration"). The TypeBox schema is the single source of each setting's type, range, default and
// help text; the Config type
// is derived from it, and a value that fails it stops start-up with one line naming it.
import { parseArgs } from "node:util";
import { Type } from "@sinclair/typebox";
import type { Static, TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { HOST_PATTERN, ORIGIN_PATTERN } from "./server/cross-site.js";
import { RATE_PATTERN } from "./server/rate-limit.js";
import { DEFAULT_MAX_MESSAGE_SIZE_BYTES } from "norsk-manager-contract/grpc/manager-connection.js";

const LogLevel = Type.Union(
  ["fatal", "error", "warn", "info", "debug", "trace", "silent"].map((level) => Type.Literal(level)),
);

export const ConfigSchema = Type.Object(
  {
    port: Type.Integer({ minimum: 0, maximum: 65535, default: 8080, description: "HTTP port (0 picks a free one)" }),
    host: Type.String({ minLength: 1, default: "127.0.0.1", description: "HTTP listen address" }),
    manager: Type.Optional(
      Type.String({
        pattern: "^(\\[[0-9a-fA-F:.]+\\]|[A-Za-z0-9.-]+):[0-9]{1,5}$",
        description: "Manager gRPC address host:port; unset starts the embedded reference Manager",
      }),
    ),
    dataDir: Type.String({ minLength: 1, default: "./data", description: "embedded Manager's data directory" }),
    requestTimeoutMs: Type.Integer({
      minimum: 1,
      maximum: 3_600_000,
      default: 10_000,
      description: "deadline of a call, in ms; of a list or stream: of its start and of each gap in it",
    }),
    // Lists and event streams have no total deadline unless the client asks for one with
    // Grpc-Timeout; this bounds what it may ask for: long enough for a listing of millions of
    // jobs (docs/benchmarks.md, "Listing 100,000 jobs"), while a mistaken
    // "Grpc-Timeout: 99999999H" is not forwarded to the Manager as a deadline.
    maxRequestTimeoutMs: Type.Integer({
      minimum: 1,
      maximum: 86_400_000,
      default: 300_000,
      description: "longest deadline a Grpc-Timeout may set on a list or stream, in ms (>= --request-timeout)",
    }),
    // An event stream's picture carries every active job with its history in one message, so
    // grpc-js's own 4 MiB receive limit failed every stream once one job's history outgrew it.
    maxMessageSizeBytes: Type.Integer({
      minimum: 65_536,
      maximum: 1_073_741_824,
      default: DEFAULT_MAX_MESSAGE_SIZE_BYTES,
      description: "largest gRPC message received from or sent to the Manager, in bytes; a larger answer is a 502",
    }),
    logLevel: { ...LogLevel, default: "info", description: "log level (fatal ... trace, silent)" },
    metricsPort: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 65535, description: "serve /metrics on this port (on --host) instead of the HTTP port (0 picks a free one)" }),
    ),
    otlpEndpoint: Type.Optional(
      Type.String({ pattern: "^https?://[^\\s]+$", description: "OTLP/HTTP collector (http://host:4318): traces are exported to its /v1/traces; unset: no tracing" }),
    ),
    // On by default: one line per request is what an operator reads first, and costs little
    // (docs/benchmarks.md, "Telemetry"); "errors" keeps only 4xx, 5xx and cut answers. Logged at info.
    accessLog: Type.Union([Type.Literal("on"), Type.Literal("errors"), Type.Literal("off")], {
      default: "on",
      description: "one JSON log line per request at info: on, errors (4xx, 5xx, cut) or off; never for probes",
    }),
    // On by default: shared reads never answer with a state older than the read (see
    // src/operations/shared-calls/calls.ts), and they spare the Manager most of a hot job's reads.
    coalesceReads: Type.Union([Type.Literal("on"), Type.Literal("off")], {
      default: "on",
      description: "identical reads in flight (a job, its instances, a search) share one Manager call: on or off",
    }),
    // Load shedding (src/server/load-shedding.ts). The event-loop delay is on: a loop that lags
    // a second on average answers everything a second late already, and refusing new requests
    // lets it drain what it holds; an idle or busy-but-coping gateway stays far below it. Heap
    // and RSS are off: V8 lets garbage pile up towards its limit before collecting it, so a
    // heap near the limit is as much a healthy busy process as a failing one (and the GC work
    // of a failing one shows as loop delay), and only the operator knows the container's limit.
    shedEventLoopDelayMs: Type.Integer({
      minimum: 0,
      maximum: 60_000,
      default: 1_000,
      description: "mean event-loop delay over a second, in ms, above which new requests get a 503 (0: off)",
    }),
    shedHeapUsedBytes: Type.Integer({
      minimum: 0,
      maximum: 2 ** 45,
      default: 0,
      description: "V8 heap in use, in bytes, above which new requests get a 503 (0: off)",
    }),
    shedRssBytes: Type.Integer({
      minimum: 0,
      maximum: 2 ** 45,
      default: 0,
      description: "resident memory, in bytes, above which new requests get a 503 (0: off)",
    }),
    shedRetryAfterS: Type.Integer({
      minimum: 1,
      maximum: 3_600,
      default: 5,
      description: "the Retry-After of a 503 for load shedding, in seconds",
    }),
    // Per-client rate limits (src/server/rate-limit.ts): off unless given, since what a fair
    // share is depends on the clients, and a gateway behind a proxy sees one address for all.
    rateLimit: Type.Optional(
      Type.String({ pattern: RATE_PATTERN, description: "requests each client may make per window: 100/s, 6000/m, 50/10s, 1000/h; one more is a 429; unset: no limit" }),
    ),
    rateLimitKey: Type.Union([Type.Literal("address"), Type.Literal("authorization")], {
      default: "address",
      description: "what a client of --rate-limit is: its address, or its Authorization header (its address without one)",
    }),
    // Several processes on one port (src/cluster.ts); one by default, as a replica behind a
    // load balancer is the first way to use more cores (docs/operations/deploying.md).
    workers: Type.String({
      pattern: "^(auto|[1-9][0-9]{0,2})$",
      default: "1",
      description: "gateway processes serving the one port (node:cluster), or auto for one per CPU",
    }),
    sseHeartbeatMs: Type.Integer({
      minimum: 1,
      maximum: 3_600_000,
      default: 15_000,
      description: "interval of the heartbeat on /v1/events and /v1/status, in ms",
    }),
    sseBufferBytes: Type.Integer({
      minimum: 1024,
      maximum: 1_073_741_824,
      default: 1_048_576,
      description: "bytes an event-stream client may fall behind before it is closed with an error",
    }),
    // The HTTP server's exposure (src/server/): timeouts, connection cap, shutdown, cross-site.
    headerTimeoutMs: Type.Integer({
      minimum: 1,
      maximum: 3_600_000,
      default: 10_000,
      description: "time a client has to send a request's headers, in ms (at most --body-timeout)",
    }),
    bodyTimeoutMs: Type.Integer({
      minimum: 1,
      maximum: 3_600_000,
      default: 30_000,
      description: "time a client has to send a whole request, headers and body, in ms",
    }),
    idleTimeoutMs: Type.Integer({
      minimum: 1,
      maximum: 3_600_000,
      default: 72_000,
      description: "time an idle keep-alive connection is kept between requests, in ms",
    }),
    maxConnections: Type.Integer({
      minimum: 1,
      maximum: 1_000_000,
      default: 10_000,
      description: "connections open at once; one more is closed as soon as it is accepted",
    }),
    // A client that opens streams without end on one HTTP/2 connection holds as much as that
    // many connections would; a browser opens at most about this many (Chromium, Firefox: 100).
    maxStreams: Type.Integer({
      minimum: 1,
      maximum: 10_000,
      default: 100,
      description: "requests in flight at once on one HTTP/2 connection (SETTINGS_MAX_CONCURRENT_STREAMS); one more is refused",
    }),
    shutdownTimeoutMs: Type.Integer({
      minimum: 0,
      maximum: 3_600_000,
      default: 25_000,
      description: "time in-flight requests get at shutdown before their connections are closed, in ms",
    }),
    allowedOrigins: Type.Array(Type.String({ pattern: ORIGIN_PATTERN }), {
      default: [],
      description: "origins (scheme://host[:port], comma-separated) whose pages may change things",
    }),
    // HTTPS on the listener (src/tls-material.ts reads the files at start-up).
    tlsCert: Type.Optional(Type.String({ minLength: 1, description: "PEM file of the certificate chain to serve HTTPS with (HTTP/1.1 and HTTP/2; with --tls-key)" })),
    tlsKey: Type.Optional(Type.String({ minLength: 1, description: "PEM file of that certificate's private key" })),
    // CORS (src/server/cors.ts): which other origins' pages may call the API from a browser.
    corsOrigins: Type.Array(Type.String({ pattern: `^\\*$|${ORIGIN_PATTERN}` }), {
      default: [],
      description: "origins (scheme://host[:port], comma-separated; * for any) whose pages may call the API from a browser (CORS)",
    }),
    corsCredentials: Type.Boolean({
      default: false,
      description: "let those pages send cookies and HTTP authentication (Access-Control-Allow-Credentials; not with *)",
    }),
    // TLS to the Manager (src/tls-material.ts reads the files at start-up).
    managerTls: Type.Boolean({
      default: false,
      description: "reach the Manager over TLS, trusting the system's CAs (implied by the other --manager-* TLS settings)",
    }),
    managerCa: Type.Optional(Type.String({ minLength: 1, description: "PEM file of the CAs that sign the Manager's certificate, in place of the system's" })),
    managerCert: Type.Optional(Type.String({ minLength: 1, description: "PEM file of the client certificate shown to the Manager (mTLS; with --manager-key)" })),
    managerKey: Type.Optional(Type.String({ minLength: 1, description: "PEM file of that client certificate's private key" })),
    managerServerName: Type.Optional(
      Type.String({ pattern: "^[A-Za-z0-9.-]+$", description: "name the Manager's certificate must carry, where it differs from the host of --manager" }),
    ),
    allowedHosts: Type.Optional(
      Type.Array(Type.String({ pattern: `^\\*$|${HOST_PATTERN}` }), {
        description: "Host names accepted (name, name:port or *), comma-separated; unset: the loopback names, or * when --host is not loopback",
      }),
    ),
  },
  { additionalProperties: false },
);

export type Config = Static<typeof ConfigSchema>;

interface Setting {
  readonly key: keyof Config;
  readonly flag: string;
  readonly env: string;
}

/** How each setting is spelled on the command line and in the environment. */
export const SETTINGS: readonly Setting[] = [
  { key: "port", flag: "port", env: "PORT" },
  { key: "host", flag: "host", env: "HOST" },
  { key: "manager", flag: "manager", env: "MANAGER_ADDRESS" },
  { key: "dataDir", flag: "data-dir", env: "DATA_DIR" },
  { key: "requestTimeoutMs", flag: "request-timeout", env: "REQUEST_TIMEOUT_MS" },
  { key: "maxRequestTimeoutMs", flag: "max-request-timeout", env: "MAX_REQUEST_TIMEOUT_MS" },
  { key: "maxMessageSizeBytes", flag: "max-message-size", env: "MAX_MESSAGE_SIZE_BYTES" },
  { key: "logLevel", flag: "log-level", env: "LOG_LEVEL" },
  { key: "sseHeartbeatMs", flag: "sse-heartbeat", env: "SSE_HEARTBEAT_MS" },
  { key: "sseBufferBytes", flag: "sse-buffer", env: "SSE_BUFFER_BYTES" },
  { key: "headerTimeoutMs", flag: "header-timeout", env: "HEADER_TIMEOUT_MS" },
  { key: "bodyTimeoutMs", flag: "body-timeout", env: "BODY_TIMEOUT_MS" },
  { key: "idleTimeoutMs", flag: "idle-timeout", env: "IDLE_TIMEOUT_MS" },
  { key: "maxConnections", flag: "max-connections", env: "MAX_CONNECTIONS" },
  { key: "maxStreams", flag: "max-streams", env: "MAX_STREAMS" },
  { key: "shutdownTimeoutMs", flag: "shutdown-timeout", env: "SHUTDOWN_TIMEOUT_MS" },
  { key: "allowedOrigins", flag: "allowed-origin", env: "ALLOWED_ORIGINS" },
  { key: "allowedHosts", flag: "allowed-host", env: "ALLOWED_HOSTS" },
  { key: "tlsCert", flag: "tls-cert", env: "TLS_CERT" },
  { key: "tlsKey", flag: "tls-key", env: "TLS_KEY" },
  { key: "corsOrigins", flag: "cors-origin", env: "CORS_ORIGINS" },
  { key: "corsCredentials", flag: "cors-credentials", env: "CORS_CREDENTIALS" },
  { key: "managerTls", flag: "manager-tls", env: "MANAGER_TLS" },
  { key: "managerCa", flag: "manager-ca", env: "MANAGER_CA" },
  { key: "managerCert", flag: "manager-cert", env: "MANAGER_CERT" },
  { key: "managerKey", flag: "manager-key", env: "MANAGER_KEY" },
  { key: "managerServerName", flag: "manager-server-name", env: "MANAGER_SERVER_NAME" },
  { key: "accessLog", flag: "access-log", env: "ACCESS_LOG" },
  { key: "metricsPort", flag: "metrics-port", env: "METRICS_PORT" },
  { key: "otlpEndpoint", flag: "otlp-endpoint", env: "OTEL_EXPORTER_OTLP_ENDPOINT" },
  { key: "coalesceReads", flag: "coalesce-reads", env: "COALESCE_READS" },
  { key: "shedEventLoopDelayMs", flag: "shed-event-loop-delay", env: "SHED_EVENT_LOOP_DELAY_MS" },
  { key: "shedHeapUsedBytes", flag: "shed-heap-used", env: "SHED_HEAP_USED_BYTES" },
  { key: "shedRssBytes", flag: "shed-rss", env: "SHED_RSS_BYTES" },
  { key: "shedRetryAfterS", flag: "shed-retry-after", env: "SHED_RETRY_AFTER_S" },
  { key: "rateLimit", flag: "rate-limit", env: "RATE_LIMIT" },
  { key: "rateLimitKey", flag: "rate-limit-key", env: "RATE_LIMIT_KEY" },
  { key: "workers", flag: "workers", env: "WORKERS" },
];

/** A setting whose value is unusable; its message is the one line printed before exit 2. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

export type LoadResult = { readonly help: true } | { readonly help: false; readonly config: Config };

export function loadConfig(argv: readonly string[], env: NodeJS.ProcessEnv): LoadResult {
  const flags = parseFlags(argv);
  if (flags.help === true) return { help: true };
  const raw: Record<string, unknown> = {};
  for (const setting of SETTINGS) {
    const fromFlag = flagText(flags[setting.flag]);
    const value = fromFlag ?? env[setting.env];
    const source = fromFlag === undefined ? setting.env : `--${setting.flag}`;
    if (value === undefined || value === "") continue;
    raw[setting.key] = convert(ConfigSchema.properties[setting.key], value, source);
  }
  const config = Value.Default(ConfigSchema, raw) as Record<string, unknown>;
  const first = Value.Errors(ConfigSchema, config).First();
  if (first !== undefined) {
    // A list's item is reported at /key/index.
    const setting = SETTINGS.find((s) => first.path === `/${s.key}` || first.path.startsWith(`/${s.key}/`));
    const name = setting === undefined ? first.path : settingName(setting.key);
    throw new ConfigError(`${name}: ${first.message} (got ${JSON.stringify(first.value)})`);
  }
  checkRelations(config as Config);
  return { help: false, config: config as Config };
}

export function settingName(key: keyof Config): string {
  const setting = SETTINGS.find((s) => s.key === key);
  return setting === undefined ? key : `--${setting.flag} (${setting.env})`;
}

/** Constraints between settings, which the schema cannot state. */
function checkRelations(config: Config): void {
  // Node times the whole request from its first byte, headers included.
  notAbove(config, "headerTimeoutMs", "bodyTimeoutMs");
  // The most a client may ask for cannot be less than what every call gets unasked.
  notAbove(config, "requestTimeoutMs", "maxRequestTimeoutMs");
  together(config, "managerCert", "managerKey");
  together(config, "tlsCert", "tlsKey");
  // The embedded Manager is dialled over loopback in plaintext; TLS settings would be ignored.
  const managerTls = MANAGER_TLS_KEYS.find((key) => config[key] !== undefined && config[key] !== false);
  if (managerTls !== undefined && config.manager === undefined) {
    throw new ConfigError(`${settingName(managerTls)}: needs ${settingName("manager")}; the embedded Manager is reached in plaintext over loopback`);
  }
  // Workers share a port by its number: the API's and the metrics' "0" would be one port.
  if (config.workers !== "1" && config.metricsPort === 0) {
    throw new ConfigError(`${settingName("metricsPort")}: must be a port number with ${settingName("workers")}, not 0`);
  }
  // Browsers refuse credentials from a server that allows any origin (Fetch, CORS check).
  if (config.corsCredentials && (config.corsOrigins.length === 0 || config.corsOrigins.includes("*"))) {
    throw new ConfigError(`${settingName("corsCredentials")}: needs ${settingName("corsOrigins")} with exact origins, not *`);
  }
}

function notAbove(config: Config, lower: "headerTimeoutMs" | "requestTimeoutMs", upper: "bodyTimeoutMs" | "maxRequestTimeoutMs"): void {
  if (config[lower] > config[upper]) {
    throw new ConfigError(`${settingName(lower)}: must not exceed ${settingName(upper)} (got ${config[lower]} > ${config[upper]})`);
  }
}

const MANAGER_TLS_KEYS = ["managerTls", "managerCa", "managerCert", "managerKey", "managerServerName"] as const;

/** Settings that mean nothing alone: a certificate and its key. */
function together(config: Config, one: keyof Config, other: keyof Config): void {
  if ((config[one] === undefined) === (config[other] === undefined)) return;
  const [given, missing] = config[one] === undefined ? [other, one] : [one, other];
  throw new ConfigError(`${settingName(given)}: needs ${settingName(missing)} as well`);
}

type FlagValue = string | boolean | (string | boolean)[] | undefined;

/**
 * A flag's value as the text an environment variable would hold: a boolean flag given is
 * "true"; a repeatable (list) flag's values are joined with commas.
 */
function flagText(value: FlagValue): string | undefined {
  if (value === undefined) return undefined;
  if (Array.isArray(value)) return value.join(",");
  return String(value);
}

function parseFlags(argv: readonly string[]): Record<string, FlagValue> {
  const options: Record<string, { type: "string" | "boolean"; multiple?: boolean }> = { help: { type: "boolean" } };
  for (const setting of SETTINGS) {
    const schema = ConfigSchema.properties[setting.key] as TSchema;
    options[setting.flag] = schema.type === "boolean" ? { type: "boolean" } : { type: "string", multiple: schema.type === "array" };
  }
  try {
    return parseArgs({ args: [...argv], options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    // node's messages can run to several lines; the first one says what is wrong.
    const message = error instanceof Error ? error.message : String(error);
    throw new ConfigError(message.split("\n")[0] ?? message);
  }
}

/**
 * Integers must be written as plain decimal digits: "1e3", "10.0" and " 5" are refused. Lists
 * are comma-separated; blanks around the commas and empty items are dropped. Switches are
 * true/false or 1/0.
 */
function convert(schema: TSchema, value: string, source: string): unknown {
  if (schema.type === "boolean") return booleanOf(value, source);
  if (schema.type === "array") return value.split(",").map((item) => item.trim()).filter((item) => item !== "");
  if (schema.type !== "integer") return value;
  if (!/^[0-9]{1,15}$/.test(value)) throw new ConfigError(`${source}: must be a whole number (got ${JSON.stringify(value)})`);
  return Number(value);
}

/** "true"/"1" and "false"/"0", as environment variables write a switch. */
function booleanOf(value: string, source: string): boolean {
  if (value === "true" || value === "1") return true;
  if (value === "false" || value === "0") return false;
  throw new ConfigError(`${source}: must be true, false, 1 or 0 (got ${JSON.stringify(value)})`);
}

const FLAG_WIDTH = Math.max(...SETTINGS.map((s) => s.flag.length));
const ENV_WIDTH = Math.max(...SETTINGS.map((s) => s.env.length));

export function helpText(): string {
  const rows = SETTINGS.map((s) => {
    const schema = ConfigSchema.properties[s.key] as TSchema & { description?: string; default?: unknown };
    const fallback = schema.default === undefined ? "unset" : Array.isArray(schema.default) && schema.default.length === 0 ? "none" : String(schema.default);
    return `  --${s.flag.padEnd(FLAG_WIDTH)} ${s.env.padEnd(ENV_WIDTH)} ${(schema.description ?? "").padEnd(80)} default: ${fallback}`;
  });
  return [
    "Usage: norsk-manager-gateway [options]",
    "",
    "Options (flag, then environment variable, then default):",
    ...rows,
    `  --${"help".padEnd(FLAG_WIDTH)} ${"".padEnd(ENV_WIDTH)} print this help`,
    "",
  ].join("\n");
}
