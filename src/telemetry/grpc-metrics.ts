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

interface MethodLabels {
  readonly labels: { readonly service: string; readonly method: string };
  /** By status code. */
  readonly ended: Map<number, { readonly service: string; readonly method: string; readonly code: string }>;
}

/** An interceptor that feeds the gRPC call metrics of `metrics`. */
export function grpcMetricsInterceptor(metrics: GatewayMetrics): Interceptor {
  // The label sets of each method and of each of its endings, made once: a call's own work is the counting.
  const methods = new Map<string, MethodLabels>();
  return (options, nextCall) => {
    const { path } = options.method_definition;
    let known = methods.get(path);
    if (known === undefined) {
      known = { labels: partsOf(path), ended: new Map() };
      methods.set(path, known);
    }
    const { labels, ended: endings } = known;
    const requester = new RequesterBuilder()
      .withStart((metadata, listener, next) => {
        const started = performance.now();
        metrics.grpcInFlight.inc(labels);
        const watching = new ListenerBuilder()
          .withOnReceiveStatus((status, nextStatus) => {
            let ended = endings.get(status.code);
            if (ended === undefined) {
              ended = { ...labels, code: codeName(status.code) };
              endings.set(status.code, ended);
            }
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
