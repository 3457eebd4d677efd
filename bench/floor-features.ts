// The features "the floor" (bench/floor-gateway.ts) can be given, each as this gateway adds it
// by default (src/app.ts, src/gateway.ts), with the name npm run bench shows for it.
/** What each feature adds, as this gateway adds it by default (src/app.ts, src/gateway.ts). */
export const FEATURES = {
  /** fastify's logger as the command's (pino at info, its serializers, line-safe lines, batched writes): a child logger per request. */
  log: "the logger",
  /** The logger, and the access log's observer (one line per request). */
  "access-log": "the access log",
  /** GatewayMetrics: the HTTP metrics' observer and the gRPC metrics interceptor on the channel. */
  metrics: "metrics",
  /** Each call's options made of the request (unaryCallOptions): forwarded metadata, Grpc-Timeout, the disconnect signal. */
  "call-options": "call options",
  /** Job reads shared between identical reads in flight (SharedCalls, findJobShared). */
  "shared-reads": "shared reads",
  /** The Host (421) and cross-site (403) checks (crossSiteGuard). */
  guards: "guards",
  /** The access hooks without authentication (identify, enforce). */
  access: "access",
  /** The request id (genReqId, X-Request-Id echoed), the header-list and Host checks, the closing check, the onSend hooks (bodiless answers, Retry-After) and the Accept check. */
  plumbing: "request plumbing",
  /** Load shedding at its defaults (under-pressure's onRequest hook and sampling). */
  shedding: "load shedding",
  /** Compression's hooks (@fastify/compress, Vary). */
  compression: "compression",
  /** The writes of a job queued (JobWriteQueue). */
  "write-queue": "write queue",
} as const;
export type Feature = keyof typeof FEATURES;
