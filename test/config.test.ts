import { describe, expect, it } from "vitest";
import { ConfigError, ConfigSchema, SETTINGS, helpText, loadConfig } from "../src/config.js";

function config(argv: string[], env: Record<string, string> = {}) {
  const result = loadConfig(argv, env);
  if (!("config" in result)) throw new Error("unexpected --help or --version");
  return result.config;
}

describe("loadConfig", () => {
  it("applies the documented defaults", () => {
    expect(config([])).toEqual({
      port: 8080,
      host: "127.0.0.1",
      dataDir: "./data",
      requestTimeoutMs: 10_000,
      maxRequestTimeoutMs: 300_000,
      maxMessageSizeBytes: 16_777_216,
      logLevel: "info",
      accessLog: "on",
      coalesceReads: "on",
      sseHeartbeatMs: 15_000,
      sseBufferBytes: 1_048_576,
      headerTimeoutMs: 10_000,
      bodyTimeoutMs: 30_000,
      idleTimeoutMs: 72_000,
      maxConnections: 10_000,
      maxStreams: 100,
      shutdownTimeoutMs: 25_000,
      allowedOrigins: [],
      corsOrigins: [],
      corsCredentials: false,
      managerTls: false,
      shedEventLoopDelayMs: 1_000,
      shedHeapUsedBytes: 0,
      shedRssBytes: 0,
      shedRetryAfterS: 5,
      rateLimitKey: "address",
      authRefusalLimit: "30/m",
      trustProxy: [],
      workers: "1",
      authClockSkewS: 30,
      authTokenType: "jwt",
    });
  });

  it("reads the server limits, the shutdown deadline and the cross-site lists", () => {
    expect(
      config(["--header-timeout", "300", "--body-timeout", "400", "--idle-timeout", "500", "--max-connections", "3", "--max-streams", "7", "--shutdown-timeout", "0"]),
    ).toMatchObject({ headerTimeoutMs: 300, bodyTimeoutMs: 400, idleTimeoutMs: 500, maxConnections: 3, maxStreams: 7, shutdownTimeoutMs: 0 });
    expect(
      config([], {
        ALLOWED_ORIGINS: "https://ui.example.com, http://localhost:3000,",
        ALLOWED_HOSTS: "gateway.example.com,[::1]:8080,*",
        SHUTDOWN_TIMEOUT_MS: "1000",
      }),
    ).toMatchObject({
      allowedOrigins: ["https://ui.example.com", "http://localhost:3000"],
      allowedHosts: ["gateway.example.com", "[::1]:8080", "*"],
      shutdownTimeoutMs: 1000,
    });
    expect(config([]).allowedHosts).toBeUndefined();
  });

  it("reads the TLS settings, switches written as true/false or 1/0, and repeatable lists", () => {
    expect(
      config(["--manager", "m:1", "--manager-tls", "--manager-ca", "ca.pem", "--manager-cert", "c.pem", "--manager-key", "c.key", "--manager-server-name", "manager.example.com"]),
    ).toMatchObject({ managerTls: true, managerCa: "ca.pem", managerCert: "c.pem", managerKey: "c.key", managerServerName: "manager.example.com" });
    expect(config([], { MANAGER_ADDRESS: "m:1", MANAGER_TLS: "1" }).managerTls).toBe(true);
    expect(config([], { MANAGER_ADDRESS: "m:1", MANAGER_TLS: "false" }).managerTls).toBe(false);
    expect(config(["--allowed-origin", "https://a.example", "--allowed-origin", "https://b.example"]).allowedOrigins).toEqual(["https://a.example", "https://b.example"]);
  });

  it("reads the listener's certificate and key, and the CORS origins (repeatable, * allowed) and credentials", () => {
    expect(config(["--tls-cert", "s.pem", "--tls-key", "s.key"])).toMatchObject({ tlsCert: "s.pem", tlsKey: "s.key" });
    expect(config([], { TLS_CERT: "s.pem", TLS_KEY: "s.key" })).toMatchObject({ tlsCert: "s.pem", tlsKey: "s.key" });
    expect(config(["--cors-origin", "https://a.example", "--cors-origin", "http://localhost:3000", "--cors-credentials"])).toMatchObject({
      corsOrigins: ["https://a.example", "http://localhost:3000"],
      corsCredentials: true,
    });
    expect(config([], { CORS_ORIGINS: "*" }).corsOrigins).toEqual(["*"]);
  });

  it.each([
    [["--tls-cert", "s.pem"], "--tls-cert (TLS_CERT): needs --tls-key (TLS_KEY) as well"],
    [["--tls-key", "s.key"], "--tls-key (TLS_KEY): needs --tls-cert (TLS_CERT) as well"],
    [["--cors-credentials"], "--cors-credentials (CORS_CREDENTIALS): needs --cors-origin (CORS_ORIGINS) with exact origins, not *"],
    [["--cors-origin", "*", "--cors-credentials"], "--cors-credentials (CORS_CREDENTIALS): needs --cors-origin (CORS_ORIGINS) with exact origins, not *"],
    [["--manager", "m:1", "--manager-cert", "c.pem"], "--manager-cert (MANAGER_CERT): needs --manager-key (MANAGER_KEY) as well"],
    [["--manager", "m:1", "--manager-key", "c.key"], "--manager-key (MANAGER_KEY): needs --manager-cert (MANAGER_CERT) as well"],
    [["--manager-tls"], "--manager-tls (MANAGER_TLS): needs --manager (MANAGER_ADDRESS); the embedded Manager is reached in plaintext over loopback"],
    [["--manager-ca", "ca.pem"], "--manager-ca (MANAGER_CA): needs --manager (MANAGER_ADDRESS); the embedded Manager is reached in plaintext over loopback"],
  ])("refuses %j: %s", (argv, message) => {
    expect(() => config(argv)).toThrow(message);
  });

  it("refuses a switch that is neither true/false nor 1/0, naming the variable", () => {
    expect(() => config([], { MANAGER_ADDRESS: "m:1", MANAGER_TLS: "yes" })).toThrow('MANAGER_TLS: must be true, false, 1 or 0 (got "yes")');
  });

  it("refuses a header timeout longer than the body timeout, naming both", () => {
    expect(() => config(["--header-timeout", "5000", "--body-timeout", "4000"])).toThrow(
      "--header-timeout (HEADER_TIMEOUT_MS): must not exceed --body-timeout (BODY_TIMEOUT_MS) (got 5000 > 4000)",
    );
  });

  it("reads the largest gRPC message from --max-message-size or MAX_MESSAGE_SIZE_BYTES, 64 KiB to 1 GiB", () => {
    expect(config(["--max-message-size", "65536"])).toMatchObject({ maxMessageSizeBytes: 65_536 });
    expect(config([], { MAX_MESSAGE_SIZE_BYTES: "1073741824" })).toMatchObject({ maxMessageSizeBytes: 1_073_741_824 });
  });

  it("reads the longest deadline a Grpc-Timeout may set, from the flag or MAX_REQUEST_TIMEOUT_MS", () => {
    expect(config(["--max-request-timeout", "60000"])).toMatchObject({ maxRequestTimeoutMs: 60_000 });
    expect(config([], { MAX_REQUEST_TIMEOUT_MS: "86400000" })).toMatchObject({ maxRequestTimeoutMs: 86_400_000 });
    expect(config(["--request-timeout", "300000"])).toMatchObject({ requestTimeoutMs: 300_000, maxRequestTimeoutMs: 300_000 });
  });

  it("refuses a maximum shorter than the request timeout, naming both", () => {
    expect(() => config(["--request-timeout", "20000", "--max-request-timeout", "15000"])).toThrow(
      "--request-timeout (REQUEST_TIMEOUT_MS): must not exceed --max-request-timeout (MAX_REQUEST_TIMEOUT_MS) (got 20000 > 15000)",
    );
    expect(() => config(["--request-timeout", "600000"])).toThrow(/must not exceed --max-request-timeout/);
  });

  it("prefers a flag to the environment, and the environment to the default", () => {
    expect(config(["--port", "9000"], { PORT: "9100", HOST: "0.0.0.0", AUTH: "none" })).toMatchObject({ port: 9000, host: "0.0.0.0" });
    expect(config([], { MANAGER_ADDRESS: "manager:6790", REQUEST_TIMEOUT_MS: "2500", LOG_LEVEL: "debug", DATA_DIR: "/tmp/x" })).toMatchObject({
      manager: "manager:6790",
      requestTimeoutMs: 2500,
      logLevel: "debug",
      dataDir: "/tmp/x",
    });
  });

  it.each([
    [["--port", "http"], /--port/],
    [["--port", "70000"], /--port/],
    [["--port", "1e3"], /--port/],
    [["--request-timeout", "0"], /--request-timeout/],
    [["--max-request-timeout", "0"], /--max-request-timeout/],
    [["--max-request-timeout", "86400001"], /--max-request-timeout \(MAX_REQUEST_TIMEOUT_MS\)/],
    [["--log-level", "loud"], /--log-level/],
    [["--access-log", "verbose"], /--access-log \(ACCESS_LOG\)/],
    [["--metrics-port", "65536"], /--metrics-port \(METRICS_PORT\)/],
    [["--otlp-endpoint", "collector:4318"], /--otlp-endpoint \(OTEL_EXPORTER_OTLP_ENDPOINT\)/],
    [["--manager", "no-port"], /--manager/],
    [["--sse-heartbeat", "0"], /--sse-heartbeat/],
    [["--sse-buffer", "10"], /--sse-buffer/],
    [["--max-message-size", "65535"], /--max-message-size \(MAX_MESSAGE_SIZE_BYTES\)/],
    [["--max-message-size", "1073741825"], /--max-message-size \(MAX_MESSAGE_SIZE_BYTES\)/],
    [["--bogus", "1"], /bogus/],
    [["--header-timeout", "0"], /--header-timeout/],
    [["--body-timeout", "soon"], /--body-timeout/],
    [["--idle-timeout", "0"], /--idle-timeout/],
    [["--max-connections", "0"], /--max-connections/],
    [["--shutdown-timeout", "-1"], /--shutdown-timeout/],
    [["--allowed-origin", "https://ui.example.com/app"], /--allowed-origin \(ALLOWED_ORIGINS\)/],
    [["--allowed-origin", "null"], /--allowed-origin/],
    [["--allowed-host", "http://gateway.example.com"], /--allowed-host \(ALLOWED_HOSTS\)/],
    [["--cors-origin", "https://ui.example.com/"], /--cors-origin \(CORS_ORIGINS\)/],
    [["--cors-origin", "ui.example.com"], /--cors-origin/],
    [["--cors-origin", "x*"], /--cors-origin/],
    [["--manager", "m:1", "--manager-server-name", "bad name"], /--manager-server-name \(MANAGER_SERVER_NAME\)/],
  ])("stops on %j with one line naming the setting", (argv, pattern) => {
    expect(() => config(argv)).toThrow(ConfigError);
    expect(() => config(argv)).toThrow(pattern);
  });

  it("reads whether identical reads share calls from --coalesce-reads or COALESCE_READS, and refuses other values", () => {
    expect(config(["--coalesce-reads", "off"]).coalesceReads).toBe("off");
    expect(config([], { COALESCE_READS: "off" }).coalesceReads).toBe("off");
    expect(() => config(["--coalesce-reads", "yes"])).toThrow(/--coalesce-reads \(COALESCE_READS\)/);
  });

  it("reads the access log's mode from --access-log or ACCESS_LOG", () => {
    expect(config(["--access-log", "errors"]).accessLog).toBe("errors");
    expect(config([], { ACCESS_LOG: "off" }).accessLog).toBe("off");
  });

  it("reads the metrics listener's port from --metrics-port or METRICS_PORT; unset, /metrics is on the HTTP port", () => {
    expect(config(["--metrics-port", "9464"]).metricsPort).toBe(9464);
    expect(config([], { METRICS_PORT: "0" }).metricsPort).toBe(0);
    expect(config([]).metricsPort).toBeUndefined();
  });

  it("reads the OTLP collector from --otlp-endpoint or OpenTelemetry's own OTEL_EXPORTER_OTLP_ENDPOINT; unset, no tracing", () => {
    expect(config(["--otlp-endpoint", "http://collector:4318"]).otlpEndpoint).toBe("http://collector:4318");
    expect(config([], { OTEL_EXPORTER_OTLP_ENDPOINT: "https://otel.example.com" }).otlpEndpoint).toBe("https://otel.example.com");
    expect(config([]).otlpEndpoint).toBeUndefined();
  });

  it("reads the load-shedding thresholds and Retry-After from their flags or variables; 0 turns a threshold off", () => {
    expect(config(["--shed-event-loop-delay", "0", "--shed-heap-used", "1073741824", "--shed-rss", "2147483648", "--shed-retry-after", "30"])).toMatchObject({
      shedEventLoopDelayMs: 0,
      shedHeapUsedBytes: 1_073_741_824,
      shedRssBytes: 2_147_483_648,
      shedRetryAfterS: 30,
    });
    expect(config([], { SHED_EVENT_LOOP_DELAY_MS: "250", SHED_HEAP_USED_BYTES: "1", SHED_RSS_BYTES: "2", SHED_RETRY_AFTER_S: "1" })).toMatchObject({
      shedEventLoopDelayMs: 250,
      shedHeapUsedBytes: 1,
      shedRssBytes: 2,
      shedRetryAfterS: 1,
    });
  });

  it.each([
    [["--shed-event-loop-delay", "60001"], /--shed-event-loop-delay \(SHED_EVENT_LOOP_DELAY_MS\)/],
    [["--shed-heap-used", "-1"], /--shed-heap-used/],
    [["--shed-rss", "1e9"], /--shed-rss: must be a whole number/],
    [["--shed-retry-after", "0"], /--shed-retry-after \(SHED_RETRY_AFTER_S\)/],
  ])("refuses the load-shedding setting %j, naming it", (argv, pattern) => {
    expect(() => config(argv)).toThrow(pattern);
  });

  it("reads the rate limit from --rate-limit or RATE_LIMIT and its key from --rate-limit-key or RATE_LIMIT_KEY; unset, no limit", () => {
    expect(config(["--rate-limit", "100/s", "--rate-limit-key", "authorization"])).toMatchObject({ rateLimit: "100/s", rateLimitKey: "authorization" });
    expect(config([], { RATE_LIMIT: "50/10s" })).toMatchObject({ rateLimit: "50/10s", rateLimitKey: "address" });
    expect(config([]).rateLimit).toBeUndefined();
  });

  it.each([
    [["--rate-limit", "100"], /--rate-limit \(RATE_LIMIT\)/],
    [["--rate-limit", "0/s"], /--rate-limit \(RATE_LIMIT\)/],
    [["--rate-limit", "100/d"], /--rate-limit \(RATE_LIMIT\)/],
    [["--rate-limit-key", "cookie"], /--rate-limit-key \(RATE_LIMIT_KEY\)/],
  ])("refuses the rate-limit setting %j, naming it", (argv, pattern) => {
    expect(() => config(argv)).toThrow(pattern);
  });

  it("reads the number of workers from --workers or WORKERS: a count or auto", () => {
    expect(config(["--workers", "4"]).workers).toBe("4");
    expect(config([], { WORKERS: "auto" }).workers).toBe("auto");
    // One process unless asked: the image and the Kubernetes manifests ask for auto.
    expect(config([]).workers).toBe("1");
  });

  it.each([
    [["--workers", "0"], /--workers \(WORKERS\)/],
    [["--workers", "all"], /--workers \(WORKERS\)/],
    [["--workers", "2", "--metrics-port", "0"], /--metrics-port \(METRICS_PORT\): must be a port number with --workers \(WORKERS\), not 0/],
  ])("refuses %j, naming the setting", (argv, pattern) => {
    expect(() => config(argv)).toThrow(pattern);
  });

  it("names the environment variable when the bad value came from there", () => {
    expect(() => config([], { PORT: "eighty" })).toThrow(/PORT/);
  });

  it("asks for help with --help, which lists every setting", () => {
    expect(loadConfig(["--help"], {})).toEqual({ help: true });
    expect(loadConfig(["--version"], {})).toEqual({ version: true });
    for (const name of ["--port", "PORT", "--host", "--manager", "MANAGER_ADDRESS", "--data-dir", "--request-timeout", "--max-request-timeout", "MAX_REQUEST_TIMEOUT_MS", "--max-message-size", "MAX_MESSAGE_SIZE_BYTES", "--log-level", "--sse-heartbeat", "SSE_HEARTBEAT_MS", "--sse-buffer", "SSE_BUFFER_BYTES", "--header-timeout", "--body-timeout", "--idle-timeout", "--max-connections", "--shutdown-timeout", "SHUTDOWN_TIMEOUT_MS", "--allowed-origin", "ALLOWED_ORIGINS", "--allowed-host", "ALLOWED_HOSTS", "--manager-tls", "MANAGER_TLS", "--manager-ca", "--manager-cert", "--manager-key", "--manager-server-name", "--tls-cert", "TLS_CERT", "--tls-key", "--cors-origin", "CORS_ORIGINS", "--cors-credentials", "--access-log", "ACCESS_LOG", "--metrics-port", "METRICS_PORT", "--otlp-endpoint", "OTEL_EXPORTER_OTLP_ENDPOINT", "--shed-event-loop-delay", "SHED_EVENT_LOOP_DELAY_MS", "--shed-heap-used", "SHED_HEAP_USED_BYTES", "--shed-rss", "SHED_RSS_BYTES", "--shed-retry-after", "SHED_RETRY_AFTER_S", "--rate-limit", "RATE_LIMIT", "--rate-limit-key", "RATE_LIMIT_KEY", "--workers", "WORKERS", "--coalesce-reads", "COALESCE_READS"]) {
      expect(helpText()).toContain(name);
    }
  });
});

describe("the schema's rows", () => {
  it("each spell a flag and an environment variable of their own", () => {
    expect(SETTINGS.map((s) => s.key)).toEqual(Object.keys(ConfigSchema.properties));
    for (const setting of SETTINGS) {
      expect(setting.flag).toMatch(/^[a-z][a-z-]*[a-z]$/);
      expect(setting.env).toMatch(/^[A-Z][A-Z_]*[A-Z]$/);
    }
    expect(new Set(SETTINGS.map((s) => s.flag)).size).toBe(SETTINGS.length);
    expect(new Set(SETTINGS.map((s) => s.env)).size).toBe(SETTINGS.length);
  });
});
