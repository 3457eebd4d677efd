// Builds the gateway's Fastify app without listening: validation, errors, request ids, and
// the routes. main.ts (and the tests) decide where it listens and which Manager it talks to.
import Fastify, { LogController } from "fastify";
import type { FastifyBaseLogger, FastifyInstance, FastifyServerOptions } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { ManagerConnection } from "./grpc/manager-connection.js";
import { PROBLEM_CONTENT_TYPE, ProblemError, toProblem } from "./problem.js";
import { requestIdOf } from "./request-id.js";
import { serializerOptions, validatorCompiler } from "./validation.js";
import { registerOpenApi } from "./openapi/register.js";
import { docsRoutes } from "./routes/docs.js";
import { healthRoutes } from "./routes/health.js";
import { jobsRoutes } from "./routes/jobs.js";
import { jobInstanceRoutes } from "./routes/job-instances.js";
import { jobSearchRoutes } from "./routes/job-search.js";
import { nodeRoutes } from "./routes/nodes.js";
import { eventRoutes } from "./routes/events.js";
import type { StreamSettings } from "./sse/stream-body.js";
import { crossSiteGuard } from "./server/cross-site.js";
import type { CrossSiteOptions } from "./server/cross-site.js";
import { SERVER_LIMITS_DEFAULTS, limitConnections, serverOptions } from "./server/limits.js";
import type { ServerLimits } from "./server/limits.js";

export interface AppOptions {
  /** The Manager, reached over one long-lived channel. Required. */
  readonly connection: ManagerConnection;
  /** Deadline of every gRPC call, in ms; a Grpc-Timeout header may shorten it. Default: 10 000. */
  readonly requestTimeoutMs?: number;
  /** Largest accepted request body, in bytes. Default: 1 MiB. */
  readonly bodyLimit?: number;
  /** Fastify's logger option. Default: false (silent), as in tests. */
  readonly logger?: FastifyServerOptions["logger"] | FastifyBaseLogger;
  /** Heartbeat interval and per-client buffer of /v1/events and /v1/status. Default: 15 s, 1 MiB. */
  readonly streams?: Partial<StreamSettings>;
  // The HTTP server's exposure (src/server/): timeouts, connection cap, cross-site protection.
  /** Header, body and idle timeouts and the connection cap. Default: SERVER_LIMITS_DEFAULTS. */
  readonly limits?: Partial<ServerLimits>;
  /** The Host and Origin headers accepted. Default: loopback names as Host; no other origin. */
  readonly crossSite?: CrossSiteOptions;
}


const DEFAULTS = { requestTimeoutMs: 10_000, bodyLimit: 1024 * 1024 } as const;

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULTS.requestTimeoutMs;
  const loggerOption = options.logger ?? false;
  const limits: ServerLimits = { ...SERVER_LIMITS_DEFAULTS, ...options.limits };
  const app = Fastify({
    ...(isLoggerInstance(loggerOption) ? { loggerInstance: loggerOption } : { logger: loggerOption }),
    bodyLimit: options.bodyLimit ?? DEFAULTS.bodyLimit,
    requestIdHeader: false,
    // One access line per request is noise at "info" and costs throughput; at "debug" and
    // below fastify logs each request as usual. 5xx answers are logged by the error handler.
    logController: new LogController({
      requestIdLogLabel: "requestId",
      disableRequestLogging: (request) => request.log.level !== "debug" && request.log.level !== "trace",
    }),
    genReqId: (request) => requestIdOf(request.headers["x-request-id"]),
    // Reject duplicate and prototype-polluting keys outright rather than silently dropping them.
    onProtoPoisoning: "error",
    onConstructorPoisoning: "error",
    return503OnClosing: true,
    serializerOpts: serializerOptions,
    // Long ids reach the route's schema (maxLength), which answers 400 naming the parameter,
    // instead of the router's bare 414.
    routerOptions: { maxParamLength: 2048 },
    ...serverOptions(limits),
  }).withTypeProvider<TypeBoxTypeProvider>();
  limitConnections(app.server, limits.maxConnections, app.log);

  app.setValidatorCompiler(validatorCompiler);

  // RFC 7396 bodies are JSON; parse them with the same (poisoning-safe) JSON parser.
  app.addContentTypeParser(
    "application/merge-patch+json",
    { parseAs: "string" },
    app.getDefaultJsonParser("error", "error"),
  );

  app.addHook("onRequest", (request, reply, done) => {
    void reply.header("x-request-id", request.id);
    done();
  });
  // Before anything is read or written (src/server/cross-site.ts).
  app.addHook("onRequest", crossSiteGuard(options.crossSite ?? {}));

  app.setErrorHandler((error, request, reply) => {
    const problem = toProblem(error, request);
    if (problem.status >= 500) request.log.error({ err: error }, "request failed");
    return reply.code(problem.status).type(PROBLEM_CONTENT_TYPE).send(problem);
  });

  app.setNotFoundHandler((request) => {
    throw new ProblemError(404, `no route for ${request.method} ${request.url.split("?")[0] ?? ""}`);
  });

  // Before the routes: the OpenAPI document is generated from each route as it is added.
  await registerOpenApi(app);
  await app.register(healthRoutes, { connection: options.connection });
  const jobOptions = { client: options.connection.manager, requestTimeoutMs };
  await app.register(jobSearchRoutes, jobOptions);
  await app.register(jobsRoutes, jobOptions);
  await app.register(jobInstanceRoutes, jobOptions);
  await app.register(nodeRoutes, jobOptions);
  await app.register(eventRoutes, { channel: options.connection.channel, requestTimeoutMs, ...options.streams });
  await app.register(docsRoutes);
  return app;
}

function isLoggerInstance(value: unknown): value is FastifyBaseLogger {
  return typeof value === "object" && value !== null && "child" in value && typeof value.child === "function";
}
