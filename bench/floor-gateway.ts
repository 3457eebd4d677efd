// "the floor" in npm run bench: the least gateway that answers the bench's requests with this
// gateway's stack and code, so that its CPU per request is what the stack itself costs at the
// same rate, in the same run. fastify with one route per request kind and nothing else (no
// logger, hook, plugin, OpenAPI document, request id or guard); each route with this gateway's
// TypeBox schemas, its validator compiler and response serializer options; bodies read by its
// parseJsonBody; messages turned to and from JSON by its JSON mirror (src/json); each request
// one gRPC call (a PATCH: a read, then a test-and-set write) through the contract's grpc-js
// client with protobuf-es, on a channel without interceptors, each call with its deadline and
// no metadata or disconnect signal.
//
// Features (the second argument, comma-separated; FLOOR_FEATURES): each adds to the floor what
// one of this gateway's features adds to a request, with the gateway's own modules, so that
// "the floor + X" less the floor is what X costs a request at the same rate (npm run bench,
// BENCH_FEATURES): bench/floor-features.ts says what each one is.
// Run by plain node from the build (processes.ts transpiles it to dist/bench/, beside dist/src).
// Usage: node floor-gateway.js <manager address> [feature,...]; prints "listening on <url>".
import { maxHeaderSize } from "node:http";
import Fastify, { LogController } from "fastify";
import type { FastifyReply, FastifyRequest, FastifyServerOptions } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import fastJson from "fast-json-stringify";
import { connectManager } from "norsk-manager-contract/grpc/manager-connection.js";
import { GrpcError, Code } from "norsk-manager-contract/grpc/errors.js";
import { JobSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { CurrentJob, Job } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { CallOptions } from "norsk-manager-contract/grpc/types.js";
import { jobFromJson, jobToJson, mergePatchMessage } from "../src/json/index.js";
import { parseJsonBody } from "../src/json/body.js";
import { serializerOptions, validatorCompiler } from "../src/http/validation.js";
import { searchOfUrl } from "../src/operations/job-search.js";
import { unaryCallOptions } from "../src/operations/call-options.js";
import { findJobShared } from "../src/operations/job-access.js";
import { SharedCalls } from "../src/operations/shared-calls/calls.js";
import { JobWriteQueue } from "../src/operations/job-write-queue.js";
import { accessLog } from "../src/telemetry/access-log.js";
import { httpMetrics } from "../src/telemetry/http-metrics.js";
import { grpcMetricsInterceptor } from "../src/telemetry/grpc-metrics.js";
import { GatewayMetrics } from "../src/telemetry/metrics.js";
import { observeRequests } from "../src/telemetry/request-facts.js";
import type { RequestObserver } from "../src/telemetry/request-facts.js";
import { LOG_SERIALIZERS } from "../src/telemetry/request-log.js";
import { batchedLines } from "../src/telemetry/log-stream.js";
import { lineSafe } from "../src/http/line-safe.js";
import { requestIdOf } from "../src/http/request-id.js";
import { problem } from "../src/http/problem.js";
import { bodilessAnswers } from "../src/http/bodiless.js";
import { retryAfterOn503 } from "../src/http/retry-after.js";
import { refuseUnacceptable } from "../src/http/negotiation.js";
import { headerListTooLarge } from "../src/server/limits.js";
import { refuseWhileClosing } from "../src/server/refuse-while-closing.js";
import { crossSiteGuard, defaultAllowedHosts } from "../src/server/cross-site.js";
import { registerAccess } from "../src/auth/access.js";
import { needs } from "../src/auth/scopes.js";
import { registerLoadShedding } from "../src/server/load-shedding.js";
import { registerCompression } from "../src/server/compression.js";
import { JobIdParams, JobInputJson, JobJson, JobPatchJson } from "../schemas/job.js";
import { JobSearchQuery } from "../schemas/search.js";
import { FEATURES } from "./floor-features.js";
import type { Feature } from "./floor-features.js";


const address = process.argv[2];
if (address === undefined) throw new Error("usage: floor-gateway <manager address> [feature,...]");
const features = new Set((process.argv[3] ?? "").split(",").filter((f) => f !== ""));
for (const feature of features) if (!(feature in FEATURES)) throw new Error(`unknown feature ${feature}; known: ${Object.keys(FEATURES).join(", ")}`);
const has = (feature: Feature): boolean => features.has(feature);
const TIMEOUT_MS = 10_000;
const PATCH_ATTEMPTS = 3;
const JSON_UTF8 = "application/json; charset=utf-8";
const ANY_ROUTE: ReadonlySet<string> = new Set(["/healthz", "/readyz", "/metrics"]);

const metrics = has("metrics") ? new GatewayMetrics() : undefined;
const { manager } = connectManager(address, { defaultTimeoutMs: TIMEOUT_MS, ...(metrics === undefined ? {} : { interceptors: [grpcMetricsInterceptor(metrics)] }) });

const logged = has("log") || has("access-log");
const options: FastifyServerOptions = {
  serializerOpts: serializerOptions,
  ...(logged
    ? {
        logger: { level: "info", stream: batchedLines(), serializers: LOG_SERIALIZERS, hooks: { streamWrite: lineSafe } },
        logController: new LogController({ requestIdLogLabel: "requestId", disableRequestLogging: (request) => request.log.level !== "debug" && request.log.level !== "trace" }),
      }
    : {}),
  ...(has("plumbing") ? { requestIdHeader: false, genReqId: (request) => requestIdOf(request.headers["x-request-id"]) } : {}),
};
const app = Fastify(options).withTypeProvider<TypeBoxTypeProvider>();
if (has("plumbing")) refuseUnacceptable(app);
app.setValidatorCompiler(validatorCompiler);
app.removeContentTypeParser("application/json");
app.addContentTypeParser(["application/json", "application/merge-patch+json"], { parseAs: "buffer" }, (_request, body, done) => {
  try {
    done(null, parseJsonBody(body as Buffer));
  } catch (error) {
    done(error as Error, undefined);
  }
});

const observers: RequestObserver[] = [];
if (has("access-log")) observers.push(accessLog({ mode: "on" }));
// The access log names the principal: without the access hooks (which decorate it), none.
if (has("access-log") && !has("access")) app.decorateRequest("principal", null);
if (metrics !== undefined) observers.push(httpMetrics(metrics));
if (observers.length > 0) app.addHook("onRequest", observeRequests(observers));
if (has("plumbing")) {
  app.addHook("onRequest", (request, reply, done) => {
    void reply.header("x-request-id", request.id);
    if (headerListTooLarge(request.raw)) {
      done(problem("REQUEST_HEADER_FIELDS_TOO_LARGE", `larger than ${maxHeaderSize} bytes`));
      return;
    }
    done(request.raw.httpVersion === "1.1" && request.headers.host === undefined ? problem("INVALID_ARGUMENT", "no Host") : undefined);
  });
  refuseWhileClosing(app);
  app.addHook("onSend", bodilessAnswers);
  app.addHook("onSend", retryAfterOn503(1));
}
if (has("shedding")) await registerLoadShedding(app, { maxEventLoopDelayMs: 1000, maxHeapUsedBytes: 0, maxRssBytes: 0, sampleIntervalMs: 1000 }, ANY_ROUTE);
if (has("access") || has("guards")) {
  const access = has("access") ? registerAccess(app, { clientCertificates: false }) : undefined;
  const guard = has("guards") ? crossSiteGuard({ allowedHosts: defaultAllowedHosts("127.0.0.1"), allowedOrigins: [], corsOrigins: [] }) : undefined;
  if (access !== undefined) app.addHook("onRequest", access.identify);
  if (guard !== undefined) app.addHook("onRequest", guard.misdirected);
  if (access !== undefined) app.addHook("onRequest", access.enforce);
  if (guard !== undefined) app.addHook("onRequest", guard.crossSite);
}
if (has("compression")) await registerCompression(app);

const byId = (jobId: string) => ({ jobFilter: [{ jobFilter: { case: "idFilter" as const, value: { comparison: { case: "eq" as const, value: jobId } } } }] });

/** A call's options: the request's (call-options), or its deadline alone. */
const callOf = (request: FastifyRequest, reply: FastifyReply): CallOptions => (has("call-options") ? unaryCallOptions(request, reply, TIMEOUT_MS) : { timeoutMs: TIMEOUT_MS });
const jobReads = has("shared-reads") ? new SharedCalls<CurrentJob | undefined>({}) : undefined;
const writes = has("write-queue") ? new JobWriteQueue() : undefined;
/** Runs a write of `jobId` in its turn (write-queue), or at once. */
const inTurn = <T>(jobId: string, call: CallOptions, write: (calls: CallOptions) => Promise<T>, shared = false): Promise<T> =>
  writes === undefined ? write(call) : writes.run(jobId, call, write, { shared });

/** A job read; shared (shared-reads) only for a GET, as in the gateway: a PATCH reads its own. */
async function readJob(jobId: string, call: CallOptions, shared = false): Promise<Job | undefined> {
  if (shared && jobReads !== undefined) return (await findJobShared(jobReads, manager, jobId, call))?.job;
  let found: Job | undefined;
  for await (const current of manager.jobSearch(byId(jobId), call)) found ??= current.job;
  return found;
}

const etag = (hash: bigint): string => `"${hash.toString()}"`;
const notFound = (reply: FastifyReply): FastifyReply => reply.code(404).type(JSON_UTF8).send('{"status":404}');
const stringifyJob: (json: unknown) => string = fastJson(JobJson, serializerOptions);
const jobResponse = { response: { 200: JobJson } };
const reads = needs("jobs:read");
const changes = needs("jobs:write");

app.get("/v1/jobs/:jobId", { config: reads, schema: { params: JobIdParams, ...jobResponse } }, async (request, reply) => {
  const job = await readJob(request.params.jobId, callOf(request, reply), true);
  if (job === undefined) return notFound(reply);
  return reply.header("etag", etag(job.currentHash)).send(jobToJson(job));
});

app.get("/v1/jobs", { config: reads, schema: { querystring: JobSearchQuery } }, async (request, reply) => {
  const { request: search } = searchOfUrl(request.url);
  const texts: string[] = [];
  for await (const current of manager.jobSearch(search, callOf(request, reply))) if (current.job !== undefined) texts.push(stringifyJob(jobToJson(current.job)));
  return reply.type(JSON_UTF8).send(`{"jobs":[${texts.join(",")}]}`);
});

app.put("/v1/jobs/:jobId", { config: changes, schema: { params: JobIdParams, body: JobInputJson, ...jobResponse } }, async (request, reply) => {
  const job = jobFromJson(request.body);
  const { hash } = await inTurn(request.params.jobId, callOf(request, reply), (calls) => manager.updateJob(job, calls), true);
  job.currentHash = hash;
  return reply.header("etag", etag(hash)).send(jobToJson(job));
});

app.patch("/v1/jobs/:jobId", { config: changes, schema: { params: JobIdParams, body: JobPatchJson, ...jobResponse } }, async (request, reply) => {
  const { jobId } = request.params;
  const patched = await inTurn(jobId, callOf(request, reply), async (calls) => {
    for (let attempt = 1; ; attempt++) {
      const read = await readJob(jobId, calls);
      if (read === undefined) return undefined;
      const job = mergePatchMessage(JobSchema, read, request.body as Record<string, unknown>);
      job.currentHash = read.currentHash;
      try {
        job.currentHash = (await manager.updateJob(job, calls)).hash;
        return job;
      } catch (error) {
        if (!(error instanceof GrpcError && error.code === Code.ABORTED) || attempt === PATCH_ATTEMPTS) throw error;
      }
    }
  });
  if (patched === undefined) return notFound(reply);
  return reply.header("etag", etag(patched.currentHash)).send(jobToJson(patched));
});

const url = await app.listen({ host: "127.0.0.1", port: 0 });
console.log(`listening on ${url}`);
// Exits as the command does on SIGTERM, so that node writes what --cpu-prof gathered (bench:profile).
process.once("SIGTERM", () => {
  void app.close().then(() => process.exit(0));
});
