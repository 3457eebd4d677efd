// Builds the gateway's Fastify app without listening: validation, errors, request ids, and
// the routes. main.ts (and the tests) decide where it listens and which Manager it talks to.
import { JSON_PATCH_TYPE, JSON_TYPE, MERGE_PATCH_TYPE } from "./http/media-type.js";
import { maxHeaderSize } from "node:http";
import type { Http2SecureServer } from "node:http2";
import Fastify, { LogController } from "fastify";
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyServerOptions,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { ManagerConnection } from "norsk-manager-contract/grpc/manager-connection.js";
import { PROBLEM_CONTENT_TYPE, invalidArgument, problem, toProblem } from "./http/problem.js";
import { requestIdOf } from "./http/request-id.js";
import { methodNotAllowed, refuseUnacceptable, routeMethods } from "./http/negotiation.js";
import type { RouteMethods } from "./http/negotiation.js";
import { retryAfterOn503 } from "./http/retry-after.js";
import { withDeprecationHeaders } from "./http/deprecation.js";
import { bodilessAnswers } from "./http/bodiless.js";
import { clientErrorHandler, connectHandler, expectationHandler, frameworkErrorHandler } from "./http/unrouted.js";
import { parseJsonBody } from "./json/body.js";
import { serializerOptions, validatorCompiler } from "./http/validation.js";
import { DOCUMENT_TITLE, registerOpenApi } from "./openapi/register.js";
import { buildInfo } from "./build-info.js";
import { documentYaml } from "./openapi/yaml.js";
import { uiView } from "./openapi/ui-view.js";
import { docsRoutes } from "./routes/docs.js";
import { healthRoutes } from "./routes/health.js";
import { jobsRoutes } from "./routes/jobs.js";
import { jobInstanceRoutes } from "./routes/job-instances.js";
import { jobSearchRoutes } from "./routes/job-search.js";
import { nodeRoutes } from "./routes/nodes.js";
import { pictureRoutes } from "./routes/picture.js";
import type { Picture } from "./operations/picture.js";
import { eventRoutes } from "./routes/events.js";
import cors from "@fastify/cors";
import { corsEnabled, corsPluginOptions } from "./server/cors.js";
import { registerCompression } from "./server/compression.js";
import { crossSiteGuard, defaultAllowedHosts } from "./server/cross-site.js";
import { closeIdleConnectionsOnClose } from "./server/idle-connections.js";
import { resetEarlyAnswers } from "./server/early-answer.js";
import { refuseWhileClosing } from "./server/refuse-while-closing.js";
import { applyHttp1Limits, applyHttp2Limits, headerListTooLarge, limitConnections, secureServerOptions, serverOptions } from "./server/limits.js";
import type { ServerLimits } from "./server/limits.js";
import { accessLog as accessLogObserver } from "./telemetry/access-log.js";
import { httpMetrics, noteRequestBody } from "./telemetry/http-metrics.js";
import { observeRequests } from "./telemetry/request-facts.js";
import { LOG_SERIALIZERS } from "./telemetry/request-log.js";
import type { RequestObserver } from "./telemetry/request-facts.js";
import { watchChannels } from "./telemetry/grpc-metrics.js";
import type { GatewayMetrics } from "./telemetry/metrics.js";
import { SharedCalls } from "./operations/shared-calls/calls.js";
import { SharedStreams } from "./operations/shared-calls/streams.js";
import type { CurrentJob } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { StartedSearch } from "./operations/search-body.js";
import { addMetricsRoute } from "./telemetry/metrics-route.js";
import type { Tracing } from "./telemetry/tracing.js";
import { METRICS_PATH } from "./telemetry/metrics-route.js";
import { SAMPLE_INTERVAL_MS, registerLoadShedding } from "./server/load-shedding.js";
import type { ShedReason } from "./server/load-shedding.js";
import { localCounter, parseRate, registerRateLimit } from "./server/rate-limit.js";
import type { Counter } from "./server/rate-limit-store.js";
import { RateLimitStore, redactedStoreUrl } from "./server/rate-limit-store.js";
import { refusalLimit } from "./server/refusal-limit.js";
import type { RefusalLimit } from "./server/refusal-limit.js";
import { trustProxyOption } from "./server/trust-proxy.js";
import { configOf } from "./config.js";
import { ManagerState } from "./telemetry/manager-state.js";
import { authenticates, isProtected, registerAccess } from "./auth/access.js";
import type { AccessHooks, AccessOptions } from "./auth/access.js";
import { failedOutcome, noteAudit, registerAudit } from "./telemetry/audit-log.js";
import { lineSafe } from "./http/line-safe.js";
import type { AuditLog } from "./telemetry/audit-log.js";
import type { Config } from "./config.js";

/**
 * The settings buildApp reads. They are the command's (src/config.ts), with the same names,
 * ranges and defaults: an app built with none of them given runs as `npm start` does. The
 * others (port, the Manager's address and TLS, the log level, workers, ...) are startGateway's.
 */
export const APP_SETTINGS = [
  "host",
  "requestTimeoutMs",
  "maxRequestTimeoutMs",
  "accessLog",
  "coalesceReads",
  "sseHeartbeatMs",
  "sseBufferBytes",
  "headerTimeoutMs",
  "bodyTimeoutMs",
  "idleTimeoutMs",
  "maxConnections",
  "maxStreams",
  "allowedOrigins",
  "allowedHosts",
  "corsOrigins",
  "corsCredentials",
  "shedEventLoopDelayMs",
  "shedHeapUsedBytes",
  "shedRssBytes",
  "shedRetryAfterS",
  "rateLimit",
  "rateLimitKey",
  "rateLimitStore",
  "authRefusalLimit",
  "trustProxy",
] as const satisfies readonly (keyof Config)[];

export type AppSettings = Pick<Config, (typeof APP_SETTINGS)[number]>;

/**
 * Each setting not given takes its default from ConfigSchema (src/config.ts); a value the
 * command would refuse makes buildApp throw the command's ConfigError.
 */
export interface AppOptions extends Partial<AppSettings> {
  /** The Manager, reached over one long-lived channel. Required. */
  readonly connection: ManagerConnection;
  /** Largest accepted request body, in bytes. Default: BODY_LIMIT_BYTES. */
  readonly bodyLimit?: number;
  /** Fastify's logger option. Default: false, nothing written (the command passes its own, at --log-level). */
  readonly logger?: FastifyServerOptions["logger"] | FastifyBaseLogger;
  /**
   * Serve HTTPS with this certificate chain and key (PEM), HTTP/2 or HTTP/1.1 as the client's
   * ALPN chooses. Default: none (plain HTTP/1.1).
   */
  readonly tls?: ListenerTls;
  /** Attempts of a PATCH whose test-and-set loses to another writer. Default: the jobs routes'. */
  readonly patchAttempts?: number;
  /** Writes of one job that may wait behind the running one; one more is a 429. Default: the jobs routes'. */
  readonly maxWaitingWrites?: number;
  /** How often load shedding samples the process, in ms. Default: SAMPLE_INTERVAL_MS. */
  readonly sheddingSampleIntervalMs?: number;
  /**
   * The metrics this app feeds (its gRPC calls are counted by the interceptor the connection
   * was made with: grpcMetricsInterceptor). Default: none, and no /metrics.
   */
  readonly metrics?: GatewayMetrics;
  /**
   * The server span of each request (the connection's interceptor makes the client spans).
   * Default: none, and no OpenTelemetry code runs.
   */
  readonly tracing?: Pick<Tracing, "hook" | "traceIdOf">;
  /**
   * Whether the Manager is up, as logged once per change (src/telemetry/manager-state.ts); the
   * command shares it with its start-up check. Default: the app's own.
   */
  readonly managerState?: ManagerState;
  /** The most bytes a picture read from the Manager may have (src/operations/picture.ts). Default: PICTURE_LIMIT_BYTES. */
  readonly pictureLimitBytes?: number;
  /** Whether the app itself serves GET /metrics (false when a listener of its own does). Default: true. */
  readonly metricsRoute?: boolean;
  /**
   * Who may call what (src/auth/access.ts): the ways to authenticate. Default: none, and every
   * request may call every route.
   */
  readonly access?: AccessOptions;
  /** Where each change and refusal is written before it is answered (src/telemetry/audit-log.ts). Default: none. */
  readonly audit?: AuditLog;
  /** The password of rateLimitStore, when its URL has none (the command reads --rate-limit-store-password-file). Default: the URL's, or none. */
  readonly rateLimitStorePassword?: string;
}

export interface ListenerTls {
  readonly cert: Buffer;
  readonly key: Buffer;
  /** The CAs (PEM) whose client certificates every connection must show (--tls-client-ca). Default: none asked for. */
  readonly clientCa?: Buffer;
}

/** The largest request body accepted, in bytes: a job is far smaller. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const settings = appSettingsOf(options);
  const app = createServer(options, settings);
  limitConnections(app.server, settings.maxConnections, app.log);
  closeIdleConnectionsOnClose(app);
  // Before any route is added: they read each route as it is (src/http/negotiation.ts).
  const methods = routeMethods(app);
  refuseUnacceptable(app);

  app.setValidatorCompiler(validatorCompiler);

  app.server.on("checkExpectation", expectationHandler(app.log));
  app.server.on("connect", connectHandler(app.log));

  addBodyParsers(app, options.metrics !== undefined);
  addObservingHooks(app, options, settings);
  const { metrics } = options;
  // After the request id and the observers, so that a refused request is logged and counted.
  const shedding = {
    maxEventLoopDelayMs: settings.shedEventLoopDelayMs,
    maxHeapUsedBytes: settings.shedHeapUsedBytes,
    maxRssBytes: settings.shedRssBytes,
    sampleIntervalMs: options.sheddingSampleIntervalMs ?? SAMPLE_INTERVAL_MS,
    onShed: (reason: ShedReason) => metrics?.requestsShed.inc({ reason }),
  };
  await registerLoadShedding(app, shedding, EXEMPT);
  const managerState = options.managerState ?? new ManagerState();
  addGuardsAndErrorHandlers(app, settings, { managerState, methods });
  const store = await openStore(app, settings, options);
  const accessOptions = { ...options.access, clientCertificates: options.tls?.clientCa !== undefined };
  const refusals = refusalLimitOf(settings, accessOptions, store ?? localCounter(), metrics);
  // Before the routes (whose declarations it checks) and their rate limit.
  const access = registerAccess(app, { ...accessOptions, onKeysUnavailable: () => metrics?.authKeysUnavailable.inc(), onRefused: refusals?.refused });
  addAccessAndCrossSite(app, settings, access, refusals);
  // Before compression's onSend hook: a change's answer may become the audit's 500.
  if (options.audit !== undefined) registerAudit(app, options.audit);
  // Before the routes: it hooks each route as it is added.
  if (settings.rateLimit !== undefined) {
    const rate = { ...parseRate(settings.rateLimit), key: settings.rateLimitKey, onLimited: () => metrics?.requestsRateLimited.inc(), store };
    await registerRateLimit(app, rate, EXEMPT);
  }
  // After the cross-site guard, which refuses a preflight from an origin not allowed.
  const corsOptions = { origins: settings.corsOrigins, credentials: settings.corsCredentials };
  if (corsEnabled(corsOptions)) await app.register(cors, corsPluginOptions(corsOptions));
  // Before the routes: it hooks each route as it is added (src/server/compression.ts).
  await registerCompression(app);
  await addRoutes(app, options, settings, managerState);
  return app;
}

/**
 * The shared store of the rate limits' counts (--rate-limit-store), connected (or found
 * unreachable) before the app serves, and closed with it; none when not configured.
 */
async function openStore(app: GatewayApp, settings: AppSettings, options: AppOptions): Promise<RateLimitStore | undefined> {
  if (settings.rateLimitStore === undefined) return undefined;
  const { metrics } = options;
  const label = { store: redactedStoreUrl(settings.rateLimitStore) };
  const store = new RateLimitStore({
    url: settings.rateLimitStore,
    password: options.rateLimitStorePassword,
    log: app.log,
    onState: (up) => metrics?.rateLimitStoreUp.set(label, up ? 1 : 0),
    onUncounted: () => metrics?.rateLimitUncounted.inc(),
  });
  app.addHook("onClose", (_instance, done) => {
    store.close();
    done();
  });
  await store.connected();
  return store;
}

/** The allowance of 401s per address (--auth-refusal-limit), where credentials are checked at all. */
function refusalLimitOf(settings: AppSettings, access: AccessOptions, counter: Counter, metrics: GatewayMetrics | undefined): RefusalLimit | undefined {
  if (settings.authRefusalLimit === "off" || !authenticates(access)) return undefined;
  return refusalLimit({ ...parseRate(settings.authRefusalLimit), counter, onLimited: () => metrics?.authRefusalsLimited.inc() }, isProtected);
}

/** The settings among `options`, each one not given at its default; throws the command's ConfigError. */
function appSettingsOf(options: AppOptions): AppSettings {
  const given: Record<string, unknown> = {};
  for (const key of APP_SETTINGS) if (options[key] !== undefined) given[key] = options[key];
  return configOf(given);
}

type GatewayApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** The Fastify instance with the gateway's logger, request ids, serializer and server limits. */
function createServer(options: AppOptions, limits: ServerLimits & Pick<AppSettings, "trustProxy">): GatewayApp {
  const common: FastifyServerOptions = {
    ...loggerOf(options.logger ?? false),
    bodyLimit: options.bodyLimit ?? BODY_LIMIT_BYTES,
    requestIdHeader: false,
    // request.ip, .host and .protocol then read X-Forwarded-* from these peers only.
    trustProxy: trustProxyOption(limits.trustProxy),
    // The access log (--access-log) is the gateway's own line per request; fastify's two lines
    // per request are kept for "debug" and below. 5xx answers are logged by the error handler.
    logController: new LogController({
      requestIdLogLabel: "requestId",
      disableRequestLogging: (request) => request.log.level !== "debug" && request.log.level !== "trace",
    }),
    genReqId: (request) => requestIdOf(request.headers["x-request-id"]),
    // fastify's own 503 while closing is bare JSON without Retry-After: refuseWhileClosing
    // answers it as a problem instead.
    return503OnClosing: false,
    serializerOpts: serializerOptions,
    // Long ids reach the route's schema (maxLength), which answers 400 naming the parameter,
    // instead of the router's bare 414.
    routerOptions: { maxParamLength: 2048 },
    // Requests that never reach a route are answered as problems too (src/http/unrouted.ts).
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler: clientErrorHandler(limits),
  };
  if (options.tls === undefined) return Fastify({ ...common, ...serverOptions(limits) }).withTypeProvider<TypeBoxTypeProvider>();
  // Typed as the plain HTTP server that the routes are written against: node:http2's
  // compatibility request and response, which an HTTP/2 request gets, carry every member the
  // routes use (headers, write, end, writableFinished, destroy, 'close' and 'drain'), and
  // test/e2e/https.test.ts runs them over both protocols.
  const secure = { ...common, ...secureServerOptions(limits, options.tls) } as unknown as FastifyServerOptions;
  const app = Fastify(secure).withTypeProvider<TypeBoxTypeProvider>();
  applyHttp1Limits(app.server, limits);
  applyHttp2Limits(app.server as unknown as Http2SecureServer, limits);
  resetEarlyAnswers(app.server as unknown as Http2SecureServer, { maxDrainMs: limits.bodyTimeoutMs });
  return app;
}

/**
 * The JSON media types (RFC 7396 and RFC 6902 bodies are JSON) are read by parseJsonBody, which refuses
 * invalid UTF-8, repeated keys and prototype-poisoning keys (__proto__, constructor.prototype)
 * with a 400 pointing at each, where fastify's parser would decode U+FFFD and keep the last key.
 */
function addBodyParsers(app: GatewayApp, measured: boolean): void {
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser([JSON_TYPE, MERGE_PATCH_TYPE, JSON_PATCH_TYPE], { parseAs: "buffer" }, (request, body, done) => {
    if (measured) noteRequestBody(request, (body as Buffer).length);
    try {
      done(null, parseJsonBody(body as Buffer));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}

/**
 * Routes that load shedding and rate limits never refuse: the probes, so that an orchestrator
 * sees a live process and asks the Manager's readiness, and the metrics that show the refusals.
 */
const EXEMPT: ReadonlySet<string> = new Set(["/healthz", "/readyz", METRICS_PATH]);

/** The span, the access log and the metrics of each request, and the request-id echo. */
function addObservingHooks(app: GatewayApp, options: AppOptions, settings: AppSettings): void {
  const { accessLog } = settings;
  const { tracing } = options;
  // First: every later hook and the handler run inside the request's span.
  if (tracing !== undefined) app.addHook("onRequest", tracing.hook);
  // Before the hooks that may refuse, so that refused requests have their line too.
  const observers: RequestObserver[] = [];
  if (accessLog !== "off") observers.push(accessLogObserver({ mode: accessLog, ...(tracing === undefined ? {} : { traceIdOf: tracing.traceIdOf }) }));
  if (options.metrics !== undefined) observers.push(httpMetrics(options.metrics));
  if (observers.length > 0) app.addHook("onRequest", observeRequests(observers));
  app.addHook("onRequest", (request, reply, done) => {
    void reply.header("x-request-id", request.id);
    if (headerListTooLarge(request.raw)) {
      done(problem("REQUEST_HEADER_FIELDS_TOO_LARGE", `the request's header list is larger than ${maxHeaderSize} bytes`));
      return;
    }
    // RFC 9112 §3.2: an HTTP/1.1 request without Host is a 400.
    if (request.raw.httpVersion === "1.1" && request.headers.host === undefined) {
      done(invalidArgument("the request has no Host header", { errors: [{ header: "host", message: "is required in HTTP/1.1" }] }));
      return;
    }
    done();
  });
}

/** What the guards and error handlers share with the rest of the app. */
interface GuardContext {
  /** Whether the Manager is up, logged once per change. */
  readonly managerState: ManagerState;
  /** The methods each registered path serves, for 405's Allow. */
  readonly methods: RouteMethods;
}

/**
 * Who is asking, then what is refused (docs/architecture.md, "Who is asking, then what is
 * refused"): the credentials are identified first, so that every refusal after them (a 421, a
 * cross-site 403, a 415) names its principal; the Host's 421 comes before any refusal of
 * credentials and is the same whatever they are; a protected route's request without valid
 * credentials is then a 401 (or without the scope a 403), before the Origin and Content-Type
 * checks (src/server/cross-site.ts). Nothing is read of the body before all of them.
 */
function addAccessAndCrossSite(app: GatewayApp, settings: AppSettings, access: AccessHooks, refusals: RefusalLimit | undefined): void {
  const guard = crossSiteGuard({
    allowedHosts: settings.allowedHosts ?? defaultAllowedHosts(settings.host),
    allowedOrigins: settings.allowedOrigins,
    corsOrigins: settings.corsOrigins,
  });
  // An address past its allowance of 401s is refused before its credentials cost anything.
  if (refusals !== undefined) app.addHook("onRequest", refusals.guard);
  app.addHook("onRequest", access.identify);
  app.addHook("onRequest", guard.misdirected);
  app.addHook("onRequest", access.enforce);
  app.addHook("onRequest", guard.crossSite);
}

/** Bodiless answers without content, Retry-After on 503s, refusals while closing, and every error answered as a problem. */
function addGuardsAndErrorHandlers(app: GatewayApp, settings: AppSettings, { managerState, methods }: GuardContext): void {
  // 204 and 304 answers carry no content, nor headers that describe any (src/http/bodiless.ts).
  app.addHook("onSend", bodilessAnswers);
  // Every 503, whatever made it, says when to try again (src/http/retry-after.ts).
  app.addHook("onSend", retryAfterOn503(settings.shedRetryAfterS));
  // Every answer of a deprecated route says so (src/http/deprecation.ts); a route that is not
  // deprecated does not pay for the hook.
  app.addHook("onRoute", withDeprecationHeaders);
  refuseWhileClosing(app);

  app.setErrorHandler((error, request, reply) => {
    const answer = toProblem(error, request);
    // What a failed change's audit line says the Manager did (nothing without an audit log).
    noteAudit(request, { outcome: failedOutcome(error) });
    // An outage is one warn line, not one stack per request (src/telemetry/manager-state.ts).
    if (answer.status >= 500 && !managerState.requestFailed(app.log, request.log, error, "request failed")) request.log.error({ err: error }, "request failed");
    return reply.code(answer.status).type(PROBLEM_CONTENT_TYPE).send(answer);
  });

  app.setNotFoundHandler((request, reply) => {
    const allowed = methods.allowedAt(request.url);
    if (allowed.length > 0) throw methodNotAllowed(request, reply, allowed);
    // The path is not quoted back: the problem's instance already names it.
    throw problem("ROUTE_NOT_FOUND", "no route matches the method and path");
  });
}

/** The OpenAPI document, then one plugin per resource. */
async function addRoutes(app: GatewayApp, options: AppOptions, settings: AppSettings, managerState: ManagerState): Promise<void> {
  const deadlines = { requestTimeoutMs: settings.requestTimeoutMs, maxRequestTimeoutMs: settings.maxRequestTimeoutMs };
  const coalesceReads = settings.coalesceReads === "on";
  // Before the routes: the OpenAPI document is generated from each route as it is added.
  await registerOpenApi(app, buildInfo().version);
  const { metrics } = options;
  await app.register(healthRoutes, { connection: options.connection, managerState, onReadiness: (ready) => metrics?.managerReady.set(ready ? 1 : 0) });
  const jobReads = coalesceReads ? new SharedCalls<CurrentJob | undefined>({ onShared: (reads) => metrics?.coalescedReads.inc({ read: "job" }, reads) }) : undefined;
  const jobOptions = { client: options.connection.manager, ...deadlines, jobReads };
  // Searches may be cancelled (limit, a client leaving): they run on the streams' connection.
  const searches = coalesceReads ? new SharedCalls<StartedSearch>({ onShared: (reads) => metrics?.coalescedReads.inc({ read: "search" }, reads) }) : undefined;
  await app.register(jobSearchRoutes, { client: options.connection.streams, ...deadlines, searches });
  await app.register(jobsRoutes, { ...jobOptions, patchAttempts: options.patchAttempts, maxWaitingWrites: options.maxWaitingWrites });
  await app.register(jobInstanceRoutes, jobOptions);
  await app.register(nodeRoutes, jobOptions);
  const pictures = coalesceReads ? new SharedCalls<Picture>({ onShared: (reads) => metrics?.coalescedReads.inc({ read: "picture" }, reads) }) : undefined;
  await app.register(pictureRoutes, { ...jobOptions, streams: options.connection.encodedStreams, pictures, pictureLimitBytes: options.pictureLimitBytes });
  const observe = metrics === undefined ? undefined : (route: string, format: string) => metrics.streamObserver(route, format);
  const sharing = coalesceReads ? new SharedStreams({ onShared: (clients) => metrics?.coalescedReads.inc({ read: "events" }, clients) }) : undefined;
  await app.register(eventRoutes, { client: options.connection.encodedStreams, ...deadlines, heartbeatMs: settings.sseHeartbeatMs, bufferLimitBytes: settings.sseBufferBytes, observe, sharing });
  await app.register(docsRoutes, { title: DOCUMENT_TITLE, yaml: documentYaml, view: uiView });
  if (metrics !== undefined) {
    watchChannels(metrics, { unary: options.connection.channel, streams: options.connection.streamChannel });
    if (options.metricsRoute ?? true) addMetricsRoute(app, metrics);
  }
}

/** fastify's logger options: the app's logger, with the gateway's serializers (src/telemetry/request-log.ts) over its own. */
function loggerOf(logger: NonNullable<AppOptions["logger"]>): Pick<FastifyServerOptions, "logger" | "loggerInstance"> {
  if (isLoggerInstance(logger)) return { loggerInstance: logger.child({}, { serializers: LOG_SERIALIZERS }) };
  if (logger === false) return { logger };
  const given = logger === true ? {} : logger;
  // Each line, as pino wrote it, made safe for line-splitting readers (src/http/line-safe.ts).
  return { logger: { ...given, serializers: { ...given.serializers, ...LOG_SERIALIZERS }, hooks: { ...given.hooks, streamWrite: lineSafe } } };
}

function isLoggerInstance(value: unknown): value is FastifyBaseLogger {
  return typeof value === "object" && value !== null && "child" in value && typeof value.child === "function";
}
