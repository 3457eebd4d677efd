// The running gateway: the app listening on its port, connected to a Manager, which is the
// embedded reference Manager when no address is configured. Used by main.ts and by the tests
// that need the whole thing on port 0.
import type { FastifyBaseLogger, FastifyInstance } from "fastify";
import { HealthCheckResponse_ServingStatus } from "norsk-manager-contract/gen/grpc/health/v1/health_pb.js";
import { Code, GrpcError } from "norsk-manager-contract/grpc/index.js";
import { connectivityState } from "@grpc/grpc-js";
import { ConfigError, settingName } from "./config.js";
import { ApiKeys } from "./auth/api-keys.js";
import { JwtVerifier } from "./auth/jwt.js";
import type { AccessOptions } from "./auth/access.js";
import type { Config } from "./config.js";
import { buildApp } from "./app.js";
import { ManagerState } from "./telemetry/manager-state.js";
import { buildInfo, describeBuild } from "./build-info.js";
import type { AppOptions } from "./app.js";
import { connectManager } from "norsk-manager-contract/grpc/manager-connection.js";
import type { ManagerConnection } from "norsk-manager-contract/grpc/manager-connection.js";
import type { RunningManager } from "norsk-reference-manager";
import { gracefulClose } from "./server/shutdown.js";
import { readListenerTls, readManagerTls } from "./tls-material.js";
import { grpcMetricsInterceptor } from "./telemetry/grpc-metrics.js";
import { GatewayMetrics } from "./telemetry/metrics.js";
import { shareMetrics } from "./cluster.js";
import { listenMetrics } from "./telemetry/metrics-route.js";
import type { MetricsListener } from "./telemetry/metrics-route.js";
import type { Tracing } from "./telemetry/tracing.js";
import { AuditLog } from "./telemetry/audit-log.js";
import { readFileSync } from "node:fs";

export interface Gateway {
  readonly app: FastifyInstance;
  /** e.g. http://127.0.0.1:8080, or https://... with --tls-cert */
  readonly url: string;
  /** The Manager's address, or "embedded". */
  readonly manager: string;
  /** Where /metrics is served: `${url}/metrics`, or the listener of --metrics-port. */
  readonly metricsUrl: string;
  /**
   * Stops accepting, lets in-flight requests finish for at most config.shutdownTimeoutMs (then
   * closes their connections), then closes the channel and the embedded Manager.
   */
  close(): Promise<void>;
}

/** Probes the Manager now and whenever its channel changes, so that readiness and the outage lines follow it. */
function watchManager(connection: ManagerConnection, { log, state, metrics }: { log: FastifyBaseLogger; state: ManagerState; metrics: GatewayMetrics }): void {
  const onReadiness = (ready: boolean): void => { metrics.managerReady.set(ready ? 1 : 0); };
  const probe = (): void => { probeManager(connection, { log, state, onReadiness }); };
  probe();
  // A lost connection is checked at once, so that the outage is logged with grpc-js's reason
  // even while no request comes.
  followChannel(connection, probe, () => { onReadiness(false); probe(); });
}

export async function startGateway(config: Config, logger: AppOptions["logger"] = false): Promise<Gateway> {
  const tls = readManagerTls(config);
  const listenerTls = readListenerTls(config);
  const access = accessOf(config);
  const audit = auditLogOf(config);
  const embedded = config.manager === undefined ? await startEmbeddedManager(config.dataDir) : undefined;
  const address = config.manager ?? embedded?.address ?? "";
  const metrics = new GatewayMetrics({ build: buildInfo() });
  // A worker of --workers: /metrics is every worker's (src/cluster.ts).
  shareMetrics(metrics);
  // Loaded only when asked for: without a collector, no OpenTelemetry module is imported.
  const tracing = config.otlpEndpoint === undefined ? undefined : await startTracing(config.otlpEndpoint);
  const interceptors = [...(tracing === undefined ? [] : [tracing.interceptor]), grpcMetricsInterceptor(metrics)];
  const connection = connectManager(address, { defaultTimeoutMs: config.requestTimeoutMs, tls, interceptors, maxMessageSizeBytes: config.maxMessageSizeBytes });
  const managerLabel = embedded === undefined ? address : "embedded";
  let metricsListener: MetricsListener | undefined;
  try {
    const served = { metrics, metricsRoute: config.metricsPort === undefined, tracing, ...(listenerTls === undefined ? {} : { tls: listenerTls }) };
    const managerState = new ManagerState({ manager: managerLabel });
    const app = await buildApp({ ...config, connection, logger, managerState, ...served, access: access.options, ...(audit === undefined ? {} : { audit }), ...storePasswordOf(config) });
    access.watch(app.log);
    const shutdown = gracefulClose(app);
    let url = "";
    await app.listen({
      port: config.port,
      host: config.host,
      // Fastify logs this as its one "listening" line; it is also the gateway's start-up line.
      listenTextResolver: (listening) => {
        url = listening;
        return `norsk-manager-gateway ${describeBuild()} listening on ${listening} (Manager: ${managerLabel}; docs: ${listening}/docs)`;
      },
    });
    if (config.metricsPort !== undefined) {
      metricsListener = await listenMetrics(metrics, config.metricsPort, config.host);
      app.log.info({ url: `${metricsListener.url}/metrics` }, "metrics served on their own port");
    }
    watchManager(connection, { log: app.log, state: managerState, metrics });
    return {
      app,
      url,
      manager: managerLabel,
      metricsUrl: `${metricsListener?.url ?? url}/metrics`,
      close: async () => {
        access.close();
        await metricsListener?.close();
        await shutdown.close(config.shutdownTimeoutMs);
        connection.close();
        // A collector that is down loses the last spans; it must not fail the shutdown.
        await tracing?.shutdown().catch((error: unknown) => {
          app.log.warn({ reason: error instanceof Error ? error.message : String(error) }, "the last traces could not be exported");
        });
        await Promise.all([embedded?.close(), audit?.close()]);
      },
    };
  } catch (error) {
    access.close();
    await audit?.close();
    await metricsListener?.close();
    connection.close();
    await tracing?.shutdown();
    await embedded?.close();
    throw error;
  }
}

/** The audit log --audit-log names, opened now; a file that cannot be opened for appending is a ConfigError. */
function auditLogOf(config: Config): AuditLog | undefined {
  if (config.auditLog === undefined) return undefined;
  try {
    return new AuditLog(config.auditLog);
  } catch (error) {
    const reason = error instanceof Error && "code" in error ? String(error.code) : String(error);
    throw new ConfigError(`${settingName("auditLog")}: cannot open ${config.auditLog} for appending (${reason})`);
  }
}

/** The first line of --rate-limit-store-password-file; a file that cannot be read is a ConfigError (which never quotes it). */
function storePasswordOf(config: Config): { readonly rateLimitStorePassword?: string } {
  if (config.rateLimitStorePasswordFile === undefined) return {};
  let text: string;
  try {
    text = readFileSync(config.rateLimitStorePasswordFile, "utf8");
  } catch (error) {
    const reason = error instanceof Error && "code" in error ? String(error.code) : "unreadable";
    throw new ConfigError(`${settingName("rateLimitStorePasswordFile")}: cannot read ${config.rateLimitStorePasswordFile} (${reason})`);
  }
  const password = text.split(/\r?\n/, 1)[0] ?? "";
  if (password === "") throw new ConfigError(`${settingName("rateLimitStorePasswordFile")}: ${config.rateLimitStorePasswordFile} holds no password on its first line`);
  return { rateLimitStorePassword: password };
}

interface ConfiguredAccess {
  readonly options: AccessOptions;
  /** From now on, SIGHUP re-reads the API keys (a file that fails keeps the old keys), logged in `log`. */
  watch(log: FastifyBaseLogger): void;
  close(): void;
}

/** The ways to authenticate the configuration names (src/auth/); an unreadable --api-keys file is a ConfigError. */
function accessOf(config: Config): ConfiguredAccess {
  let apiKeys: ApiKeys | undefined;
  if (config.apiKeys !== undefined) {
    try {
      apiKeys = new ApiKeys(config.apiKeys);
    } catch (error) {
      throw new ConfigError(`${settingName("apiKeys")}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const jwt =
    config.authIssuer === undefined || config.authAudience === undefined
      ? undefined
      : new JwtVerifier({ issuer: config.authIssuer, audience: config.authAudience, jwksUrl: config.authJwksUrl, clockSkewS: config.authClockSkewS, scopeClaim: config.authScopeClaim, tokenType: config.authTokenType });
  let onHangup: (() => void) | undefined;
  return {
    options: { jwt, apiKeys },
    watch: (log) => {
      if (apiKeys === undefined) return;
      const keys = apiKeys;
      onHangup = () => {
        try {
          keys.reload();
          log.info({ file: keys.path, keys: keys.size }, "API keys re-read");
        } catch (error) {
          log.error({ reason: error instanceof Error ? error.message : String(error) }, "API keys not re-read; the keys read before stay in force");
        }
      };
      process.on("SIGHUP", onHangup);
    },
    close: () => {
      if (onHangup !== undefined) process.off("SIGHUP", onHangup);
    },
  };
}

/** How long the start-up check of the Manager waits for its answer. */
const PROBE_TIMEOUT_MS = 5_000;

/** Where a check of the Manager tells its answer. */
interface ProbeTargets {
  readonly log: FastifyBaseLogger;
  readonly state: ManagerState;
  readonly onReadiness: (ready: boolean) => void;
}

/**
 * One health check, at start-up and whenever the channel's connection is lost or regained, so
 * that a Manager that cannot be reached (a wrong address, a certificate it or the gateway
 * refuses, a Manager gone) is named in the log at once, with grpc-js's reason, not only by the
 * 503s that follow; the Manager's state logs it once per change. It does not hold up the start:
 * /readyz reports the state.
 */
function probeManager(connection: ManagerConnection, targets: ProbeTargets): void {
  const { log, state, onReadiness } = targets;
  connection.health.check({ service: "" }, { timeoutMs: PROBE_TIMEOUT_MS }).then(
    (reply) => {
      const serving = reply.status === HealthCheckResponse_ServingStatus.SERVING;
      onReadiness(serving);
      if (serving) state.answered(log);
      else state.down(log, { code: "OK", reason: `the Manager answers ${HealthCheckResponse_ServingStatus[reply.status]}` });
    },
    (error: unknown) => {
      onReadiness(false);
      const { code, details } = GrpcError.from(error);
      state.down(log, { code: Code[code], reason: details });
    },
  );
}

/** How long one watch of the channel's state lasts before it is renewed (grpc-js needs a deadline). */
const WATCH_MS = 3_600_000;

/**
 * Readiness between probes: when the unary channel loses its connection (TRANSIENT_FAILURE),
 * `lost` at once; when it is READY again, `regained` (a health check, since a connection is
 * not yet a SERVING Manager). A channel left IDLE by a closed connection is reconnected at
 * once, so that a Manager that went away is noticed without waiting for a request. Ends when
 * the channel is shut down.
 */
function followChannel(connection: ManagerConnection, regained: () => void, lost: () => void): void {
  const channel = connection.channel.getChannel();
  // READY counts only after a loss: the first connection is the start-up probe's own.
  let wasLost = false;
  const watch = (from: connectivityState): void => {
    channel.watchConnectivityState(from, Date.now() + WATCH_MS, (error) => {
      const now = channel.getConnectivityState(false);
      if (error === undefined && now === connectivityState.TRANSIENT_FAILURE && !wasLost) {
        wasLost = true;
        lost();
      }
      if (error === undefined && now === connectivityState.READY && wasLost) {
        wasLost = false;
        regained();
      }
      // A connection the Manager closed leaves the channel IDLE until a call comes; connecting
      // at once tells a Manager gone (TRANSIENT_FAILURE) from one that only closed it.
      if (error === undefined && now === connectivityState.IDLE && from === connectivityState.READY) channel.getConnectivityState(true);
      if (now !== connectivityState.SHUTDOWN) watch(now);
    });
  };
  watch(channel.getConnectivityState(false));
}

/** The reference Manager's package: an optional peer of the gateway's. */
const EMBEDDED_MANAGER_PACKAGE = "norsk-reference-manager";

/**
 * The embedded reference Manager on a loopback port. It is imported only here, when it is
 * used: a gateway pointed at a Manager (--manager) does without its package, whose absence is
 * then explained in one line.
 */
export async function startEmbeddedManager(dataDir: string): Promise<RunningManager> {
  try {
    const { DataDirError, startManager } = await import("norsk-reference-manager");
    try {
      return await startManager({ port: 0, host: "127.0.0.1", dataDir });
    } catch (error) {
      // The operator's --data-dir: a configuration error (exit 2), in the Manager's words.
      if (error instanceof DataDirError) throw new ConfigError(error.message.replace("the data dir", "--data-dir"));
      throw error;
    }
  } catch (error) {
    if (!isMissingPackage(error, EMBEDDED_MANAGER_PACKAGE)) throw error;
    throw new Error(
      `the embedded reference Manager is the package ${EMBEDDED_MANAGER_PACKAGE}, which is not installed: install it beside the gateway, or give a Manager's address with --manager host:port`,
    );
  }
}

/**
 * The OpenTelemetry packages tracing imports: optional peer dependencies of the gateway (its
 * package.json says so, and a test holds the two together), installed only where
 * --otlp-endpoint is used.
 */
export const TRACING_PACKAGES = [
  "@opentelemetry/api",
  "@opentelemetry/context-async-hooks",
  "@opentelemetry/core",
  "@opentelemetry/exporter-trace-otlp-http",
  "@opentelemetry/resources",
  "@opentelemetry/sdk-trace-base",
] as const;

/** Tracing to the collector at `endpoint`; OpenTelemetry is imported only here, only then. */
async function startTracing(endpoint: string): Promise<Tracing> {
  try {
    return (await import("./telemetry/tracing.js")).startTracing({ endpoint });
  } catch (error) {
    if (!isMissingPackage(error, "@opentelemetry/")) throw error;
    throw new ConfigError(
      `--otlp-endpoint needs OpenTelemetry, which is not installed: install it beside the gateway (npm install ${TRACING_PACKAGES.join(" ")})`,
    );
  }
}

/** Whether `error` is an import's report that a package whose name starts with `prefix` is not installed. */
function isMissingPackage(error: unknown, prefix: string): boolean {
  return (
    error instanceof Error &&
    "code" in error &&
    error.code === "ERR_MODULE_NOT_FOUND" &&
    error.message.includes(`package '${prefix}`)
  );
}
