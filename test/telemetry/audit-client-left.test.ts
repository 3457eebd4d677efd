// The audit line of a change whose client hung up before the answer: it says what the Manager
// did (the outcome, with the ETag after an applied change) and, apart from it, that the client
// left. The clients are raw sockets that close 2 ms after sending; the gateway is in front of
// the real reference Manager, whose calls are held (by a hook on the gateway's client) until
// the gateway has seen the client's connection close, so that every change's answer comes
// after its client left, as a slow Manager's would.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Value } from "@sinclair/typebox/value";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code, GrpcError } from "norsk-manager-contract/grpc/errors.js";
import type { CallOptions } from "norsk-manager-contract/grpc/types.js";
import { AuditLine, AuditLog } from "../../src/telemetry/audit-log.js";
import { JSON_HEADERS, START, startTestGateway } from "../helpers/gateway.js";
import type { TestGateway } from "../helpers/gateway.js";
import { openRaw } from "../helpers/raw-socket.js";

const ROUNDS = 24;

describe("the audit line of a change whose client left before the answer", () => {
  let dir: string;
  let auditFile: string;
  let audit: AuditLog;
  let gateway: TestGateway;
  /** Per request id, resolved when the gateway's answer to it closed. */
  const closed = new Map<string, { seen: Promise<void>; resolve: () => void }>();

  function closeOf(requestId: string): { seen: Promise<void>; resolve: () => void } {
    let entry = closed.get(requestId);
    if (entry === undefined) {
      let resolve = (): void => undefined;
      const seen = new Promise<void>((done) => (resolve = done));
      entry = { seen, resolve };
      closed.set(requestId, entry);
    }
    return entry;
  }

  /** Holds a call until the gateway has seen its request's client leave (the request id is in its metadata). */
  async function afterLeaving(options: CallOptions | undefined): Promise<void> {
    const requestId = options?.metadata?.["x-request-id"];
    if (typeof requestId === "string" && requestId.startsWith("left-")) await closeOf(requestId).seen;
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "gateway-audit-left-"));
    auditFile = join(dir, "audit.log");
    audit = new AuditLog(auditFile);
    gateway = await startTestGateway({
      listen: true,
      audit,
      beforeListen: (app) => {
        app.addHook("onRequest", (request, reply, done) => {
          reply.raw.once("close", () => {
            closeOf(request.id).resolve();
          });
          done();
        });
      },
      hook: (real) => ({
        createJob: async (request, options) => {
          await afterLeaving(options);
          const answer = await real.createJob(request, options);
          // A Manager that applied the create and whose answer is lost: the call's outcome cannot be known.
          if (request.jobId?.jobId === "lost-answer") throw new GrpcError(Code.DEADLINE_EXCEEDED, "deadline exceeded");
          return answer;
        },
        deleteJob: async (request, options) => {
          await afterLeaving(options);
          return real.deleteJob(request, options);
        },
      }),
    });
  });

  afterAll(async () => {
    await gateway.close();
    await audit.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function lines(): Promise<AuditLine[]> {
    const text = await readFile(auditFile, "utf8");
    return text.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as AuditLine);
  }

  /** Sends `method path` with `body` on a raw socket and hangs up 2 ms later, without reading. */
  async function sendAndLeave(method: string, path: string, requestId: string, body = ""): Promise<void> {
    const head = [`${method} ${path} HTTP/1.1`, "host: 127.0.0.1", `x-request-id: ${requestId}`, `content-length: ${String(Buffer.byteLength(body))}`];
    if (body !== "") head.push("content-type: application/json");
    const connection = await openRaw(gateway.url, `${head.join("\r\n")}\r\n\r\n${body}`);
    await sleep(2);
    connection.socket.destroy();
  }

  /** The one line of `requestId`, once it is written. */
  async function lineOf(requestId: string): Promise<AuditLine> {
    for (;;) {
      const found = (await lines()).filter((line) => line.requestId === requestId);
      expect(found.length).toBeLessThan(2);
      const [line] = found;
      if (line !== undefined) {
        expect(Value.Errors(AuditLine, line).First()).toBeUndefined();
        return line;
      }
      await sleep(10);
    }
  }

  async function etagOf(jobId: string): Promise<string | null> {
    const response = await fetch(`${gateway.url}/v1/jobs/${jobId}`);
    await response.arrayBuffer();
    return response.status === 200 ? response.headers.get("etag") : null;
  }

  it("audits each create the Manager applied as applied, with the job's ETag after, and says the client left", async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const jobId = `gone-${String(round)}`;
      await sendAndLeave("POST", "/v1/jobs", `left-create-${String(round)}`, JSON.stringify({ jobId, startDateTime: START }));
      const line = await lineOf(`left-create-${String(round)}`);
      const etag = await etagOf(jobId);
      expect(etag).not.toBeNull();
      expect(line).toMatchObject({ event: "change", operation: "createJob", target: { jobId }, status: 201, outcome: "applied", etagBefore: null, etagAfter: etag, clientLeft: true });
    }
  });

  it("audits each delete the Manager applied as applied, with a null ETag after, and says the client left", async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const jobId = `gone-${String(round)}`;
      await sendAndLeave("DELETE", `/v1/jobs/${jobId}`, `left-delete-${String(round)}`);
      const line = await lineOf(`left-delete-${String(round)}`);
      expect(await etagOf(jobId)).toBeNull();
      expect(line).toMatchObject({ event: "change", operation: "deleteJob", target: { jobId }, status: 204, outcome: "applied", etagAfter: null, clientLeft: true });
    }
  });

  it("audits a delete the Manager refused as not applied, the client's leaving apart", async () => {
    await sendAndLeave("DELETE", "/v1/jobs/never-was", "left-delete-absent");
    const line = await lineOf("left-delete-absent");
    expect(line).toMatchObject({ operation: "deleteJob", status: 404, outcome: "not_applied", clientLeft: true });
    expect(line).not.toHaveProperty("etagAfter");
  });

  it("audits a create whose answer was lost as unknown (the Manager did apply it), with no ETag after", async () => {
    const response = await fetch(`${gateway.url}/v1/jobs`, { method: "POST", headers: { ...JSON_HEADERS, "x-request-id": "lost" }, body: JSON.stringify({ jobId: "lost-answer", startDateTime: START }) });
    expect(response.status).toBe(504);
    const line = await lineOf("lost");
    expect(line).toMatchObject({ operation: "createJob", status: 504, outcome: "unknown" });
    expect(line).not.toHaveProperty("etagAfter");
    expect(line).not.toHaveProperty("clientLeft");
    expect(await etagOf("lost-answer")).not.toBeNull();
  });

  it("says nothing of leaving for a client that stayed, and no outcome on a refusal", async () => {
    const response = await fetch(`${gateway.url}/v1/jobs`, { method: "POST", headers: { ...JSON_HEADERS, "x-request-id": "stayed" }, body: JSON.stringify({ jobId: "stayed", startDateTime: START }) });
    expect(response.status).toBe(201);
    const line = await lineOf("stayed");
    expect(line).toMatchObject({ status: 201, outcome: "applied", etagAfter: response.headers.get("etag") });
    expect(line).not.toHaveProperty("clientLeft");
    const invalid = await fetch(`${gateway.url}/v1/jobs`, { method: "POST", headers: { ...JSON_HEADERS, "x-request-id": "invalid" }, body: "{}" });
    expect(invalid.status).toBe(400);
    expect(await lineOf("invalid")).toMatchObject({ status: 400, outcome: "not_applied" });
  });
});
