// Configuration: flag, then environment variable, then default. The TypeBox schema is the single
// source of each setting's spelling (flag and environment variable), type, range, default and
// help text: the command reads it (loadConfig), buildApp takes its defaults from it (configOf),
// and --help and docs/reference/configuration.md (npm run docs:config) are written from it. The
// Config type is derived from it, and a value that fails it stops start-up with one line naming it.
import { parseArgs } from "node:util";
import { Type } from "@sinclair/typebox";
import type { Static, TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { HOST_PATTERN, ORIGIN_PATTERN, isLoopback } from "./server/cross-site.js";
import { RATE_PATTERN } from "./server/rate-limit.js";
import { STORE_URL_PATTERN, redactedStoreUrl, urlHasPassword } from "./server/rate-limit-store.js";
import { TRUSTED_PROXY_PATTERN, trustedProxyProblem } from "./server/trust-proxy.js";
import { DEFAULT_MAX_MESSAGE_SIZE_BYTES } from "norsk-manager-contract/grpc/manager-connection.js";

const LogLevel = Type.Union(
  ["fatal", "error", "warn", "info", "debug", "trace", "silent"].map((level) => Type.Literal(level)),
);

export const ConfigSchema = Type.Object(
  {
    port: Type.Integer({ minimum: 0, maximum: 65535, default: 8080, flag: "port", env: "PORT", description: "HTTP port (0 picks a free one)" }),
    host: Type.String({ minLength: 1, default: "127.0.0.1", flag: "host", env: "HOST", description: "HTTP listen address" }),
    manager: Type.Optional(
      Type.String({
        pattern: "^(\\[[0-9a-fA-F:.]+\\]|[A-Za-z0-9.-]+):[0-9]{1,5}$",
        flag: "manager", env: "MANAGER_ADDRESS", description: "Manager gRPC address host:port; unset starts the embedded reference Manager",
      }),
    ),
    dataDir: Type.String({ minLength: 1, default: "./data", flag: "data-dir", env: "DATA_DIR", description: "embedded Manager's data directory" }),
    requestTimeoutMs: Type.Integer({
      minimum: 1,
      maximum: 3_600_000,
      default: 10_000,
      flag: "request-timeout", env: "REQUEST_TIMEOUT_MS",
      description: "deadline of a call, in ms; of a list or stream: of its start and of each gap in it",
    }),
    // Lists and event streams have no total deadline unless the client asks for one with
    // Grpc-Timeout; this bounds what it may ask for: long enough for a listing of millions of
    // jobs, short enough that a mistaken "Grpc-Timeout: 99999999H" is not forwarded to the
    // Manager as a deadline.
    maxRequestTimeoutMs: Type.Integer({
      minimum: 1,
      maximum: 86_400_000,
      default: 300_000,
      flag: "max-request-timeout", env: "MAX_REQUEST_TIMEOUT_MS",
      description: "longest deadline a Grpc-Timeout may set on a list or stream, in ms (>= --request-timeout)",
    }),
    // An event stream's picture carries every active job with its history in one message, which
    // outgrows grpc-js's own receive limit once one job's history is long.
    maxMessageSizeBytes: Type.Integer({
      minimum: 65_536,
      maximum: 1_073_741_824,
      default: DEFAULT_MAX_MESSAGE_SIZE_BYTES,
      flag: "max-message-size", env: "MAX_MESSAGE_SIZE_BYTES",
      description: "largest gRPC message received from or sent to the Manager, in bytes; a larger answer is a 502",
    }),
    logLevel: { ...LogLevel, default: "info", flag: "log-level", env: "LOG_LEVEL", description: "log level (fatal ... trace, silent)" },
    metricsPort: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 65535, flag: "metrics-port", env: "METRICS_PORT", description: "serve /metrics on this port (on --host) instead of the HTTP port (0 picks a free one)" }),
    ),
    otlpEndpoint: Type.Optional(
      Type.String({ pattern: "^https?://[^\\s]+$", flag: "otlp-endpoint", env: "OTEL_EXPORTER_OTLP_ENDPOINT", description: "OTLP/HTTP collector (http://host:4318): traces are exported to its /v1/traces; unset: no tracing" }),
    ),
    // On by default: one line per request is what an operator reads first, and costs little
    // (docs/benchmarks.md, "Telemetry"); "errors" keeps only 4xx, 5xx and cut answers. Logged at info.
    accessLog: Type.Union([Type.Literal("on"), Type.Literal("errors"), Type.Literal("off")], {
      default: "on",
      flag: "access-log", env: "ACCESS_LOG",
      description: "one JSON log line per request at info: on, errors (4xx, 5xx, cut) or off; never for probes",
    }),
    // On by default: shared reads never answer with a state older than the read (see
    // src/operations/shared-calls/calls.ts), and they spare the Manager most of a hot job's reads.
    coalesceReads: Type.Union([Type.Literal("on"), Type.Literal("off")], {
      default: "on",
      flag: "coalesce-reads", env: "COALESCE_READS",
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
      flag: "shed-event-loop-delay", env: "SHED_EVENT_LOOP_DELAY_MS",
      description: "mean event-loop delay over a second, in ms, above which new requests get a 503 (0: off)",
    }),
    shedHeapUsedBytes: Type.Integer({
      minimum: 0,
      maximum: 2 ** 45,
      default: 0,
      flag: "shed-heap-used", env: "SHED_HEAP_USED_BYTES",
      description: "V8 heap in use, in bytes, above which new requests get a 503 (0: off)",
    }),
    shedRssBytes: Type.Integer({
      minimum: 0,
      maximum: 2 ** 45,
      default: 0,
      flag: "shed-rss", env: "SHED_RSS_BYTES",
      description: "resident memory, in bytes, above which new requests get a 503 (0: off)",
    }),
    shedRetryAfterS: Type.Integer({
      minimum: 1,
      maximum: 3_600,
      default: 5,
      flag: "shed-retry-after", env: "SHED_RETRY_AFTER_S",
      description: "the Retry-After of every 503 (load shedding, the Manager unavailable, shutting down), in seconds",
    }),
    // Per-client rate limits (src/server/rate-limit.ts): off unless given, since what a fair
    // share is depends on the clients, and a gateway behind a proxy sees one address for all.
    rateLimit: Type.Optional(
      Type.String({ pattern: RATE_PATTERN, flag: "rate-limit", env: "RATE_LIMIT", description: "requests each client may make per window: 100/s, 6000/m, 50/10s, 1000/h; one more is a 429; unset: no limit" }),
    ),
    rateLimitKey: Type.Union([Type.Literal("address"), Type.Literal("authorization"), Type.Literal("principal")], {
      default: "address",
      flag: "rate-limit-key", env: "RATE_LIMIT_KEY",
      description: "what a client of --rate-limit is: its address, its Authorization header, or its authenticated principal (each: its address without one)",
    }),
    // In this process unless given: one store is one more thing to run, and a single replica
    // needs none (src/server/rate-limit-store.ts).
    rateLimitStore: Type.Optional(
      Type.String({
        pattern: STORE_URL_PATTERN,
        flag: "rate-limit-store", env: "RATE_LIMIT_STORE",
        description: "Redis (redis://[user:password@]host:port[/db], rediss:// for TLS) where every replica counts --rate-limit and --auth-refusal-limit; served uncounted while it cannot answer; unset: each process counts its own",
      }),
    ),
    rateLimitStorePasswordFile: Type.Optional(
      Type.String({ minLength: 1, flag: "rate-limit-store-password-file", env: "RATE_LIMIT_STORE_PASSWORD_FILE", description: "file holding the password of --rate-limit-store (its first line), instead of one in the URL" }),
    ),
    // On by default wherever credentials are checked: without it a client may guess keys as
    // fast as the gateway answers. Ample for a client that gets its credentials wrong now and
    // then; an address of many clients (a NAT) shares it.
    authRefusalLimit: Type.String({
      pattern: `^off$|${RATE_PATTERN}`,
      default: "30/m",
      flag: "auth-refusal-limit", env: "AUTH_REFUSAL_LIMIT",
      description: "401s each address may get per window (as --rate-limit's form); past it, its requests to protected routes are a 429 before their credentials are checked; off: no limit",
    }),
    // Off by default: X-Forwarded-For is whatever the client wrote, unless a proxy known to
    // replace it sent the request (src/server/trust-proxy.ts).
    trustProxy: Type.Array(Type.String({ pattern: TRUSTED_PROXY_PATTERN }), {
      default: [],
      flag: "trust-proxy", env: "TRUST_PROXY",
      description: "proxies (IP addresses, CIDR ranges, loopback, linklocal or uniquelocal; comma-separated) whose X-Forwarded-For, -Host and -Proto name the client; none: every peer is the client",
    }),
    // Several processes on one port (src/cluster.ts); one by default for the command, as a
    // replica behind a load balancer is the first way to use more cores; the container image
    // and the Kubernetes manifests set auto (docs/operations/deploying.md).
    workers: Type.String({
      pattern: "^(auto|[1-9][0-9]{0,2})$",
      default: "1",
      flag: "workers", env: "WORKERS",
      description: "gateway processes serving the one port (node:cluster), or auto for one per CPU the process may use (its cgroup v2 CPU quota, cpu.max, when it has one; else the CPUs it may run on)",
    }),
    sseHeartbeatMs: Type.Integer({
      minimum: 1,
      maximum: 3_600_000,
      default: 15_000,
      flag: "sse-heartbeat", env: "SSE_HEARTBEAT_MS",
      description: "interval of the heartbeat on /v1/events and /v1/status, in ms",
    }),
    sseBufferBytes: Type.Integer({
      minimum: 1024,
      maximum: 1_073_741_824,
      default: 1_048_576,
      flag: "sse-buffer", env: "SSE_BUFFER_BYTES",
      description: "bytes an event-stream client may fall behind before it is closed with an error",
    }),
    // The HTTP server's exposure (src/server/): timeouts, connection cap, shutdown, cross-site.
    // Ample for any real client (headers come in one packet), short enough to free a slow-loris.
    headerTimeoutMs: Type.Integer({
      minimum: 1,
      maximum: 3_600_000,
      default: 10_000,
      flag: "header-timeout", env: "HEADER_TIMEOUT_MS",
      description: "time a client has to send a request's headers, in ms (at most --body-timeout)",
    }),
    // Time for the largest body accepted over a slow link.
    bodyTimeoutMs: Type.Integer({
      minimum: 1,
      maximum: 3_600_000,
      default: 30_000,
      flag: "body-timeout", env: "BODY_TIMEOUT_MS",
      description: "time a client has to send a whole request, headers and body, in ms",
    }),
    // Longer than the idle timeout of common load balancers (AWS ALB, nginx: 60 s), so the
    // balancer closes an idle connection first and never reuses one the gateway is closing (a 502).
    idleTimeoutMs: Type.Integer({
      minimum: 1,
      maximum: 3_600_000,
      default: 72_000,
      flag: "idle-timeout", env: "IDLE_TIMEOUT_MS",
      description: "time an idle keep-alive connection is kept between requests, in ms",
    }),
    // Well above the event-stream clients benchmarked (BENCHMARKS.md), each of which holds one.
    maxConnections: Type.Integer({
      minimum: 1,
      maximum: 1_000_000,
      default: 10_000,
      flag: "max-connections", env: "MAX_CONNECTIONS",
      description: "connections open at once; one more is closed as soon as it is accepted",
    }),
    // A client that opens streams without end on one HTTP/2 connection holds as much as that
    // many connections would; the default is what browsers allow themselves per connection.
    maxStreams: Type.Integer({
      minimum: 1,
      maximum: 10_000,
      default: 100,
      flag: "max-streams", env: "MAX_STREAMS",
      description: "requests in flight at once on one HTTP/2 connection (SETTINGS_MAX_CONCURRENT_STREAMS); one more is refused",
    }),
    shutdownTimeoutMs: Type.Integer({
      minimum: 0,
      maximum: 3_600_000,
      default: 25_000,
      flag: "shutdown-timeout", env: "SHUTDOWN_TIMEOUT_MS",
      description: "time in-flight requests get at shutdown before their connections are closed, in ms",
    }),
    allowedOrigins: Type.Array(Type.String({ pattern: ORIGIN_PATTERN }), {
      default: [],
      flag: "allowed-origin", env: "ALLOWED_ORIGINS",
      description: "origins (scheme://host[:port], comma-separated) whose pages may change things",
    }),
    // HTTPS on the listener (src/tls-material.ts reads the files at start-up).
    tlsCert: Type.Optional(Type.String({ minLength: 1, flag: "tls-cert", env: "TLS_CERT", description: "PEM file of the certificate chain to serve HTTPS with (HTTP/1.1 and HTTP/2; with --tls-key)" })),
    tlsKey: Type.Optional(Type.String({ minLength: 1, flag: "tls-key", env: "TLS_KEY", description: "PEM file of that certificate's private key" })),
    // CORS (src/server/cors.ts): which other origins' pages may call the API from a browser.
    corsOrigins: Type.Array(Type.String({ pattern: `^\\*$|${ORIGIN_PATTERN}` }), {
      default: [],
      flag: "cors-origin", env: "CORS_ORIGINS",
      description: "origins (scheme://host[:port], comma-separated; * for any) whose pages may call the API from a browser (CORS)",
    }),
    corsCredentials: Type.Boolean({
      default: false,
      flag: "cors-credentials", env: "CORS_CREDENTIALS",
      description: "let those pages send cookies and HTTP authentication (Access-Control-Allow-Credentials; not with *)",
    }),
    // TLS to the Manager (src/tls-material.ts reads the files at start-up).
    managerTls: Type.Boolean({
      default: false,
      flag: "manager-tls", env: "MANAGER_TLS",
      description: "reach the Manager over TLS, trusting the system's CAs (implied by the other --manager-* TLS settings)",
    }),
    managerCa: Type.Optional(Type.String({ minLength: 1, flag: "manager-ca", env: "MANAGER_CA", description: "PEM file of the CAs that sign the Manager's certificate, in place of the system's" })),
    managerCert: Type.Optional(Type.String({ minLength: 1, flag: "manager-cert", env: "MANAGER_CERT", description: "PEM file of the client certificate shown to the Manager (mTLS; with --manager-key)" })),
    managerKey: Type.Optional(Type.String({ minLength: 1, flag: "manager-key", env: "MANAGER_KEY", description: "PEM file of that client certificate's private key" })),
    managerServerName: Type.Optional(
      Type.String({ pattern: "^[A-Za-z0-9.-]+$", flag: "manager-server-name", env: "MANAGER_SERVER_NAME", description: "name the Manager's certificate must carry, where it differs from the host of --manager" }),
    ),
    // Authentication (src/auth/, docs/operations/authentication.md). None is configured by
    // default: on loopback every request is allowed, on any other --host the command refuses to
    // start without one of them or --auth none (checkSecureByDefault).
    auth: Type.Optional(
      Type.Literal("none", { flag: "auth", env: "AUTH", description: "none: serve without authentication, said explicitly (needed on a non-loopback --host without --auth-issuer or --api-keys)" }),
    ),
    authIssuer: Type.Optional(
      Type.String({ pattern: "^https?://[^\\s]+$", flag: "auth-issuer", env: "AUTH_ISSUER", description: "OpenID issuer whose JWT access tokens (Authorization: Bearer) are accepted; its keys come from its discovery document (with --auth-audience)" }),
    ),
    authAudience: Type.Optional(
      Type.String({ minLength: 1, flag: "auth-audience", env: "AUTH_AUDIENCE", description: "the audience (aud) an access token must name: this gateway's resource identifier" }),
    ),
    authJwksUrl: Type.Optional(
      Type.String({ pattern: "^https?://[^\\s]+$", flag: "auth-jwks-url", env: "AUTH_JWKS_URL", description: "the issuer's JWK Set, named directly instead of discovered (with --auth-issuer)" }),
    ),
    // Clocks of issuer and gateway drift apart by seconds; a minute would let expired tokens live on.
    authClockSkewS: Type.Integer({
      minimum: 0,
      maximum: 300,
      default: 30,
      flag: "auth-clock-skew", env: "AUTH_CLOCK_SKEW_S",
      description: "leeway of a token's exp and nbf, in seconds",
    }),
    authScopeClaim: Type.Optional(
      Type.String({ pattern: "^[A-Za-z0-9_.:/-]{1,128}$", flag: "auth-scope-claim", env: "AUTH_SCOPE_CLAIM", description: "the token claim holding its scopes (a space-separated string or an array); unset: scope, else scp" }),
    ),
    // RFC 9068 types access tokens at+jwt, but many issuers send JWT or no typ for them: both
    // are taken by default, and no other typ ever is (src/auth/token-form.ts).
    authTokenType: Type.Union([Type.Literal("jwt"), Type.Literal("at+jwt")], {
      default: "jwt",
      flag: "auth-token-type", env: "AUTH_TOKEN_TYPE",
      description: "the typ a bearer token's header may have: jwt takes at+jwt, JWT or none (what many issuers send for access tokens); at+jwt takes RFC 9068's at+jwt only",
    }),
    apiKeys: Type.Optional(
      Type.String({ minLength: 1, flag: "api-keys", env: "API_KEYS_FILE", description: "JSON file of API keys [{name, sha256, scopes}] accepted in X-API-Key (and the scopes of cert:<CN> client certificates); re-read on SIGHUP" }),
    ),
    tlsClientCa: Type.Optional(
      Type.String({ minLength: 1, flag: "tls-client-ca", env: "TLS_CLIENT_CA", description: "PEM file of the CAs whose client certificates the HTTPS listener requires (with --tls-cert and --api-keys)" }),
    ),
    // Off by default: where an audit trail must go, and who may read it, is the operator's choice.
    auditLog: Type.Optional(
      Type.String({ minLength: 1, flag: "audit-log", env: "AUDIT_LOG", description: "append one JSON line per change and per refusal (401/403) to this file, or write it to stderr; a change is answered once its line is written" }),
    ),
    allowedHosts: Type.Optional(
      Type.Array(Type.String({ pattern: `^\\*$|${HOST_PATTERN}` }), {
        flag: "allowed-host", env: "ALLOWED_HOSTS", description: "Host names accepted (name, name:port or *), comma-separated; unset: the loopback names, or * when --host is not loopback",
      }),
    ),
  },
  { additionalProperties: false },
);

export type Config = Static<typeof ConfigSchema>;

/** How a setting is spelled on the command line and in the environment: each row of ConfigSchema says it. */
export interface Setting {
  readonly key: keyof Config;
  readonly flag: string;
  readonly env: string;
}

/** A row of ConfigSchema as the command reads it: its spelling, and its type, default and help text. */
export type SettingSchema = TSchema & { readonly flag: string; readonly env: string; readonly description: string; readonly default?: unknown };

/** The schema of the setting `key`. */
export function settingSchema(key: keyof Config): SettingSchema {
  return ConfigSchema.properties[key] as SettingSchema;
}

/** Every setting, in the schema's order, with its spelling. */
export const SETTINGS: readonly Setting[] = (Object.keys(ConfigSchema.properties) as (keyof Config)[]).map((key) => {
  const { flag, env } = settingSchema(key);
  return { key, flag, env };
});

/** A setting whose value is unusable; its message is the one line printed before exit 2. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

/** What the command line asks for: the help text, the version, or a gateway with `config`. */
export type LoadResult = { readonly help: true } | { readonly version: true } | { readonly config: Config };

export function loadConfig(argv: readonly string[], env: NodeJS.ProcessEnv): LoadResult {
  const flags = parseFlags(argv);
  if (flags.help === true) return { help: true };
  if (flags.version === true) return { version: true };
  const raw: Record<string, unknown> = {};
  for (const setting of SETTINGS) {
    const fromFlag = flagText(flags[setting.flag]);
    const value = fromFlag ?? env[setting.env];
    const source = fromFlag === undefined ? setting.env : `--${setting.flag}`;
    if (value === undefined || value === "") continue;
    raw[setting.key] = convert(settingSchema(setting.key), value, source);
  }
  const config = configOf(raw);
  checkSecureByDefault(config);
  return { config };
}

/**
 * `settings` with every setting not given at its default, checked as the command checks them:
 * the one source of the defaults for the command (loadConfig) and for buildApp alike. Throws a
 * ConfigError naming the first unusable setting.
 */
export function configOf(settings: Readonly<Record<string, unknown>>): Config {
  const config = Value.Default(ConfigSchema, Value.Clone(settings)) as Record<string, unknown>;
  const first = Value.Errors(ConfigSchema, config).First();
  if (first !== undefined) {
    // A list's item is reported at /key/index.
    const setting = SETTINGS.find((s) => first.path === `/${s.key}` || first.path.startsWith(`/${s.key}/`));
    const name = setting === undefined ? first.path : settingName(setting.key);
    const shown = setting?.key === "rateLimitStore" ? redactedStoreUrl(String(first.value)) : JSON.stringify(first.value);
    throw new ConfigError(`${name}: ${first.message} (got ${shown})`);
  }
  checkRelations(config as Config);
  return config as Config;
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
  for (const [index, entry] of config.trustProxy.entries()) {
    const problem = trustedProxyProblem(entry);
    if (problem !== undefined) throw new ConfigError(`${settingName("trustProxy")}: ${JSON.stringify(entry)} (item ${String(index)}) ${problem}`);
  }
  needs(config, "rateLimitStorePasswordFile", "rateLimitStore");
  if (config.rateLimitStorePasswordFile !== undefined && config.rateLimitStore !== undefined && urlHasPassword(config.rateLimitStore)) {
    throw new ConfigError(`${settingName("rateLimitStorePasswordFile")}: ${settingName("rateLimitStore")} has a password already; give it in one place`);
  }
  together(config, "authIssuer", "authAudience");
  needs(config, "authJwksUrl", "authIssuer");
  needs(config, "authScopeClaim", "authIssuer");
  needs(config, "tlsClientCa", "tlsCert");
  // A client certificate's scopes are its cert:<CN> entry's.
  needs(config, "tlsClientCa", "apiKeys");
  const authentication = AUTHENTICATION_KEYS.find((key) => config[key] !== undefined);
  if (config.auth === "none" && authentication !== undefined) {
    throw new ConfigError(`${settingName("auth")}: none contradicts ${settingName(authentication)}`);
  }
  // Browsers refuse credentials from a server that allows any origin (Fetch, CORS check).
  if (config.corsCredentials && (config.corsOrigins.length === 0 || config.corsOrigins.includes("*"))) {
    throw new ConfigError(`${settingName("corsCredentials")}: needs ${settingName("corsOrigins")} with exact origins, not *`);
  }
}

/** The settings that each configure a way to authenticate. */
const AUTHENTICATION_KEYS = ["authIssuer", "apiKeys", "tlsClientCa"] as const;

/**
 * Secure by default: a listener off loopback serves the network, which must say who may call it
 * (authentication configured) or that anyone may (--auth none). The command's check, not
 * buildApp's: an app built in a program or test says its own access.
 */
export function checkSecureByDefault(config: Config): void {
  if (isLoopback(config.host) || config.auth === "none") return;
  if (AUTHENTICATION_KEYS.some((key) => config[key] !== undefined)) return;
  throw new ConfigError(
    `--host ${config.host} is not loopback and no authentication is configured: give --auth-issuer (with --auth-audience), --api-keys, or --auth none to serve without it`,
  );
}

/** `key`, set, means nothing without `other`. */
function needs(config: Config, key: keyof Config, other: keyof Config): void {
  if (config[key] === undefined || config[other] !== undefined) return;
  throw new ConfigError(`${settingName(key)}: needs ${settingName(other)}`);
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
  const options: Record<string, { type: "string" | "boolean"; multiple?: boolean }> = { help: { type: "boolean" }, version: { type: "boolean" } };
  for (const setting of SETTINGS) {
    const schema = settingSchema(setting.key);
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

/** A setting's default as --help and the configuration reference write it. */
export function defaultText(key: keyof Config): string {
  const fallback: unknown = settingSchema(key).default;
  if (fallback === undefined) return "unset";
  if (Array.isArray(fallback)) return fallback.length === 0 ? "none" : fallback.join(",");
  return typeof fallback === "string" ? fallback : JSON.stringify(fallback);
}

export function helpText(): string {
  const rows = SETTINGS.map((s) => {
    const schema = settingSchema(s.key);
    return `  --${s.flag.padEnd(FLAG_WIDTH)} ${s.env.padEnd(ENV_WIDTH)} ${schema.description.padEnd(80)} default: ${defaultText(s.key)}`;
  });
  return [
    "Usage: norsk-manager-gateway [options]",
    "",
    "Options (flag, then environment variable, then default):",
    ...rows,
    `  --${"help".padEnd(FLAG_WIDTH)} ${"".padEnd(ENV_WIDTH)} print this help`,
    `  --${"version".padEnd(FLAG_WIDTH)} ${"".padEnd(ENV_WIDTH)} print the version, the commit it was built from and the Node version`,
    "",
  ].join("\n");
}

/** Every setting at its default; the optional ones without a default are absent. */
export const DEFAULT_CONFIG: Readonly<Config> = Object.freeze(configOf({}));
