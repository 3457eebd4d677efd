// A hostile Manager: a real grpc-js server on a loopback port, serving the Manager service with
// answers no Manager should send (messages larger than the gateway's --max-message-size, bytes
// that are not the message, timestamps no RFC 3339 string can hold, values of enums this build
// does not know, a 1 MB status message), in front of a gateway listening on loopback. Every
// answer the gateway cannot use is its own generic 5xx problem, never a 4xx or a 429 and never
// grpc-js's text; the cause is in the log; and the process keeps serving afterwards.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Server, ServerCredentials, status } from "@grpc/grpc-js";
import type { MethodDefinition, ServerUnaryCall, ServerWritableStream, sendUnaryData, UntypedServiceImplementation } from "@grpc/grpc-js";
import { create, toBinary } from "@bufbuild/protobuf";
import type { DescMessage, MessageInitShape } from "@bufbuild/protobuf";
import { CurrentJobSchema, EventStreamEventSchema, Manager, NorskStatusEventSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { gatewayTo } from "../helpers/gateway.js";
import type { GatewayUnderTest } from "../helpers/gateway.js";
import { openStream } from "../helpers/wire-stream.js";
import { eventually } from "../helpers/listening-gateway.js";

/** The gateway's --max-message-size here: the least it accepts, so that an oversized answer is cheap to make. */
const LIMIT = 64 * 1024;

/** What the hostile Manager answers a method with: messages (as bytes), then a status. */
interface Answer {
  readonly messages: readonly Buffer[];
  readonly error?: { readonly code: status; readonly details: string };
}

const OK: Answer = { messages: [] };
const answers = new Map<string, Answer>();

function bytes<D extends DescMessage>(schema: D, init: MessageInitShape<D>): Buffer {
  return Buffer.from(toBinary(schema, create(schema, init)));
}

const job = (jobId: string, extra: Record<string, unknown> = {}) =>
  bytes(CurrentJobSchema, { job: { jobId: { jobId }, startDateTime: { seconds: 1_767_225_600n }, ...extra } });
/** 10000-01-01T00:00:00Z: past what an RFC 3339 string can hold. */
const BEYOND_9999 = { seconds: 253_402_300_800n };
const BAD_TIMESTAMP = bytes(CurrentJobSchema, { job: { jobId: { jobId: "bad" }, startDateTime: BEYOND_9999 } });
const OVERSIZED = job("big", { description: "x".repeat(LIMIT + 1) });
/** A tag of field 1 (length-delimited) that claims more bytes than follow: no message. */
const GARBAGE = Buffer.from([0x0a, 0xff, 0xff, 0x03, 0x01]);
const PICTURE_DONE = bytes(EventStreamEventSchema, { event: { case: "initialDataComplete", value: {} } });

/** The Manager service with raw bytes both ways: each call answers as `answers` says. */
function hostileService(): { definition: Record<string, MethodDefinition<Buffer, Buffer>>; implementation: UntypedServiceImplementation } {
  const definition: Record<string, MethodDefinition<Buffer, Buffer>> = {};
  const implementation: UntypedServiceImplementation = {};
  const same = (b: Buffer): Buffer => b;
  for (const method of Manager.methods) {
    const streaming = method.methodKind === "server_streaming";
    definition[method.name] = {
      path: `/${Manager.typeName}/${method.name}`,
      requestStream: false,
      responseStream: streaming,
      requestSerialize: same,
      requestDeserialize: same,
      responseSerialize: same,
      responseDeserialize: same,
    };
    const answer = (): Answer => answers.get(method.name) ?? OK;
    implementation[method.name] = streaming
      ? (call: ServerWritableStream<Buffer, Buffer>) => {
          const { messages, error } = answer();
          for (const message of messages) call.write(message);
          if (error === undefined) call.end();
          else call.destroy(Object.assign(new Error(error.details), error));
        }
      : (_call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) => {
          const { messages, error } = answer();
          if (error !== undefined) callback(Object.assign(new Error(error.details), error));
          else callback(null, messages[0] ?? Buffer.alloc(0));
        };
  }
  return { definition, implementation };
}

let server: Server;
let gateway: GatewayUnderTest;
let url: string;
const logged: { level: number; msg: string; err?: { message?: string; type?: string } }[] = [];

beforeAll(async () => {
  server = new Server();
  const { definition, implementation } = hostileService();
  server.addService(definition, implementation);
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (error, bound) => {
      if (error === null) resolve(bound);
      else reject(error);
    });
  });
  gateway = await gatewayTo(`127.0.0.1:${port}`, {
    listen: true,
    maxMessageSizeBytes: LIMIT,
    requestTimeoutMs: 2_000,
    logger: { level: "info", stream: { write: (line: string) => logged.push(JSON.parse(line) as (typeof logged)[number]) } },
  });
  ({ url } = gateway);
});

afterAll(async () => {
  await gateway.close();
  server.forceShutdown();
});

beforeEach(() => {
  answers.clear();
  logged.length = 0;
});

const GENERIC_502 = { status: 502, code: "INTERNAL", title: "Bad Gateway", detail: "the Manager sent an answer the gateway cannot use" };

/** The problem answered, asserting it is a problem+json that quotes none of grpc-js's words. */
async function problemOf(res: Response): Promise<Record<string, unknown>> {
  expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  const text = await res.text();
  expect(text).not.toMatch(/larger than max|parsing error|premature|vs \d|RST_STREAM|grpc/i);
  return JSON.parse(text) as Record<string, unknown>;
}

/** The gateway still serves: a well-formed answer comes back as it should. */
async function stillServes(): Promise<void> {
  answers.set("JobSearch", { messages: [job("fine")] });
  const res = await fetch(`${url}/v1/jobs/fine`);
  expect(res.status).toBe(200);
  expect(((await res.json()) as { jobId: string }).jobId).toBe("fine");
}

const CAUSES: readonly [string, Buffer, RegExp][] = [
  ["a message larger than --max-message-size", OVERSIZED, /^INTERNAL: Received message larger than max \(\d+ vs 65536\)$/],
  ["bytes that are not a message", GARBAGE, /^INTERNAL: Response message parsing error: /],
  ["a timestamp past 9999", BAD_TIMESTAMP, /is outside 0001-01-01\.\.9999-12-31/],
];

describe.each(CAUSES)("the Manager answers with %s", (_name, message, cause) => {
  it("GET /v1/jobs/{id} is the gateway's 502, with the cause in the log only", async () => {
    answers.set("JobSearch", { messages: [message] });
    const res = await fetch(`${url}/v1/jobs/bad`, { headers: { "x-request-id": "hostile-1" } });
    expect(res.status).toBe(502);
    expect(await problemOf(res)).toMatchObject({ ...GENERIC_502, requestId: "hostile-1" });
    const line = logged.find((l) => l.msg === "request failed");
    expect(line?.err?.message).toMatch(cause);
    await stillServes();
  });

  it("GET /v1/jobs with it first is a 502, not a 200 cut short, in JSON and NDJSON", async () => {
    answers.set("JobSearch", { messages: [message, job("after")] });
    for (const accept of ["application/json", "application/x-ndjson"]) {
      const res = await fetch(`${url}/v1/jobs`, { headers: { accept } });
      expect(res.status).toBe(502);
      expect(await problemOf(res)).toMatchObject(GENERIC_502);
    }
  });

  it("GET /v1/jobs with it after a good job ends NDJSON with the 502 as its error line", async () => {
    answers.set("JobSearch", { messages: [job("good"), message] });
    const res = await fetch(`${url}/v1/jobs`, { headers: { accept: "application/x-ndjson" } });
    expect(res.status).toBe(200);
    const lines = (await res.text()).trimEnd().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines[0]).toMatchObject({ jobId: "good" });
    expect(lines.at(-1)).toEqual({ error: expect.objectContaining(GENERIC_502) as unknown });
    expect(JSON.stringify(lines)).not.toMatch(/larger than max|parsing error|vs \d/);
  });

  it("GET /v1/events with it first is a 502 before the stream starts", async () => {
    answers.set("EventStream", { messages: [eventOf(message)] });
    const res = await fetch(`${url}/v1/events`);
    expect(res.status).toBe(502);
    expect(await problemOf(res)).toMatchObject(GENERIC_502);
  });

  it("GET /v1/events with it after the picture ends the stream with the 502 as its error event", async () => {
    answers.set("EventStream", { messages: [PICTURE_DONE, eventOf(message)] });
    const stream = await openStream(`${url}/v1/events`);
    expect(stream.response.statusCode).toBe(200);
    await eventually(() => stream.state.ended, "the end of the stream");
    const frames = stream.state.text.trimEnd().split("\n\n");
    expect(frames[0]).toMatch(/^retry: \d+$/);
    expect(frames[1]).toMatch(/^id: 1\nevent: initialDataComplete\n/);
    const last = frames.at(-1) ?? "";
    expect(last.startsWith("event: error\ndata: ")).toBe(true);
    expect(JSON.parse(last.slice("event: error\ndata: ".length))).toMatchObject(GENERIC_502);
    expect(stream.state.text).not.toMatch(/larger than max|parsing error|vs \d/);
    await stillServes();
  });
});

/** The event of the hostile message: the CurrentJob's job as a jobUpdated, or the bytes themselves. */
function eventOf(message: Buffer): Buffer {
  if (message === GARBAGE) return GARBAGE;
  if (message === OVERSIZED) return bytes(EventStreamEventSchema, { event: { case: "jobDeleted", value: { jobId: { jobId: "x".repeat(LIMIT + 1) } } } });
  return bytes(EventStreamEventSchema, { event: { case: "jobUpdated", value: { jobWithHistory: { job: { jobId: { jobId: "bad" }, startDateTime: BEYOND_9999 } } } } });
}

describe("values this build does not know", () => {
  it("passes an enum value it does not know through as its number (the mirror's rule), a 200", async () => {
    answers.set("JobSearch", { messages: [job("newer", { norskMediaVersion: 99 })] });
    const res = await fetch(`${url}/v1/jobs/newer`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { norskMediaVersion: unknown }).norskMediaVersion).toBe(99);
  });

  it("skips a status event of a member it does not know, and serves the rest", async () => {
    const hello = bytes(NorskStatusEventSchema, { message: { case: "hello", value: { version: { majorVersion: 1, label: "hostile" } } } });
    answers.set("CreateStatusChannel", { messages: [Buffer.from([0x9a, 0x06, 0x01, 0x41]), hello] });
    const stream = await openStream(`${url}/v1/status`);
    await eventually(() => stream.state.ended, "the end of the stream");
    expect(stream.state.text).toMatch(/^retry: \d+\n\nid: 1\nevent: hello\n/);
  });
});

// Last: what it does to the connection outlasts the test. nghttp2 on the gateway's side does not
// take a 1 MB trailer block; the call gets no status, and its connection (the unary channel's)
// takes no further call until keepalive finds it dead (docs/architecture.md, "Decisions and their
// reasons", Upstream faults). What holds: every call on it ends at its deadline as a generic 504,
// nothing of the
// message is answered, the streams' own connection and the process go on serving.
describe("a 1 MB status message", () => {
  it("is never answered, not even in part: the call ends at its deadline, and the gateway and its streams keep serving", async () => {
    answers.set("JobSearch", { messages: [], error: { code: status.INVALID_ARGUMENT, details: "m".repeat(1024 * 1024) } });
    answers.set("EventStream", { messages: [PICTURE_DONE] });
    const res = await fetch(`${url}/v1/jobs/any`);
    const body = await problemOf(res);
    expect(res.status).toBe(504);
    expect(body).toMatchObject({ status: 504, code: "DEADLINE_EXCEEDED", detail: "the Manager did not answer before the deadline" });
    expect(JSON.stringify(body)).not.toContain("mmmm");
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const stream = await openStream(`${url}/v1/events`);
    expect(stream.response.statusCode).toBe(200);
    await eventually(() => stream.state.ended, "the end of the stream");
    expect(stream.state.text).toMatch(/^retry: \d+\n\nid: 1\nevent: initialDataComplete\n/);
  });
});
