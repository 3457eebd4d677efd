// Builds the gateway's Fastify app without listening: validation, errors, request ids, and
// the routes. main.ts (and the tests) decide where it listens and which Manager it talks to.
import { randomUUID } from "node:crypto";
import Fastify, { LogController } from "fastify";
import type { FastifyBaseLogger, FastifyInstance, FastifyServerOptions } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { ManagerConnection } from "./grpc/manager-connection.js";
import { PROBLEM_CONTENT_TYPE, ProblemError, toProblem } from "./problem.js";
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
  /** Attempts of a PATCH whose test-and-set loses to another writer. Default: 3. */
  readonly patchAttempts?: number;
  /** Writes of one job that may wait behind the running one; one more is a 429. Default: 100. */
  readonly maxWaitingWrites?: number;
}


const DEFAULTS = { requestTimeoutMs: 10_000, bodyLimit: 1024 * 1024 } as const;

/** An incoming X-Request-Id is kept if it is a plain token; anything else is replaced. */
const REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULTS.requestTimeoutMs;
  const loggerOption = options.logger ?? false;
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
    genReqId: (request) => {
      const given = request.headers["x-request-id"];
      return typeof given === "string" && REQUEST_ID.test(given) ? given : randomUUID();
    },
    // Reject duplicate and prototype-polluting keys outright rather than silently dropping them.
    onProtoPoisoning: "error",
    onConstructorPoisoning: "error",
    return503OnClosing: true,
    serializerOpts: serializerOptions,
    // Long ids reach the route's schema (maxLength), which answers 400 naming the parameter,
    // instead of the router's bare 414.
    routerOptions: { maxParamLength: 2048 },
  }).withTypeProvider<TypeBoxTypeProvider>();

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
  // Searches may be cancelled (limit, a client leaving): they run on the streams' connection.
  await app.register(jobSearchRoutes, { client: options.connection.streams, requestTimeoutMs });
  await app.register(jobsRoutes, { ...jobOptions, patchAttempts: options.patchAttempts, maxWaitingWrites: options.maxWaitingWrites });
  await app.register(jobInstanceRoutes, jobOptions);
  await app.register(nodeRoutes, jobOptions);
  await app.register(eventRoutes, { channel: options.connection.streamChannel, requestTimeoutMs, ...options.streams });
  await app.register(docsRoutes);
  return app;
}

function isLoggerInstance(value: unknown): value is FastifyBaseLogger {
  return typeof value === "object" && value !== null && "child" in value && typeof value.child === "function";
}
