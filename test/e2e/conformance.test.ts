// Every answer as openapi.yaml says, judged by an independent validator (Stoplight Prism's
// engine, test/helpers/conformance.ts): a walk over every operation, its success statuses and
// each documented error status, on real sockets, in front of the reference Manager (real
// conditions: bad input, missing jobs, stale ETags, oversized and mistyped bodies) and a stub
// Manager (what the reference Manager will not do on demand: INTERNAL, UNAVAILABLE,
// DEADLINE_EXCEEDED, ABORTED without a precondition, a write held while another queues, an
// answer larger than the gateway's --max-message-size).
// Any finding of Prism's fails the walk, and so does a status other than the one the case
// expects; the last test checks that the walk answered every documented status.
//
// HTTP semantics: every operation with content answers an Accept it cannot meet with a
// documented 406; a 405 is no operation's answer, so it is checked against the document's paths
// instead (Allow lists exactly the methods documented there, and HEAD with GET).
//
// Not judged: NDJSON bodies (Accept: application/x-ndjson), which Prism reads as one string
// against the schema of a line; the walk asks for JSON and SSE instead. An SSE body is
// judged as what the document says it is, a string.
import { readFileSync } from "node:fs";
import { Metadata, status as Status } from "@grpc/grpc-js";
import { parse as parseYaml } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { WireType } from "@bufbuild/protobuf/wire";
import { Manager } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { ApiKeys } from "../../src/auth/api-keys.js";
import { DELETING_TAG } from "../../src/operations/job-delete.js";
import { ConformanceJudge } from "../helpers/conformance.js";
import type { ConformanceRequest, Judged } from "../helpers/conformance.js";
import { startListeningGateway } from "../helpers/listening-gateway.js";
import type { ListeningGateway } from "../helpers/listening-gateway.js";
import { stubGateway, untilAborted } from "../helpers/stub-manager.js";
import type { ManagerStub, StubGateway } from "../helpers/stub-manager.js";
import { CASES, JSON_TYPE, job, type Case } from "./conformance-cases.js";
import { apiKeysFile } from "../helpers/api-keys-file.js";
import type { ApiKeysFile } from "../helpers/api-keys-file.js";

const BODY_LIMIT = 16 * 1024;

let judge: ConformanceJudge;
let ref: ListeningGateway;
let stub: StubGateway;
let stubUrl: string;
/** A stub Manager in front of a gateway whose --max-message-size is OVERSIZED_LIMIT. */
let small: StubGateway;
let smallUrl: string;
const OVERSIZED_LIMIT = 64 * 1024;

beforeAll(async () => {
  judge = await ConformanceJudge.load("openapi.yaml");
  ref = await startListeningGateway({ bodyLimit: BODY_LIMIT });
  stub = await stubGateway({}, { requestTimeoutMs: 2_000, maxWaitingWrites: 0 });
  stubUrl = await stub.app.listen({ port: 0, host: "127.0.0.1" });
  small = await stubGateway(oversizedManager(), { requestTimeoutMs: 2_000, maxMessageSizeBytes: OVERSIZED_LIMIT });
  smallUrl = await small.app.listen({ port: 0, host: "127.0.0.1" });
  // The reference Manager's jobs: one to read and write, one that a conditional DELETE has
  // fenced (only the gateway may set its tag, so it is written past the gateway).
  for (const id of ["c-1", "c-done", "c-del"]) await ref.connection.manager.createJob(job(id));
  await ref.connection.manager.createJob({ ...job("c-fenced"), tags: { [DELETING_TAG]: "r1 x" } });
});

afterAll(async () => {
  await small.close();
  await stub.close();
  await ref.close();
});

/** Judges `request` as `operationId` and expects `status` and no finding of Prism's. */
async function expectConforming(operationId: string, upstream: string, request: ConformanceRequest, status: number): Promise<Judged> {
  const judged = await judge.judgeOperation(operationId, upstream, request);
  expect({ status: judged.status, violations: judged.violations }).toEqual({ status, violations: [] });
  return judged;
}

describe("in front of the reference Manager", () => {
  it.each(CASES.map((c): [string, Case] => [`${c.op} ${String(c.status)}: ${c.why}`, c]))("%s", async (_name, c) => {
    const etag = (await ref.app.inject({ method: "GET", url: "/v1/jobs/c-1" })).headers.etag;
    const request = typeof c.request === "function" ? c.request(String(etag)) : c.request;
    await expectConforming(c.op, ref.url, request, c.status);
  });
});

/** A request of each operation that calls the Manager, valid as far as the gateway can tell. */
const VALID: Readonly<Record<string, ConformanceRequest>> = {
  getReadiness: { method: "get", path: "/readyz" },
  jobSearch: { method: "get", path: "/v1/jobs?id=x" },
  createJob: { method: "post", path: "/v1/jobs", headers: JSON_TYPE, body: JSON.stringify({ jobId: "x", startDateTime: "2026-12-24T18:00:00Z" }) },
  jobById: { method: "get", path: "/v1/jobs/x" },
  updateJob: { method: "put", path: "/v1/jobs/x", headers: JSON_TYPE, body: JSON.stringify({ jobId: "x", startDateTime: "2026-12-24T18:00:00Z" }) },
  patchJob: { method: "patch", path: "/v1/jobs/x", headers: { "content-type": "application/merge-patch+json" }, body: '{"description":"d"}' },
  deleteJob: { method: "delete", path: "/v1/jobs/x" },
  completeJob: { method: "post", path: "/v1/jobs/x/complete" },
  listJobInstances: { method: "get", path: "/v1/jobs/x/instances" },
  startJob: { method: "post", path: "/v1/jobs/x/instances", headers: JSON_TYPE, body: '{"role":"main","nodeId":"n-1"}' },
  stopJob: { method: "delete", path: "/v1/jobs/x/instances/main?nodeId=n-1" },
  createAwsNode: { method: "post", path: "/v1/nodes/aws", headers: JSON_TYPE, body: '{"nodeId":"a"}' },
  createOciNode: { method: "post", path: "/v1/nodes/oci", headers: JSON_TYPE, body: '{"nodeId":"o"}' },
  terminateNode: { method: "delete", path: "/v1/nodes/a" },
  updatePhysicalNode: { method: "put", path: "/v1/physical-nodes/r", headers: JSON_TYPE, body: '{"daemonVersion":"1"}' },
  eventStream: { method: "get", path: "/v1/events", headers: { accept: "text/event-stream" } },
  nodes: { method: "get", path: "/v1/nodes" },
  nodeById: { method: "get", path: "/v1/nodes/a" },
  cloudHealth: { method: "get", path: "/v1/health" },
  jobActivity: { method: "get", path: "/v1/jobs/x/activity" },
  createStatusChannel: { method: "get", path: "/v1/status", headers: { accept: "text/event-stream" } },
};

const failure = (code: Status): Error => Object.assign(new Error(Status[code]), { code, details: `stub: ${Status[code]}`, metadata: new Metadata() });

/** Every RPC of the Manager failing with `code`, streams before their first message. */
function failingManager(code: Status): ManagerStub {
  const handlers: ManagerStub & Record<string, unknown> = {};
  for (const method of Manager.methods) {
    handlers[method.localName] =
      method.methodKind === "unary"
        ? () => Promise.reject(failure(code))
        : // eslint-disable-next-line require-yield -- fails before its first message
          async function* () {
            await Promise.resolve();
            throw failure(code);
          };
  }
  return handlers;
}

/**
 * Every RPC of the Manager answering with a message just over OVERSIZED_LIMIT: its type's
 * empty message with an unknown length-delimited field (number 999) of that size.
 */
function oversizedManager(): ManagerStub {
  const size = OVERSIZED_LIMIT + 1;
  const varint: number[] = [];
  for (let rest = size; ; rest = Math.floor(rest / 128)) {
    if (rest < 128) {
      varint.push(rest);
      break;
    }
    varint.push((rest % 128) | 0x80);
  }
  const junk = new Uint8Array([...varint, ...new Uint8Array(size)]);
  const handlers: ManagerStub & Record<string, unknown> = {};
  for (const method of Manager.methods) {
    const answer = () => Object.assign(create(method.output), { $unknown: [{ no: 999, wireType: WireType.LengthDelimited, data: junk }] });
    handlers[method.localName] =
      method.methodKind === "unary"
        ? () => Promise.resolve(answer())
        : async function* () {
            await Promise.resolve();
            yield answer();
          };
  }
  return handlers;
}

function useStub(handlers: ManagerStub): void {
  stub.manager.reset();
  Object.assign(stub.manager.behaviour, handlers);
}

describe("in front of a failing Manager", () => {
  describe.each([
    [500, Status.INTERNAL],
    [503, Status.UNAVAILABLE],
    [504, Status.DEADLINE_EXCEEDED],
  ])("%i", (status, code) => {
    it.each(Object.keys(VALID).filter((op) => op !== "getReadiness"))("%s", async (op) => {
      useStub(failingManager(code));
      await expectConforming(op, stubUrl, VALID[op] ?? { method: "get", path: "/" }, status);
    });
  });

  it.each(Object.keys(VALID).filter((op) => op !== "getReadiness"))("%s 502: the Manager's answer is larger than --max-message-size", async (op) => {
    await expectConforming(op, smallUrl, VALID[op] ?? { method: "get", path: "/" }, 502);
  });

  it("getReadiness 503: the Manager does not answer its health check", async () => {
    useStub({});
    await expectConforming("getReadiness", stubUrl, VALID.getReadiness ?? { method: "get", path: "/" }, 503);
  });

  it.each(["updateJob", "patchJob"])("%s 409: the Manager's compare-and-swap fails (ABORTED) and no precondition was asked", async (op) => {
    useStub({
      ...failingManager(Status.ABORTED),
      jobSearch: async function* () {
        await Promise.resolve();
        yield { job: { ...job("x"), currentHash: 5n } };
      },
    });
    await expectConforming(op, stubUrl, VALID[op] ?? { method: "get", path: "/" }, 409);
  });

  it.each(["updateJob", "patchJob", "deleteJob", "completeJob"])("%s 429: a write of the job is running and none may wait", async (op) => {
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const hold = async ({ signal }: { signal: AbortSignal }): Promise<never> => {
      await Promise.race([held, untilAborted(signal)]);
      throw failure(Status.UNAVAILABLE);
    };
    useStub({ updateJob: (_request, context) => hold(context), deleteJob: (_request, context) => hold(context), completeJob: (_request, context) => hold(context) });
    const running = fetch(`${stubUrl}/v1/jobs/x/complete`, { method: "POST" });
    while (!stub.manager.calls.some((call) => call.method === "CompleteJob")) await new Promise((resolve) => setTimeout(resolve, 5));
    try {
      await expectConforming(op, stubUrl, VALID[op] ?? { method: "get", path: "/" }, 429);
    } finally {
      release();
      await running;
    }
  });
});

/** Operations whose success has content, so that Accept must admit it: VALID's and the liveness probe. */
const NEGOTIATED: Readonly<Record<string, ConformanceRequest>> = {
  getLiveness: { method: "get", path: "/healthz" },
  ...Object.fromEntries(Object.entries(VALID).filter(([op]) => !["deleteJob", "completeJob", "stopJob", "terminateNode"].includes(op))),
};

describe("HTTP semantics", () => {
  it.each(Object.keys(NEGOTIATED))("%s 406: Accept admits none of the media types it answers with", async (op) => {
    const request = NEGOTIATED[op] ?? { method: "get", path: "/" };
    await expectConforming(op, stubUrl, { ...request, headers: { ...request.headers, accept: "text/csv" } }, 406);
  });

  it("answers every documented path, asked with a method it does not document, with a 405 whose Allow lists the documented ones", async () => {
    const document = parseYaml(readFileSync("openapi.yaml", "utf8")) as { paths: Record<string, Record<string, unknown>> };
    const METHODS = ["get", "put", "post", "delete", "patch"];
    const answers: string[] = [];
    const expected: string[] = [];
    for (const [template] of Object.entries(document.paths)) {
      const path = template.replace(/\{[^}]+\}/g, "x");
      // Every documented path the concrete one matches: DELETE /v1/nodes/{nodeId} serves /v1/nodes/aws too.
      const served = Object.entries(document.paths)
        .filter(([other]) => new RegExp(`^${other.replace(/\{[^}]+\}/g, "[^/]+")}$`).test(path))
        .flatMap(([, otherItem]) => METHODS.filter((method) => method in otherItem));
      const other = METHODS.find((method) => !served.includes(method));
      if (other === undefined) continue;
      const response = await fetch(`${stubUrl}${path}`, { method: other.toUpperCase() });
      const body = (await response.json()) as { status?: number; title?: string };
      answers.push(`${other.toUpperCase()} ${template}: ${String(response.status)} ${String(body.status)} ${String(body.title)} Allow: ${String(response.headers.get("allow"))}`);
      const allow = ["get", "post", "put", "patch", "delete"].filter((method) => served.includes(method)).flatMap((method) => (method === "get" ? ["GET", "HEAD"] : [method.toUpperCase()]));
      expected.push(`${other.toUpperCase()} ${template}: 405 405 Method Not Allowed Allow: ${allow.join(", ")}`);
    }
    expect(answers).toEqual(expected);
  });
});

describe("with access control", () => {
  /** A key that authenticates but carries no scope. */
  const NO_SCOPE_KEY = "conformance-key-without-scopes";
  let guarded: StubGateway;
  let guardedUrl: string;
  let keys: ApiKeysFile;

  beforeAll(async () => {
    keys = await apiKeysFile([{ name: "nothing", key: NO_SCOPE_KEY, scopes: [] }]);
    guarded = await stubGateway({}, { access: { apiKeys: new ApiKeys(keys.file) } });
    guardedUrl = await guarded.app.listen({ port: 0, host: "127.0.0.1" });
  });

  afterAll(async () => {
    await guarded.close();
    await keys.remove();
  });

  it.each(Object.keys(VALID).filter((op) => op !== "getReadiness"))("%s: 401 without credentials, 403 with a key that lacks the operation's scope", async (op) => {
    const request = VALID[op] ?? { method: "get", path: "/" };
    await expectConforming(op, guardedUrl, request, 401);
    await expectConforming(op, guardedUrl, { ...request, headers: { ...request.headers, "x-api-key": NO_SCOPE_KEY } }, 403);
  });
});

describe("the walk", () => {
  it("answered every status that every operation documents", () => {
    const missing: string[] = [];
    for (const [op, statuses] of judge.documented()) {
      for (const status of statuses) if (!judge.seen.get(op)?.has(status)) missing.push(`${op} ${String(status)}`);
    }
    expect(missing).toEqual([]);
  });
});
