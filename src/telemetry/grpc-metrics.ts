// The gRPC metrics of the calls to the Manager: an interceptor on each channel counts every
// call in flight from its start, and counts and times it by its status code when it ends;
// the channels' connectivity states are read at each scrape.
import { InterceptingCall, ListenerBuilder, RequesterBuilder, connectivityState } from "@grpc/grpc-js";
import type { Client as GrpcChannel, Interceptor } from "@grpc/grpc-js";
import { Gauge } from "prom-client";
import { codeName } from "../http/status.js";
import type { GatewayMetrics } from "./metrics.js";

/** "/norsk.api.manager.Manager/CreateJob" as its service and method. */
function partsOf(path: string): { service: string; method: string } {
  const [, service = "", method = ""] = /^\/([^/]*)\/(.*)$/.exec(path) ?? [];
  return { service, method };
}

/** An interceptor that feeds the gRPC call metrics of `metrics`. */
export function grpcMetricsInterceptor(metrics: GatewayMetrics): Interceptor {
  return (options, nextCall) => {
    const labels = partsOf(options.method_definition.path);
    const requester = new RequesterBuilder()
      .withStart((metadata, listener, next) => {
        const started = performance.now();
        metrics.grpcInFlight.inc(labels);
        const watching = new ListenerBuilder()
          .withOnReceiveStatus((status, nextStatus) => {
            const ended = { ...labels, code: codeName(status.code) };
            metrics.grpcInFlight.dec(labels);
            metrics.grpcCalls.inc(ended);
            metrics.grpcDuration.observe(ended, (performance.now() - started) / 1000);
            nextStatus(status);
          })
          .build();
        next(metadata, watching);
      })
      .build();
    return new InterceptingCall(nextCall(options), requester);
  };
}

const STATES = Object.entries(connectivityState).filter(([, value]) => typeof value === "number") as [string, connectivityState][];

/** grpc_channel_state: 1 for the state each named channel is in, 0 for the others. */
export function watchChannels(metrics: GatewayMetrics, channels: Readonly<Record<string, GrpcChannel>>): void {
  new Gauge({
    name: "grpc_channel_state",
    help: "Connectivity state of each channel to the Manager (unary, streams): 1 for the current state, 0 for the others",
    labelNames: ["channel", "state"] as const,
    registers: [metrics.registry],
    collect() {
      for (const [channel, client] of Object.entries(channels)) {
        const current = client.getChannel().getConnectivityState(false);
        for (const [state, value] of STATES) this.set({ channel, state }, value === current ? 1 : 0);
      }
    },
  });
}
