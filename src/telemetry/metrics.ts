// The gateway's Prometheus metrics (docs/operations/metrics.md tables each one): one registry per gateway,
// not prom-client's global one, so that several gateways in one process (the tests) count
// apart. Every label has a bounded set of values: route templates, never paths; gRPC method
// and code names; stream formats. What feeds them lives beside this file: the HTTP hook
// (http-metrics.ts), the gRPC interceptor and channel states (grpc-metrics.ts), and the stream
// observer below.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { StreamObserver } from "../sse/stream-body.js";

/** Seconds: from 1 ms (a cached answer) to 10 s (the default deadline) and beyond. */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Bytes: from an empty answer to the 1 MiB body limit and a long listing. */
const SIZE_BUCKETS = [0, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000];

export interface MetricsOptions {
  /** What is running, for gateway_build_info. Default: none, and no series. */
  readonly build?: { readonly version: string; readonly commit: string | undefined; readonly node: string };
}

export class GatewayMetrics {
  readonly registry = new Registry();
  readonly httpRequests = new Counter({
    name: "http_requests_total",
    help: "HTTP requests answered, by method, route template and status",
    labelNames: ["method", "route", "status"] as const,
    registers: [this.registry],
  });
  readonly httpDuration = new Histogram({
    name: "http_request_duration_seconds",
    help: "Time from a request's arrival to its answer's last byte, in seconds",
    labelNames: ["method", "route", "status"] as const,
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  readonly httpInFlight = new Gauge({
    name: "http_requests_in_flight",
    help: "HTTP requests being answered now (an open event stream counts until it ends)",
    labelNames: ["method", "route"] as const,
    registers: [this.registry],
  });
  readonly httpRequestBytes = new Histogram({
    name: "http_request_body_bytes",
    help: "Size of the JSON request bodies read, in bytes",
    labelNames: ["method", "route"] as const,
    buckets: SIZE_BUCKETS,
    registers: [this.registry],
  });
  readonly httpResponseBytes = new Histogram({
    name: "http_response_bytes",
    help: "Bytes of each answer written to the connection, status line and headers included",
    labelNames: ["method", "route"] as const,
    buckets: SIZE_BUCKETS,
    registers: [this.registry],
  });
  readonly authKeysUnavailable = new Counter({
    name: "gateway_auth_keys_unavailable_total",
    help: "Requests answered 503 because the token issuer's signing keys could not be fetched",
    registers: [this.registry],
  });
  readonly grpcCalls = new Counter({
    name: "grpc_client_calls_total",
    help: "gRPC calls to the Manager ended, by service, method and status code",
    labelNames: ["service", "method", "code"] as const,
    registers: [this.registry],
  });
  readonly grpcDuration = new Histogram({
    name: "grpc_client_call_duration_seconds",
    help: "Time from a gRPC call's start to its status, in seconds (a stream's whole life)",
    labelNames: ["service", "method", "code"] as const,
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  });
  readonly grpcInFlight = new Gauge({
    name: "grpc_client_calls_in_flight",
    help: "gRPC calls to the Manager started and not yet ended",
    labelNames: ["service", "method"] as const,
    registers: [this.registry],
  });
  readonly coalescedReads = new Counter({
    name: "gateway_coalesced_reads_total",
    help: "Reads answered by a Manager call made for an identical read (--coalesce-reads), by kind (job, search, picture, events: event-stream clients served by a stream opened with theirs)",
    labelNames: ["read"] as const,
    registers: [this.registry],
  });
  readonly streamsOpen = new Gauge({
    name: "gateway_streams_open",
    help: "Event streams (/v1/events, /v1/status) being sent now, by route and format (sse, ndjson)",
    labelNames: ["route", "format"] as const,
    registers: [this.registry],
  });
  readonly streamEvents = new Counter({
    name: "gateway_stream_events_total",
    help: "Events sent to event-stream clients (each client's copy counts)",
    labelNames: ["route", "format"] as const,
    registers: [this.registry],
  });
  readonly streamDropped = new Counter({
    name: "gateway_stream_clients_dropped_total",
    help: "Event-stream clients closed for falling more than --sse-buffer behind",
    labelNames: ["route", "format"] as const,
    registers: [this.registry],
  });
  readonly streamHeartbeats = new Counter({
    name: "gateway_stream_heartbeats_total",
    help: "Heartbeats sent to event-stream clients",
    labelNames: ["route", "format"] as const,
    registers: [this.registry],
  });
  readonly requestsShed = new Counter({
    name: "gateway_requests_shed_total",
    help: "Requests refused with 503 while the process was past a load-shedding threshold, by the threshold (event_loop_delay, heap_used, rss)",
    labelNames: ["reason"] as const,
    registers: [this.registry],
  });
  readonly requestsRateLimited = new Counter({
    name: "gateway_requests_rate_limited_total",
    help: "Requests refused with 429 because their client had made --rate-limit requests in its window",
    registers: [this.registry],
  });
  readonly rateLimitStoreUp = new Gauge({
    name: "gateway_rate_limit_store_up",
    help: "1 while the --rate-limit-store answers, 0 while it cannot be reached (its requests are then served uncounted); labelled with its URL, without credentials",
    labelNames: ["store"] as const,
    // With --workers: up when every worker reaches it.
    aggregator: "min",
    registers: [this.registry],
  });
  readonly rateLimitUncounted = new Counter({
    name: "gateway_rate_limit_uncounted_total",
    help: "Requests served without --rate-limit or --auth-refusal-limit counting them, because the --rate-limit-store could not answer in time",
    registers: [this.registry],
  });
  readonly authRefusalsLimited = new Counter({
    name: "gateway_auth_refusals_limited_total",
    help: "Requests refused with 429 before their credentials were checked, because their address had had --auth-refusal-limit 401s in its window",
    registers: [this.registry],
  });
  readonly managerReady = new Gauge({
    name: "gateway_manager_ready",
    help: "1 when the last readiness check (each /readyz, at start-up, after the channel reconnects) found the Manager SERVING; 0 after a failed one and while the channel has lost its connection",
    // With --workers: ready when every worker is.
    aggregator: "min",
    registers: [this.registry],
  });
  readonly buildInfo = new Gauge({
    name: "gateway_build_info",
    help: "1, labelled with the version, the commit it was built from (empty when unknown) and the Node version of the gateway",
    labelNames: ["version", "commit", "node"] as const,
    // With --workers: every worker runs the same build.
    aggregator: "max",
    registers: [this.registry],
  });
  /** Where the exposition comes from: this registry, or (a worker of --workers) every worker's. */
  #exposition: () => Promise<string> = () => this.registry.metrics();

  constructor(options: MetricsOptions = {}) {
    // Event-loop lag, heap, GC, CPU, file descriptors: prom-client's process metrics.
    collectDefaultMetrics({ register: this.registry });
    const { build } = options;
    if (build !== undefined) this.buildInfo.set({ version: build.version, commit: build.commit ?? "", node: build.node }, 1);
  }

  /** The observer of one stream of `route` in `format`. */
  streamObserver(route: string, format: string): StreamObserver {
    const labels = { route, format };
    return {
      opened: () => { this.streamsOpen.inc(labels); },
      event: () => { this.streamEvents.inc(labels); },
      heartbeat: () => { this.streamHeartbeats.inc(labels); },
      dropped: () => { this.streamDropped.inc(labels); },
      closed: () => { this.streamsOpen.dec(labels); },
    };
  }

  /** The Prometheus text exposition of every metric, and its content type. */
  async exposition(): Promise<{ readonly contentType: string; readonly text: string }> {
    return { contentType: this.registry.contentType, text: await this.#exposition() };
  }

  /** Takes the exposition from `source` from now on: the metrics of all workers, aggregated. */
  exposeFrom(source: () => Promise<string>): void {
    this.#exposition = source;
  }
}
