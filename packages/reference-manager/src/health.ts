// grpc.health.v1.Health for the reference Manager. It is SERVING whenever it answers: there
// is no dependency that could make it unhealthy while the process runs. Per the health
// checking protocol, the service name is "" (the server) or a served service's full name;
// any other is unknown (Check: NOT_FOUND; Watch: SERVICE_UNKNOWN, and the stream stays open).
import { Health, HealthCheckResponse_ServingStatus } from "norsk-manager-contract/gen/grpc/health/v1/health_pb.js";
import { Manager } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { Code, GrpcError } from "norsk-manager-contract/grpc/index.js";
import type { ServiceImpl } from "norsk-manager-contract/grpc/index.js";

const KNOWN_SERVICES: ReadonlySet<string> = new Set(["", Manager.typeName, Health.typeName]);

/** `shutdown` aborts when the Manager is closing: Watch streams then report NOT_SERVING and end. */
export function healthService(shutdown: AbortSignal): ServiceImpl<typeof Health> {
  return {
    check(request) {
      if (!KNOWN_SERVICES.has(request.service)) throw new GrpcError(Code.NOT_FOUND, `unknown service ${request.service}`);
      return { status: shutdown.aborted ? HealthCheckResponse_ServingStatus.NOT_SERVING : HealthCheckResponse_ServingStatus.SERVING };
    },

    async *watch(request, { signal }) {
      if (!KNOWN_SERVICES.has(request.service)) {
        yield { status: HealthCheckResponse_ServingStatus.SERVICE_UNKNOWN };
      } else {
        yield { status: shutdown.aborted ? HealthCheckResponse_ServingStatus.NOT_SERVING : HealthCheckResponse_ServingStatus.SERVING };
      }
      await untilAborted(AbortSignal.any([signal, shutdown]));
      if (shutdown.aborted && !signal.aborted) yield { status: HealthCheckResponse_ServingStatus.NOT_SERVING };
    },
  };
}

function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    signal.addEventListener("abort", () => {
      resolve();
    }, { once: true });
  });
}
