// Fuzzing the whole HTTP surface: fast-check draws methods, paths (odd ids, broken percent
// escapes), query strings, headers (latin-1 bytes, reserved and malformed metadata names,
// preconditions, deadlines, origins) and bodies (JSON, near-jobs, duplicate keys, random bytes),
// and sends each to the built command, which talks to a reference Manager on disk. Invariants,
// checked after every request (grpc-gateway's runtime/query_fuzz_test.go is the model):
// - the gateway process is still running;
// - the answer is below 500, or a problem+json 503/504 (the only 5xx a client can provoke);
// - every error answer is problem+json whose status is the HTTP status;
// - a 4xx wrote nothing: the Manager's database is the same, row for row.
// Seeded, so a failure replays (FUZZ_SEED=<n> to pick another), and bounded in count and time.
import { request as httpRequest } from "node:http";
import type { IncomingHttpHeaders } from "node:http";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startManager } from "norsk-reference-manager";
import type { RunningManager } from "norsk-reference-manager";
import { dumpDatabase } from "../../packages/reference-manager/test/harness.js";
import { startCommand } from "../helpers/command.js";
import type { StartedCommand } from "../helpers/command.js";

const SEED = Number(process.env.FUZZ_SEED ?? 20261202);
const RUNS = 2_000;
const TIME_LIMIT_MS = 60_000;

let manager: RunningManager;
let dataDir: string;
let gateway: StartedCommand;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "gateway-fuzz-"));
  manager = await startManager({ port: 0, dataDir, onUnexpectedError: () => undefined });
  gateway = await startCommand(["--manager", manager.address]);
  for (const jobId of ["fz-a", "fz-b"]) {
    const answer = await send({
      method: "POST",
      path: "/v1/jobs",
      headers: { "content-type": "application/json" },
      body: Buffer.from(JSON.stringify({ jobId, startDateTime: "2026-01-01T00:00:00Z", tags: { env: "prod" } })),
    });
    expect(answer.status).toBe(201);
  }
});

afterAll(async () => {
  await gateway.stop();
  await manager.close();
  await rm(dataDir, { recursive: true, force: true });
});

interface FuzzRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: Buffer | undefined;
}

interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

const STREAMS = new Set(["/v1/events", "/v1/status"]);

/** One request; a stream that started (200) is read no further. */
function send(req: FuzzRequest): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const url = new URL(gateway.url);
    const outgoing = httpRequest(
      { host: url.hostname, port: url.port, method: req.method, path: req.path, headers: req.headers, timeout: 15_000 },
      (res) => {
        const streaming = res.statusCode === 200 && STREAMS.has(req.path.split("?")[0] ?? "");
        if (streaming) {
          res.destroy();
          resolve({ status: 200, headers: res.headers, body: "" });
          return;
        }
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") });
        });
        res.on("error", reject);
      },
    );
    outgoing.on("timeout", () => outgoing.destroy(new Error(`no answer to ${req.method} ${req.path} within 15 s`)));
    outgoing.on("error", reject);
    outgoing.end(req.body);
  });
}

// --- arbitraries -----------------------------------------------------------------------------

/** Characters Node's HTTP client lets into a header value: TAB, visible ASCII, latin-1. */
const headerChar = fc.oneof(
  fc.constant("\t"),
  fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0x80, max: 0xff }).map((c) => String.fromCharCode(c)),
);
const headerValue = fc.string({ unit: headerChar, maxLength: 24 });
const tokenChar = fc.constantFrom(..."abcxyz019-_.!#$%&'*+^`|~".split(""));
const token = fc.string({ unit: tokenChar, minLength: 1, maxLength: 10 });

const rawSegment = fc.constantFrom("%ZZ", "%C3%28", "%", "%00", "..", "a%2Fb", "%2e%2e", "x".repeat(300), "é");
const segment = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom("fz-a", "fz-b", "missing") },
  { weight: 3, arbitrary: fc.string({ maxLength: 12 }).map(encodeURIComponent) },
  { weight: 2, arbitrary: rawSegment },
);

const path = fc.oneof(
  fc.constantFrom("/v1/jobs", "/v1/nodes/aws", "/v1/nodes/oci", "/v1/events", "/v1/status", "/healthz", "/readyz", "/", "/v1", "/v1/jobs/"),
  segment.map((id) => `/v1/jobs/${id}`),
  segment.map((id) => `/v1/jobs/${id}/complete`),
  segment.map((id) => `/v1/jobs/${id}/instances`),
  fc.tuple(segment, segment).map(([id, role]) => `/v1/jobs/${id}/instances/${role}`),
  segment.map((id) => `/v1/nodes/${id}`),
  segment.map((id) => `/v1/physical-nodes/${id}`),
  rawSegment.map((raw) => `/${raw}`),
);

const QUERY_NAMES = ["id", "idNot", "idMatch", "tag", "tagNot", "tagMatch", "hasTag", "startAt", "startBefore", "startWithin", "limit", "nodeId", "pendingWindowS"];
const queryValue = fc.oneof(
  fc.string({ maxLength: 12 }).map(encodeURIComponent),
  fc.constantFrom("(a|a)*b", "env:prod", "env:(p|p)*x", "2026-01-01T00:00:00Z", "2026-02-30T00:00:00Z", "1/2", "-1", "1e3", "", "[", "%ZZ").map((v) => (v === "%ZZ" ? v : encodeURIComponent(v))),
);
const query = fc
  .array(fc.tuple(fc.oneof(fc.constantFrom(...QUERY_NAMES), token), queryValue), { maxLength: 4 })
  .map((pairs) => (pairs.length === 0 ? "" : `?${pairs.map(([k, v]) => `${encodeURIComponent(k)}=${v}`).join("&")}`));

const headers = fc
  .record(
    {
      "content-type": fc.constantFrom("application/json", "application/merge-patch+json", "text/plain", "application/x-www-form-urlencoded", "application/json; charset=latin1", ""),
      accept: fc.constantFrom("application/x-ndjson", "text/event-stream", "*/*", "application/xml", "application/json"),
      "if-match": fc.oneof(fc.constantFrom('"0"', "*", 'W/"1"', '"abc"', '"1", "2"'), headerValue),
      "if-none-match": fc.oneof(fc.constantFrom('"0"', "*"), headerValue),
      "grpc-timeout": fc.constantFrom("1n", "100m", "5S", "abc", "99999999H", ""),
      authorization: headerValue,
      "x-request-id": headerValue,
      origin: fc.constantFrom("http://evil.example", "null"),
      metadata: fc.tuple(fc.oneof(token, fc.constantFrom("authorization", "x-request-id", "grpc-status", "a-bin")), headerValue),
    },
    { requiredKeys: [] },
  )
  .map(({ metadata, ...rest }) => {
    const out: Record<string, string> = { ...rest };
    if (metadata !== undefined) out[`grpc-metadata-${metadata[0]}`] = metadata[1];
    return out;
  });

const nearJob = fc
  .record(
    {
      jobId: fc.oneof(fc.constantFrom("fz-a", "fz-b", "fz-new", ""), fc.string({ maxLength: 8 })),
      startDateTime: fc.constantFrom("2026-01-01T00:00:00Z", "2026-02-30T00:00:00Z", "yesterday", "0000-01-01T00:00:00Z"),
      currentHash: fc.oneof(fc.constantFrom("0", "9223372036854775808", "-1"), fc.integer()),
      tags: fc.dictionary(fc.string({ maxLength: 5 }), fc.oneof(fc.string({ maxLength: 5 }), fc.integer())),
      state: fc.constantFrom("pre", "active", "post", "bogus", 7),
      description: fc.oneof(fc.string({ maxLength: 8 }), fc.constant(null)),
      services: fc.constantFrom([], [{ name: "s" }], "none"),
      bogus: fc.integer(),
    },
    { requiredKeys: [] },
  )
  .map((job) => JSON.stringify(job));

const body = fc.oneof(
  { weight: 2, arbitrary: fc.constant(undefined) },
  { weight: 4, arbitrary: nearJob.map((text) => Buffer.from(text)) },
  { weight: 2, arbitrary: fc.json({ maxDepth: 2 }).map((text) => Buffer.from(text)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '{"jobId":"fz-new","jobId":"fz-b","startDateTime":"2026-01-01T00:00:00Z"}',
      '{"__proto__":{"x":1},"jobId":"fz-new","startDateTime":"2026-01-01T00:00:00Z"}',
      '{"jobId":"fz-new"',
      "",
    ).map((text) => Buffer.from(text)),
  },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 16 }).map((bytes) => Buffer.from(bytes)) },
);

const fuzzRequest: fc.Arbitrary<FuzzRequest> = fc
  .record({
    method: fc.constantFrom("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"),
    path: fc.tuple(path, query).map(([p, q]) => p + q),
    headers,
    body,
  })
  .map((r) => ({ ...r, headers: r.body === undefined ? r.headers : { ...r.headers, "content-length": String(r.body.length) } }));

// --- the property ----------------------------------------------------------------------------

function problemOf(answer: Answer): { status?: unknown } | undefined {
  try {
    return JSON.parse(answer.body) as { status?: unknown };
  } catch {
    return undefined;
  }
}

describe("fuzzing every route with malformed and hostile requests", () => {
  it("keeps the process up, answers < 500 or a problem+json 503/504, and writes nothing on a 4xx", async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(fuzzRequest, async (req) => {
        runs++;
        const before = dumpDatabase(dataDir);
        const answer = await send(req);
        expect(gateway.child.exitCode, "the gateway process exited").toBeNull();
        const where = `${req.method} ${req.path} → ${answer.status} ${answer.body.slice(0, 200)}`;
        expect(answer.status < 500 || answer.status === 503 || answer.status === 504, where).toBe(true);
        if (answer.status >= 400) {
          expect(answer.headers["content-type"], where).toMatch(/^application\/problem\+json/);
          if (req.method !== "HEAD") expect(problemOf(answer)?.status, where).toBe(answer.status);
        }
        if (answer.status >= 400 && answer.status < 500) expect(dumpDatabase(dataDir), where).toEqual(before);
      }),
      { seed: SEED, numRuns: RUNS, plugins: [fc.interruptAfterTimeLimit(TIME_LIMIT_MS)] },
    );
    expect(runs).toBeGreaterThan(200);
    const health = await send({ method: "GET", path: "/healthz", headers: {} });
    expect(health.status).toBe(200);
  }, 180_000);
});
