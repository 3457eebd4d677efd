// Liveness and readiness. /healthz answers while the process serves; /readyz asks the Manager
// (grpc.health.v1 Check over the shared channel), so a load balancer stops sending traffic
// while the Manager cannot be reached.
import { Type } from "@sinclair/typebox";
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import { HealthCheckResponse_ServingStatus } from "../gen/grpc/health/v1/health_pb.js";
import { unavailable } from "../http/problem.js";
import type { ManagerConnection } from "../grpc/manager-connection.js";
import { declaredProblems, jsonResponse } from "../http/responses.js";
import type { RouteHandler } from "../http/route-handler.js";

export interface HealthRoutesOptions {
  readonly connection: ManagerConnection;
  /** Deadline of the readiness check, in ms. Default: 2000. */
  readonly readinessTimeoutMs?: number;
}

const Status = Type.Object(
  { status: Type.String({ description: '"ok" for liveness, "ready" for readiness.', examples: ["ok"] }) },
  { additionalProperties: false, description: "A probe's answer." },
);

const LIVENESS_SCHEMA = {
  summary: "Liveness: the gateway process serves",
  description: "Answers 200 while the process serves HTTP; it does not ask the Manager (see /readyz).",
  tags: ["operations"],
  operationId: "getLiveness",
  response: { 200: jsonResponse(Status, "OK: the process serves.") },
};

const READINESS_SCHEMA = {
  summary: "Readiness: the Manager answers its health check",
  description: "grpc.health.v1 Check on the Manager's channel: 200 when it answers SERVING, else 503, so a load balancer stops sending traffic.",
  tags: ["operations"],
  operationId: "getReadiness",
  response: {
    200: jsonResponse(Status, "OK: the Manager answers SERVING."),
    ...declaredProblems({ UNAVAILABLE: "the Manager cannot be reached or is not serving" }),
  },
};

export const healthRoutes: FastifyPluginCallbackTypebox<HealthRoutesOptions> = (app, options, done) => {
  const health = new HealthHandlers(options);
  app.get("/healthz", { schema: LIVENESS_SCHEMA }, health.getLiveness);
  app.get("/readyz", { schema: READINESS_SCHEMA }, health.getReadiness);
  done();
};

/** The handlers, one per operation and named after it. */
class HealthHandlers {
  readonly #connection: ManagerConnection;
  readonly #timeoutMs: number;

  constructor(options: HealthRoutesOptions) {
    this.#connection = options.connection;
    this.#timeoutMs = options.readinessTimeoutMs ?? 2_000;
  }

  readonly getLiveness: RouteHandler<typeof LIVENESS_SCHEMA> = () => ({ status: "ok" });

  readonly getReadiness: RouteHandler<typeof READINESS_SCHEMA> = async () => {
    let serving = false;
    try {
      const reply = await this.#connection.health.check({ service: "" }, { timeoutMs: this.#timeoutMs });
      serving = reply.status === HealthCheckResponse_ServingStatus.SERVING;
    } catch {
      serving = false;
    }
    if (!serving) throw unavailable("the Manager is not ready");
    return { status: "ready" };
  };
}
