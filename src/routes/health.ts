// Liveness and readiness. /healthz answers while the process serves; /readyz asks the Manager
// (grpc.health.v1 Check over the shared channel), so a load balancer stops sending traffic
// while the Manager cannot be reached.
import { Type } from "@sinclair/typebox";
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import { HealthCheckResponse_ServingStatus } from "../gen/grpc/health/v1/health_pb.js";
import { ProblemError } from "../http/problem.js";
import type { ManagerConnection } from "../grpc/manager-connection.js";
import { jsonResponse, problemResponse } from "../http/responses.js";

export interface HealthRoutesOptions {
  readonly connection: ManagerConnection;
  /** Deadline of the readiness check, in ms. Default: 2000. */
  readonly readinessTimeoutMs?: number;
}

const Status = Type.Object(
  { status: Type.String({ description: '"ok" for liveness, "ready" for readiness.', examples: ["ok"] }) },
  { additionalProperties: false, description: "A probe's answer." },
);

export const healthRoutes: FastifyPluginCallbackTypebox<HealthRoutesOptions> = (app, options, done) => {
  const timeoutMs = options.readinessTimeoutMs ?? 2_000;

  app.get(
    "/healthz",
    {
      schema: {
        summary: "Liveness: the gateway process serves",
        description: "Answers 200 while the process serves HTTP; it does not ask the Manager (see /readyz).",
        tags: ["operations"],
        operationId: "getLiveness",
        response: { 200: jsonResponse(Status, "OK: the process serves.") },
      },
    },
    () => ({ status: "ok" }),
  );

  app.get(
    "/readyz",
    {
      schema: {
        summary: "Readiness: the Manager answers its health check",
        description: "grpc.health.v1 Check on the Manager's channel: 200 when it answers SERVING, else 503, so a load balancer stops sending traffic.",
        tags: ["operations"],
        operationId: "getReadiness",
        response: {
          200: jsonResponse(Status, "OK: the Manager answers SERVING."),
          503: problemResponse("Service Unavailable: the Manager cannot be reached or is not serving."),
        },
      },
    },
    async () => {
      let serving = false;
      try {
        const reply = await options.connection.health.check({ service: "" }, { timeoutMs });
        serving = reply.status === HealthCheckResponse_ServingStatus.SERVING;
      } catch {
        serving = false;
      }
      if (!serving) throw new ProblemError(503, "the Manager is not ready", undefined, "UNAVAILABLE");
      return { status: "ready" };
    },
  );
  done();
};
