// Liveness and readiness. /healthz answers while the process serves; /readyz asks the Manager
// (grpc.health.v1 Check over the shared channel), so a load balancer stops sending traffic
// while the Manager cannot be reached. A failing check is an expected answer, not a fault: it
// is answered without the error handler's log line, and the log says only when the Manager's
// state changes (src/telemetry/manager-state.ts), not on every probe.
import { Type } from "@sinclair/typebox";
import { named } from "../../schemas/common.js";
import type { FastifyPluginCallbackTypebox } from "@fastify/type-provider-typebox";
import { HealthCheckResponse_ServingStatus } from "norsk-manager-contract/gen/grpc/health/v1/health_pb.js";
import type { ManagerDown, ManagerState } from "../telemetry/manager-state.js";
import { GrpcError } from "norsk-manager-contract/grpc/errors.js";
import { codeName } from "../http/status.js";
import { PROBLEM_CONTENT_TYPE, toProblem, unavailable } from "../http/problem.js";
import type { ManagerConnection } from "norsk-manager-contract/grpc/manager-connection.js";
import { declaredProblems, jsonResponse } from "../http/responses.js";
import { OPEN_ACCESS } from "../auth/scopes.js";

export interface HealthRoutesOptions {
  readonly connection: ManagerConnection;
  /** Where each answer of the check is told, to be logged once per change. */
  readonly managerState: ManagerState;
  /** Deadline of the readiness check, in ms. Default: READINESS_TIMEOUT_MS. */
  readonly readinessTimeoutMs?: number;
  /** Told each answer of the check: whether the Manager is ready (the readiness gauge). */
  readonly onReadiness?: (ready: boolean) => void;
}

/** HealthRoutesOptions.readinessTimeoutMs's default: 2 s. */
export const READINESS_TIMEOUT_MS = 2_000;

/** Both probes answer with it: one component, ProbeStatus. */
const Status = named(
  Type.Object(
    { status: Type.String({ description: '"ok" for liveness, "ready" for readiness.', examples: ["ok"] }) },
    { additionalProperties: false, description: "A probe's answer." },
  ),
  "ProbeStatus",
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

/**
 * The probes: each handler is a named function of the plugin. Readiness asks the Manager and
 * tells its answer to the Manager's state, which logs each change.
 */
export const healthRoutes: FastifyPluginCallbackTypebox<HealthRoutesOptions> = (app, options, done) => {
  const { connection } = options;
  const timeoutMs = options.readinessTimeoutMs ?? READINESS_TIMEOUT_MS;
  const onReadiness = options.onReadiness ?? (() => undefined);
  const { managerState } = options;

  app.get("/healthz", { schema: LIVENESS_SCHEMA, config: OPEN_ACCESS }, function getLiveness() {
    return { status: "ok" };
  });

  app.get("/readyz", { schema: READINESS_SCHEMA, config: OPEN_ACCESS }, async function getReadiness(request, reply) {
    const failure = await notReady(connection, timeoutMs);
    if (failure === undefined) managerState.answered(app.log);
    else managerState.down(app.log, failure);
    onReadiness(failure === undefined);
    if (failure === undefined) return { status: "ready" };
    // Sent here rather than thrown: the error handler would log every failed probe at error.
    return reply.code(503).type(PROBLEM_CONTENT_TYPE).send(toProblem(unavailable("the Manager is not ready"), request));
  });

  done();
};

/** Why the Manager is not ready, or undefined when it answers SERVING within `timeoutMs`. */
async function notReady(connection: ManagerConnection, timeoutMs: number): Promise<ManagerDown | undefined> {
  try {
    const reply = await connection.health.check({ service: "" }, { timeoutMs });
    if (reply.status === HealthCheckResponse_ServingStatus.SERVING) return undefined;
    return { code: "OK", reason: `the Manager answers ${HealthCheckResponse_ServingStatus[reply.status]}` };
  } catch (error) {
    const { code, details } = GrpcError.from(error);
    return { code: codeName(code), reason: details };
  }
}
