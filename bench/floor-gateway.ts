// "the floor" in npm run bench: the least gateway that answers the bench's requests with this
// gateway's stack and code, so that its CPU per request is what the stack itself costs at the
// same rate, in the same run. fastify with one route per request kind and nothing else (no
// logger, hook, plugin, OpenAPI document, request id or guard); each route with this gateway's
// TypeBox schemas, its validator compiler and response serializer options; bodies read by its
// parseJsonBody; messages turned to and from JSON by its JSON mirror (src/json); each request
// one gRPC call (a PATCH: a read, then a test-and-set write) through the contract's grpc-js
// client with protobuf-es, on a channel without interceptors, each call with its deadline and
// no metadata or disconnect signal. What it leaves out is what the bench's feature rows measure.
// Run by plain node from the build (processes.ts transpiles it to dist/bench/, beside dist/src).
// Usage: node floor-gateway.js <manager address>; prints "listening on <url>".
import Fastify from "fastify";
import type { FastifyReply } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import fastJson from "fast-json-stringify";
import { connectManager } from "norsk-manager-contract/grpc/manager-connection.js";
import { GrpcError, Code } from "norsk-manager-contract/grpc/errors.js";
import { JobSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { Job } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { jobFromJson, jobToJson, mergePatchMessage } from "../src/json/index.js";
import { parseJsonBody } from "../src/json/body.js";
import { serializerOptions, validatorCompiler } from "../src/http/validation.js";
import { searchOfUrl } from "../src/operations/job-search.js";
import { JobIdParams, JobInputJson, JobJson, JobPatchJson } from "../schemas/job.js";
import { JobSearchQuery } from "../schemas/search.js";

const address = process.argv[2];
if (address === undefined) throw new Error("usage: floor-gateway <manager address>");
const TIMEOUT_MS = 10_000;
const PATCH_ATTEMPTS = 3;
const JSON_UTF8 = "application/json; charset=utf-8";

const { manager } = connectManager(address, { defaultTimeoutMs: TIMEOUT_MS });
const app = Fastify({ serializerOpts: serializerOptions }).withTypeProvider<TypeBoxTypeProvider>();
app.setValidatorCompiler(validatorCompiler);
app.removeContentTypeParser("application/json");
app.addContentTypeParser(["application/json", "application/merge-patch+json"], { parseAs: "buffer" }, (_request, body, done) => {
  try {
    done(null, parseJsonBody(body as Buffer));
  } catch (error) {
    done(error as Error, undefined);
  }
});

const byId = (jobId: string) => ({ jobFilter: [{ jobFilter: { case: "idFilter" as const, value: { comparison: { case: "eq" as const, value: jobId } } } }] });

async function readJob(jobId: string): Promise<Job | undefined> {
  let found: Job | undefined;
  for await (const current of manager.jobSearch(byId(jobId), { timeoutMs: TIMEOUT_MS })) found ??= current.job;
  return found;
}

const etag = (hash: bigint): string => `"${hash.toString()}"`;
const notFound = (reply: FastifyReply): FastifyReply => reply.code(404).type(JSON_UTF8).send('{"status":404}');
const stringifyJob: (json: unknown) => string = fastJson(JobJson, serializerOptions);
const jobResponse = { response: { 200: JobJson } };

app.get("/v1/jobs/:jobId", { schema: { params: JobIdParams, ...jobResponse } }, async (request, reply) => {
  const job = await readJob(request.params.jobId);
  if (job === undefined) return notFound(reply);
  return reply.header("etag", etag(job.currentHash)).send(jobToJson(job));
});

app.get("/v1/jobs", { schema: { querystring: JobSearchQuery } }, async (request, reply) => {
  const { request: search } = searchOfUrl(request.url);
  const texts: string[] = [];
  for await (const current of manager.jobSearch(search, { timeoutMs: TIMEOUT_MS })) if (current.job !== undefined) texts.push(stringifyJob(jobToJson(current.job)));
  return reply.type(JSON_UTF8).send(`{"jobs":[${texts.join(",")}]}`);
});

app.put("/v1/jobs/:jobId", { schema: { params: JobIdParams, body: JobInputJson, ...jobResponse } }, async (request, reply) => {
  const job = jobFromJson(request.body);
  const { hash } = await manager.updateJob(job, { timeoutMs: TIMEOUT_MS });
  job.currentHash = hash;
  return reply.header("etag", etag(hash)).send(jobToJson(job));
});

app.patch("/v1/jobs/:jobId", { schema: { params: JobIdParams, body: JobPatchJson, ...jobResponse } }, async (request, reply) => {
  for (let attempt = 1; ; attempt++) {
    const read = await readJob(request.params.jobId);
    if (read === undefined) return notFound(reply);
    const job = mergePatchMessage(JobSchema, read, request.body as Record<string, unknown>);
    job.currentHash = read.currentHash;
    try {
      const { hash } = await manager.updateJob(job, { timeoutMs: TIMEOUT_MS });
      job.currentHash = hash;
      return await reply.header("etag", etag(hash)).send(jobToJson(job));
    } catch (error) {
      if (!(error instanceof GrpcError && error.code === Code.ABORTED) || attempt === PATCH_ATTEMPTS) throw error;
    }
  }
});

const url = await app.listen({ host: "127.0.0.1", port: 0 });
console.log(`listening on ${url}`);
