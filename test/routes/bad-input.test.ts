// Malformed requests: each gets its documented 4xx as problem+json naming what is wrong, and
// the Manager's data is the same afterwards (checked through the Manager directly).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toBinary } from "@bufbuild/protobuf";
import { JobSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { startTestGateway } from "../helpers/gateway.js";
import type { TestGateway } from "../helpers/gateway.js";

let gw: TestGateway;
let etag = "";

beforeAll(async () => {
  gw = await startTestGateway();
  const res = await gw.app.inject({
    method: "POST",
    url: "/v1/jobs",
    headers: { "content-type": "application/json" },
    payload: { jobId: "keep", startDateTime: "2026-01-01T00:00:00Z", description: "original", tags: { a: "b" } },
  });
  etag = String(res.headers.etag);
});
afterAll(async () => {
  await gw.close();
});

interface Case {
  readonly name: string;
  readonly method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  readonly url: string;
  readonly body?: string | Buffer;
  readonly headers?: Record<string, string>;
  readonly status: number;
  /** A pointer, parameter or header the problem must name, or text its detail must contain. */
  readonly names?: string;
}

const JSON_CT = { "content-type": "application/json" };
const PATCH_CT = { "content-type": "application/merge-patch+json" };
const job = (extra: Record<string, unknown>, id = "new") => JSON.stringify({ jobId: id, startDateTime: "2026-01-01T00:00:00Z", ...extra });
const put = (extra: Record<string, unknown>) => job(extra, "keep");

const CASES: readonly Case[] = [
  // Types: no coercion.
  { name: "int64 sent as a number", method: "POST", url: "/v1/jobs", body: job({ currentHash: 1 }), headers: JSON_CT, status: 400, names: "/currentHash" },
  { name: "int64 above its range", method: "POST", url: "/v1/jobs", body: job({ currentHash: "9223372036854775808" }), headers: JSON_CT, status: 400, names: "/currentHash" },
  { name: "int64 below its range", method: "POST", url: "/v1/jobs", body: job({ currentHash: "-9223372036854775809" }), headers: JSON_CT, status: 400, names: "/currentHash" },
  { name: "int64 with a leading zero", method: "POST", url: "/v1/jobs", body: job({ currentHash: "01" }), headers: JSON_CT, status: 400, names: "/currentHash" },
  { name: "int64 in exponent form", method: "POST", url: "/v1/jobs", body: job({ currentHash: "1e3" }), headers: JSON_CT, status: 400, names: "/currentHash" },
  { name: "uint64 negative", method: "POST", url: "/v1/jobs", body: job({ norskServiceParameters: { sharedMemorySize: "-1" } }), headers: JSON_CT, status: 400, names: "/norskServiceParameters/sharedMemorySize" },
  { name: "string sent as a number", method: "POST", url: "/v1/jobs", body: job({ description: 5 }), headers: JSON_CT, status: 400, names: "/description" },
  { name: "number sent as a string", method: "POST", url: "/v1/jobs", body: job({ norskCpuList: ["1"] }), headers: JSON_CT, status: 400, names: "/norskCpuList/0" },
  { name: "uint32 negative", method: "POST", url: "/v1/jobs", body: job({ norskCpuList: [-1] }), headers: JSON_CT, status: 400, names: "/norskCpuList/0" },
  { name: "uint32 too large", method: "POST", url: "/v1/jobs", body: job({ norskCpuList: [4294967296] }), headers: JSON_CT, status: 400, names: "/norskCpuList/0" },
  { name: "uint32 fractional", method: "POST", url: "/v1/jobs", body: job({ norskCpuList: [1.5] }), headers: JSON_CT, status: 400, names: "/norskCpuList/0" },
  { name: "tags not a map of strings", method: "POST", url: "/v1/jobs", body: job({ tags: { a: 1 } }), headers: JSON_CT, status: 400, names: "/tags/a" },
  { name: "tags an array", method: "POST", url: "/v1/jobs", body: job({ tags: ["a"] }), headers: JSON_CT, status: 400, names: "/tags" },
  { name: "services not an array", method: "POST", url: "/v1/jobs", body: job({ services: {} }), headers: JSON_CT, status: 400, names: "/services" },
  { name: "bool sent as a string", method: "POST", url: "/v1/jobs", body: job({ norskServiceParameters: { volumeMounts: [{ readOnly: "true" }] } }), headers: JSON_CT, status: 400, names: "/norskServiceParameters/volumeMounts/0/readOnly" },
  // Enums.
  { name: "unknown enum name", method: "POST", url: "/v1/jobs", body: job({ state: "running" }), headers: JSON_CT, status: 400, names: "/state" },
  { name: "enum name in upper case", method: "POST", url: "/v1/jobs", body: job({ state: "ACTIVE" }), headers: JSON_CT, status: 400, names: "/state" },
  { name: "known enum value sent as a number", method: "POST", url: "/v1/jobs", body: job({ state: 1 }), headers: JSON_CT, status: 400, names: "/state" },
  // Unknown properties.
  { name: "unknown top-level property", method: "POST", url: "/v1/jobs", body: job({ colour: "red" }), headers: JSON_CT, status: 400, names: "/colour" },
  { name: "unknown nested property", method: "POST", url: "/v1/jobs", body: job({ services: [{ name: "s", image: "x" }] }), headers: JSON_CT, status: 400, names: "/services/0/image" },
  { name: "snake_case name instead of the JSON name", method: "POST", url: "/v1/jobs", body: job({ start_date_time: "2026-01-01T00:00:00Z" }), headers: JSON_CT, status: 400, names: "/start_date_time" },
  // Required.
  { name: "missing jobId", method: "POST", url: "/v1/jobs", body: JSON.stringify({ startDateTime: "2026-01-01T00:00:00Z" }), headers: JSON_CT, status: 400, names: "/jobId" },
  { name: "missing startDateTime", method: "POST", url: "/v1/jobs", body: JSON.stringify({ jobId: "x" }), headers: JSON_CT, status: 400, names: "/startDateTime" },
  { name: "empty jobId", method: "POST", url: "/v1/jobs", body: job({}, ""), headers: JSON_CT, status: 400, names: "/jobId" },
  // Timestamps.
  { name: "impossible date Feb 30", method: "POST", url: "/v1/jobs", body: job({ startDateTime: "2026-02-30T00:00:00Z" }), headers: JSON_CT, status: 400, names: "/startDateTime" },
  { name: "Feb 29 in a common year", method: "POST", url: "/v1/jobs", body: job({ startDateTime: "2023-02-29T00:00:00Z" }), headers: JSON_CT, status: 400, names: "/startDateTime" },
  { name: "hour 24", method: "POST", url: "/v1/jobs", body: job({ startDateTime: "2026-01-01T24:00:00Z" }), headers: JSON_CT, status: 400, names: "/startDateTime" },
  { name: "date without time", method: "POST", url: "/v1/jobs", body: job({ startDateTime: "2026-01-01" }), headers: JSON_CT, status: 400, names: "/startDateTime" },
  { name: "time without zone", method: "POST", url: "/v1/jobs", body: job({ startDateTime: "2026-01-01T00:00:00" }), headers: JSON_CT, status: 400, names: "/startDateTime" },
  { name: "year 10000", method: "POST", url: "/v1/jobs", body: job({ startDateTime: "10000-01-01T00:00:00Z" }), headers: JSON_CT, status: 400, names: "/startDateTime" },
  { name: "before year 1 after its offset", method: "POST", url: "/v1/jobs", body: job({ startDateTime: "0001-01-01T00:00:00+01:00" }), headers: JSON_CT, status: 400, names: "/startDateTime" },
  { name: "ten fractional digits", method: "POST", url: "/v1/jobs", body: job({ startDateTime: "2026-01-01T00:00:00.0000000001Z" }), headers: JSON_CT, status: 400, names: "/startDateTime" },
  { name: "timestamp as epoch number", method: "POST", url: "/v1/jobs", body: job({ startDateTime: 1767225600 }), headers: JSON_CT, status: 400, names: "/startDateTime" },
  // oneof.
  { name: "two oneof members", method: "POST", url: "/v1/jobs", body: job({ services: [{ name: "s", parameters: { portMappings: [{ containerPort: 1, ephemeral: {}, specific: { port: 2 } }] } }] }), headers: JSON_CT, status: 400, names: "/services/0/parameters/portMappings/0/specific" },
  // Body transport.
  { name: "invalid JSON", method: "POST", url: "/v1/jobs", body: '{"jobId": "x",', headers: JSON_CT, status: 400 },
  { name: "a JSON array body", method: "POST", url: "/v1/jobs", body: "[]", headers: JSON_CT, status: 400 },
  { name: "__proto__ key", method: "POST", url: "/v1/jobs", body: '{"jobId":"x","startDateTime":"2026-01-01T00:00:00Z","__proto__":{"admin":true}}', headers: JSON_CT, status: 400 },
  { name: "constructor.prototype key", method: "POST", url: "/v1/jobs", body: '{"jobId":"x","startDateTime":"2026-01-01T00:00:00Z","constructor":{"prototype":{"admin":true}}}', headers: JSON_CT, status: 400 },
  { name: "wrong content type", method: "POST", url: "/v1/jobs", body: job({}), headers: { "content-type": "text/plain" }, status: 415 },
  { name: "merge patch content type on PUT", method: "PUT", url: "/v1/jobs/keep", body: put({}), headers: PATCH_CT, status: 415, names: "content-type" },
  { name: "oversized body", method: "POST", url: "/v1/jobs", body: job({ description: "x".repeat(2 * 1024 * 1024) }), headers: JSON_CT, status: 413 },
  { name: "empty body", method: "POST", url: "/v1/jobs", body: "", headers: JSON_CT, status: 400 },
  { name: "a repeated key", method: "POST", url: "/v1/jobs", body: '{"jobId":"a","jobId":"b","startDateTime":"2026-01-01T00:00:00Z"}', headers: JSON_CT, status: 400, names: "/jobId" },
  { name: "a repeated nested key on PUT", method: "PUT", url: "/v1/jobs/keep", body: '{"jobId":"keep","startDateTime":"2026-01-01T00:00:00Z","tags":{"a":"b","a":"c"}}', headers: JSON_CT, status: 400, names: "/tags/a" },
  { name: "a repeated key in a merge patch", method: "PATCH", url: "/v1/jobs/keep", body: '{"description":"x","description":null}', headers: PATCH_CT, status: 400, names: "/description" },
  { name: "a nested __proto__ key", method: "PATCH", url: "/v1/jobs/keep", body: '{"tags":{"__proto__":{"admin":"1"}}}', headers: PATCH_CT, status: 400, names: "/tags/__proto__" },
  { name: "invalid UTF-8", method: "POST", url: "/v1/jobs", body: Buffer.concat([Buffer.from('{"jobId":"'), Buffer.from([0xff, 0xfe, 0xc3, 0x28]), Buffer.from('","startDateTime":"2026-01-01T00:00:00Z"}')]), headers: JSON_CT, status: 400, names: "UTF-8" },
  { name: "invalid UTF-8 in a merge patch", method: "PATCH", url: "/v1/jobs/keep", body: Buffer.from([0x7b, 0x22, 0xc3, 0x22, 0x3a, 0x31, 0x7d]), headers: PATCH_CT, status: 400, names: "UTF-8" },
  // Path and headers.
  { name: "a too-long id", method: "GET", url: `/v1/jobs/${"a".repeat(300)}`, status: 400, names: "jobId" },
  { name: "a too-long id on PUT", method: "PUT", url: `/v1/jobs/${"a".repeat(300)}`, body: job({}, "a".repeat(300)), headers: JSON_CT, status: 400, names: "jobId" },
  { name: "bad percent-encoding in the id", method: "GET", url: "/v1/jobs/%ZZ", status: 400, names: "percent-encoded" },
  { name: "percent-encoded invalid UTF-8 in the id", method: "DELETE", url: "/v1/jobs/%C3%28", status: 400, names: "percent-encoded" },
  { name: "an id over the router's length limit", method: "GET", url: `/v1/jobs/${"a".repeat(3000)}`, status: 414, names: "too long" },
  { name: "a metadata key gRPC cannot carry", method: "GET", url: "/v1/jobs/keep", headers: { "grpc-metadata-a!b": "x" }, status: 400, names: "grpc-metadata-a!b" },
  { name: "a non-ASCII Authorization", method: "PUT", url: "/v1/jobs/keep", body: put({ description: "changed" }), headers: { ...JSON_CT, authorization: "Bearer caf\u00e9" }, status: 400, names: "authorization" },
  { name: "a TAB in Authorization", method: "DELETE", url: "/v1/jobs/keep", headers: { authorization: "Bearer a\tb" }, status: 400, names: "authorization" },
  { name: "a non-ASCII metadata value", method: "PATCH", url: "/v1/jobs/keep", body: '{"description":"x"}', headers: { ...PATCH_CT, "grpc-metadata-foo": "caf\u00c3\u00a9" }, status: 400, names: "grpc-metadata-foo" },
  { name: "Grpc-Metadata-Authorization overriding Authorization", method: "GET", url: "/v1/jobs/keep", headers: { authorization: "Bearer a", "grpc-metadata-authorization": "other" }, status: 400, names: "grpc-metadata-authorization" },
  { name: "a bad Grpc-Timeout", method: "GET", url: "/v1/jobs/keep", headers: { "grpc-timeout": "soon" }, status: 400, names: "grpc-timeout" },
  { name: "a Grpc-Timeout without unit", method: "PUT", url: "/v1/jobs/keep", body: put({ description: "changed" }), headers: { ...JSON_CT, "grpc-timeout": "100" }, status: 400, names: "grpc-timeout" },
  { name: "garbage If-Match", method: "PUT", url: "/v1/jobs/keep", body: put({ description: "changed" }), headers: { ...JSON_CT, "if-match": "garbage" }, status: 400, names: "if-match" },
  { name: "If-Match with two tags", method: "DELETE", url: "/v1/jobs/keep", headers: { "if-match": '"1", "2"' }, status: 400, names: "if-match" },
  { name: "If-Match out of int64 range", method: "PATCH", url: "/v1/jobs/keep", body: '{"description":"x"}', headers: { ...PATCH_CT, "if-match": '"99999999999999999999"' }, status: 400, names: "if-match" },
  { name: "weak If-Match never matches", method: "DELETE", url: "/v1/jobs/keep", headers: { "if-match": 'W/"1"' }, status: 412 },
  // Patch-specific.
  { name: "patch removing startDateTime", method: "PATCH", url: "/v1/jobs/keep", body: '{"startDateTime":null}', headers: PATCH_CT, status: 400, names: "/startDateTime" },
  { name: "patch with a wrong type", method: "PATCH", url: "/v1/jobs/keep", body: '{"tags":{"a":7}}', headers: PATCH_CT, status: 400, names: "/tags/a" },
  { name: "patch that changes jobId", method: "PATCH", url: "/v1/jobs/keep", body: '{"jobId":"other"}', headers: PATCH_CT, status: 400, names: "/jobId" },
  { name: "PUT whose body id differs from the path", method: "PUT", url: "/v1/jobs/keep", body: put({ jobId: "other" }), headers: JSON_CT, status: 400, names: "/jobId" },
  // Query strings.
  { name: "unknown query parameter", method: "GET", url: "/v1/jobs?colour=red", status: 400, names: "colour" },
  { name: "limit zero", method: "GET", url: "/v1/jobs?limit=0", status: 400, names: "limit" },
  { name: "bad date filter", method: "GET", url: "/v1/jobs?startBefore=2026-13-01T00:00:00Z", status: 400, names: "startBefore" },
  { name: "tag filter without a colon", method: "GET", url: "/v1/jobs?tag=env", status: 400, names: "tag" },
  { name: "instance start with a missing nodeId", method: "POST", url: "/v1/jobs/keep/instances", body: '{"role":"r"}', headers: JSON_CT, status: 400, names: "/nodeId" },
  { name: "instance stop without nodeId", method: "DELETE", url: "/v1/jobs/keep/instances/r", status: 400, names: "nodeId" },
  { name: "unknown route", method: "GET", url: "/v1/jobz", status: 404 },
];

function named(problem: { detail: string; errors?: { pointer?: string; parameter?: string; header?: string }[] }, name: string): boolean {
  const places = (problem.errors ?? []).flatMap((e) => [e.pointer, e.parameter, e.header]);
  return places.includes(name) || problem.detail.includes(name);
}

describe("malformed requests", () => {
  it("has at least 40 cases", () => {
    expect(CASES.length).toBeGreaterThanOrEqual(40);
  });

  it.each(CASES)("$name → $status", async (c) => {
    const before = (await gw.jobs()).map((j) => toBinary(JobSchema, j));
    const res = await gw.app.inject({ method: c.method, url: c.url, headers: c.headers ?? {}, ...(c.body === undefined ? {} : { payload: c.body }) });
    expect(res.statusCode).toBe(c.status);
    expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
    const problem = res.json<{ status: number; detail: string; type: string; title: string; errors?: { pointer?: string }[] }>();
    expect(problem.status).toBe(c.status);
    expect(problem.detail.length).toBeGreaterThan(0);
    if (c.names !== undefined) expect(named(problem, c.names), JSON.stringify(problem)).toBe(true);
    const after = (await gw.jobs()).map((j) => toBinary(JobSchema, j));
    expect(after).toEqual(before);
    expect(after).toHaveLength(1);
  });

  it("left the stored job exactly as created", async () => {
    const res = await gw.app.inject({ method: "GET", url: "/v1/jobs/keep" });
    expect(res.headers.etag).toBe(etag);
    expect(res.json()).toMatchObject({ description: "original", tags: { a: "b" } });
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });
});

// Hostile bodies: each cheap to send, and each could cost a lenient reader the event loop for a
// second and an answer of megabytes. Each must be a 400 of a few KB, with nothing written.
const HOSTILE_BODIES: readonly { readonly name: string; readonly body: string; readonly detail: string }[] = [
  {
    name: "700 KB of one repeated tag (×100,000)",
    body: job({}).replace(/}$/, `,"tags":{${Array.from({ length: 100_000 }, () => '"k":"v"').join(",")}}}`),
    detail: "the request body repeats a key or has a forbidden one",
  },
  {
    name: "60,000 {\"__proto__\":1}",
    body: `[${Array.from({ length: 60_000 }, () => '{"__proto__":1}').join(",")}]`,
    detail: "the request body repeats a key or has a forbidden one",
  },
  { name: "500,000 nested arrays", body: `${"[".repeat(500_000)}${"]".repeat(500_000)}`, detail: "the request body nests arrays and objects deeper than 32" },
  {
    name: "100,000 services that are not objects",
    body: job({ services: Array.from({ length: 100_000 }, () => 1) }),
    detail: "the request body is invalid",
  },
];

/** What a problem answering a hostile body may weigh at most: its hundred items and the rest. */
const MAX_ANSWER_BYTES = 16 * 1024;

describe("hostile bodies", () => {
  it.each(HOSTILE_BODIES)("$name: a 400 of a few KB, listing 100 errors at most, nothing written", async ({ body, detail }) => {
    const before = (await gw.jobs()).map((j) => toBinary(JobSchema, j));
    const res = await gw.app.inject({ method: "POST", url: "/v1/jobs", headers: JSON_CT, payload: body });
    expect(res.statusCode).toBe(400);
    expect(res.rawPayload.length).toBeLessThan(MAX_ANSWER_BYTES);
    const problem = res.json<{ detail: string; errors: unknown[]; errorsNotListed?: number }>();
    expect(problem.detail).toBe(detail);
    expect(problem.errors.length).toBeLessThanOrEqual(100);
    if (problem.errors.length === 100) expect(problem.errorsNotListed).toBeGreaterThan(0);
    expect((await gw.jobs()).map((j) => toBinary(JobSchema, j))).toEqual(before);
  });
});
