// The schemas as fastify uses them: Ajv (no coercion) validates the body, fast-json-stringify
// serializes the response from the response schema. fast-json-stringify drops what its schema
// does not describe, so a response that comes back whole proves the schema describes it all.
// Note: fastify rejects a body with a "__proto__" key unless onProtoPoisoning is "ignore"; the
// mirror is safe with it (own keys only), and tags may legitimately be named so.
import { create } from "@bufbuild/protobuf";
import { Ajv } from "ajv";
import Fastify from "fastify";
import type { FastifyInstance } from "fastify";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JobSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { Job_JobState } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { MirrorError } from "../../src/json/errors.js";
import { jobFromJson, jobToJson } from "../../src/json/job.js";
import { ProblemJson } from "../../schemas/common.js";
import { gatewayFormats } from "../../schemas/formats.js";
import { JobJson, JobInputJson, JobListJson } from "../../schemas/job.js";
import { job } from "../json/arbitraries.js";

const ajv = new Ajv({ strict: true, coerceTypes: false, allErrors: true, formats: gatewayFormats });

let app: FastifyInstance;
let stored: unknown[] = [];

beforeAll(async () => {
  // fastify refuses a body with a "__proto__" key by default; the mirror reads own keys only.
  app = Fastify({ onProtoPoisoning: "ignore" });
  app.setValidatorCompiler(({ schema }) => ajv.compile(schema));
  app.setErrorHandler((error: unknown, _request, reply) => {
    const errors = error instanceof MirrorError ? error.errors : [];
    const detail = error instanceof Error ? error.message : "invalid";
    return reply.status(400).send({ type: "about:blank", title: "Bad Request", status: 400, detail, instance: "/", requestId: "r", errors });
  });
  app.post("/jobs", { schema: { body: JobInputJson, response: { 200: JobJson, 400: ProblemJson } } }, (request) => jobToJson(jobFromJson(request.body)));
  app.post("/raw", { schema: { response: { 200: JobJson } } }, (request) => request.body);
  app.get("/jobs", { schema: { response: { 200: JobListJson } } }, () => ({ jobs: stored }));
  await app.ready();
});

afterAll(async () => {
  await app.close();
});

describe("fastify: Ajv validates with the schemas, fast-json-stringify serializes with them", () => {
  it("answers a job with a __proto__ tag, a line-break tag key, an unknown enum number and int64 extremes, whole", async () => {
    const message = create(JobSchema, {
      jobId: { jobId: "j" },
      startDateTime: { seconds: 1n, nanos: 1 },
      currentHash: -(2n ** 63n),
      // eslint-disable-next-line @typescript-eslint/no-unsafe-enum-assignment -- a number Job_JobState does not know
      state: 7 as Job_JobState,
      tags: JSON.parse('{"__proto__":"x","a\\nb":"y"}') as Record<string, string>,
      autoPlacement: { requirements: { requiredCapacity: NaN, requiredGpuCapacity: { value: Infinity } } },
      launchConfigJson: "",
    });
    const json = jobToJson(message);
    const reply = await app.inject({ method: "POST", url: "/jobs", payload: JSON.stringify(json), headers: { "content-type": "application/json" } });
    expect(reply.statusCode).toBe(200);
    // Same content; key order may differ (fast-json-stringify writes optional anyOf properties last).
    expect(reply.json()).toEqual(JSON.parse(JSON.stringify(json)));
    expect(Object.keys(reply.json<{ tags: object }>().tags)).toEqual(["__proto__", "a\nb"]);
  });

  it("serializes any job the mirror emits to the same JSON text (fast-check)", async () => {
    await fc.assert(
      fc.asyncProperty(job, async (message) => {
        const json = jobToJson(message);
        const reply = await app.inject({ method: "POST", url: "/raw", payload: json });
        expect(reply.statusCode).toBe(200);
        expect(reply.json()).toEqual(JSON.parse(JSON.stringify(json)));
      }),
      { numRuns: 100 },
    );
  });

  it("serializes a JobList", async () => {
    stored = fc.sample(job, { numRuns: 5, seed: 7 }).map(jobToJson);
    const reply = await app.inject({ method: "GET", url: "/jobs" });
    expect(reply.json()).toEqual(JSON.parse(JSON.stringify({ jobs: stored })));
  });

  it("rejects with the schema what the mirror would reject too (a number for an int64)", async () => {
    const reply = await app.inject({ method: "POST", url: "/jobs", payload: { jobId: "j", startDateTime: "2025-12-02T10:00:00Z", currentHash: 1 } });
    expect(reply.statusCode).toBe(400);
  });

  it("leaves to the mirror what JSON Schema cannot say: two oneof members", async () => {
    const payload = {
      jobId: "j",
      startDateTime: "2025-12-02T10:00:00Z",
      norskServiceParameters: { portMappings: [{ ephemeral: {}, specific: { port: 1 } }] },
    };
    const reply = await app.inject({ method: "POST", url: "/jobs", payload });
    expect(reply.statusCode).toBe(400);
    expect(reply.json<{ errors: unknown[] }>().errors).toEqual([
      { pointer: "/norskServiceParameters/portMappings/0/specific", message: expect.stringContaining("/portMappings/0/ephemeral is set too") as unknown },
    ]);
  });
});
