// The audit log (--audit-log), through the gateway as main.ts starts it with API keys: one line
// per change and per refusal, each field as documented (the lines validate against AuditLine,
// whose table is the document's), written before the client has its answer; a change whose
// line cannot be written (the file is /dev/full) is a 500 saying so, while a refusal stays a
// refusal and a failed change keeps its own answer.
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { Value } from "@sinclair/typebox/value";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuditLine, auditFieldsTable } from "../../src/telemetry/audit-log.js";
import { JSON_HEADERS, START, startMainGateway } from "../helpers/gateway.js";
import type { MainGateway } from "../helpers/gateway.js";
import { apiKeysFile } from "../helpers/api-keys-file.js";
import type { ApiKeysFile } from "../helpers/api-keys-file.js";

const WRITER_KEY = "k-writer-4c0d8e2a9b7f61e3";
const READER_KEY = "k-reader-7a1e5f0c3b9d24a8";

const RFC3339_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

describe("the audit log", () => {
  let keys: ApiKeysFile;
  let dir: string;
  let auditFile: string;
  let gateway: MainGateway;
  let full: MainGateway;

  beforeAll(async () => {
    keys = await apiKeysFile([
      { name: "writer", key: WRITER_KEY, scopes: ["jobs:read", "jobs:write"] },
      { name: "reader", key: READER_KEY, scopes: ["jobs:read"] },
    ]);
    dir = keys.dir;
    auditFile = join(dir, "audit.log");
    const common = ["--port", "0", "--api-keys", keys.file, "--shed-event-loop-delay", "0"];
    [gateway, full] = await Promise.all([
      startMainGateway([...common, "--data-dir", join(dir, "data"), "--audit-log", auditFile]),
      startMainGateway([...common, "--data-dir", join(dir, "data-full"), "--audit-log", "/dev/full"]),
    ]);
  });

  afterAll(async () => {
    await Promise.all([gateway.close(), full.close()]);
    await keys.remove();
  });

  /** The file's lines, read the moment the answer has arrived. */
  async function send(path: string, init: RequestInit): Promise<{ response: Response; lines: AuditLine[] }> {
    const response = await fetch(`${gateway.url}${path}`, init);
    const lines = (await readFile(auditFile, "utf8")).trimEnd().split("\n").map((text) => JSON.parse(text) as AuditLine);
    await response.arrayBuffer();
    return { response, lines };
  }

  function lineOf(lines: readonly AuditLine[], response: Response): AuditLine {
    const found = lines.filter((line) => line.requestId === response.headers.get("x-request-id"));
    expect(found).toHaveLength(1);
    const [line] = found;
    if (line === undefined) throw new Error("no line");
    expect(Value.Errors(AuditLine, line).First()).toBeUndefined();
    expect(line.time).toMatch(RFC3339_UTC);
    expect(Math.abs(Date.parse(line.time) - Date.now())).toBeLessThan(60_000);
    return line;
  }

  const writer = { "x-api-key": WRITER_KEY };
  let etag = "";

  it("writes a create's line before the answer: principal, operation, target, status, no ETag before and the answer's after", async () => {
    const { response, lines } = await send("/v1/jobs", { method: "POST", headers: { ...JSON_HEADERS, ...writer }, body: JSON.stringify({ jobId: "audited", startDateTime: START }) });
    expect(response.status).toBe(201);
    etag = response.headers.get("etag") ?? "";
    expect(lineOf(lines, response)).toEqual({
      time: expect.any(String) as string,
      event: "change",
      principal: { id: "writer", kind: "api-key" },
      operation: "createJob",
      target: { jobId: "audited" },
      status: 201,
      outcome: "applied",
      etagBefore: null,
      etagAfter: etag,
      requestId: response.headers.get("x-request-id"),
    });
  });

  it("writes a conditional patch's ETag before (the If-Match) and after (the answer's)", async () => {
    const { response, lines } = await send("/v1/jobs/audited", {
      method: "PATCH",
      headers: { "content-type": "application/merge-patch+json", "if-match": etag, ...writer },
      body: JSON.stringify({ tags: { stage: "two" } }),
    });
    expect(response.status).toBe(200);
    const after = response.headers.get("etag");
    expect(after).not.toBe(etag);
    expect(lineOf(lines, response)).toMatchObject({ event: "change", operation: "patchJob", target: { jobId: "audited" }, status: 200, etagBefore: etag, etagAfter: after });
    etag = after ?? "";
  });

  it("writes a refused change as a 403 refusal with its principal, and a 401 with none", async () => {
    const refused = await send("/v1/jobs/audited", { method: "DELETE", headers: { "x-api-key": READER_KEY } });
    expect(refused.response.status).toBe(403);
    expect(lineOf(refused.lines, refused.response)).toMatchObject({ event: "refusal", principal: { id: "reader", kind: "api-key" }, operation: "deleteJob", target: { jobId: "audited" }, status: 403 });
    const anonymous = await send("/v1/jobs/audited", { method: "GET", headers: { "x-api-key": `${READER_KEY}x` } });
    expect(anonymous.response.status).toBe(401);
    const line = lineOf(anonymous.lines, anonymous.response);
    expect(line).toMatchObject({ event: "refusal", principal: null, operation: "jobById", target: { jobId: "audited" }, status: 401 });
    expect(line).not.toHaveProperty("etagBefore");
    expect(line).not.toHaveProperty("etagAfter");
  });

  it("writes a delete's ETag before and a null after, and no line for a read", async () => {
    const read = await send("/v1/jobs/audited", { headers: writer });
    expect(read.response.status).toBe(200);
    expect(read.lines.filter((line) => line.requestId === read.response.headers.get("x-request-id"))).toEqual([]);
    const { response, lines } = await send("/v1/jobs/audited", { method: "DELETE", headers: { "if-match": etag, ...writer } });
    expect(response.status).toBe(204);
    expect(lineOf(lines, response)).toMatchObject({ event: "change", operation: "deleteJob", status: 204, etagBefore: etag, etagAfter: null });
  });

  it("answers a change whose line cannot be written with a 500 saying the change was made, and logs the line at error", async () => {
    const response = await fetch(`${full.url}/v1/jobs`, { method: "POST", headers: { ...JSON_HEADERS, ...writer }, body: JSON.stringify({ jobId: "unaudited", startDateTime: START }) });
    expect(response.status).toBe(500);
    expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(response.headers.get("etag")).toBeNull();
    expect(response.headers.get("location")).toBeNull();
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ status: 500, code: "INTERNAL", detail: expect.stringContaining("the change was made") as string });
    expect(JSON.stringify(body)).not.toMatch(/ENOSPC|dev\/full/);
    // The change happened at the Manager, as the detail says.
    expect((await fetch(`${full.url}/v1/jobs/unaudited`, { headers: writer })).status).toBe(200);
    const logged = full.lines.find((line) => line.msg === "the audit log could not be written" && (line.audit as AuditLine | undefined)?.requestId === response.headers.get("x-request-id"));
    expect(logged).toMatchObject({ level: 50, audit: { operation: "createJob", status: 201 } });
  });

  it("answers a refusal, and a change that failed, as they were when their line cannot be written", async () => {
    expect((await fetch(`${full.url}/v1/jobs/unaudited`, { method: "DELETE" })).status).toBe(401);
    expect((await fetch(`${full.url}/v1/jobs/absent`, { method: "DELETE", headers: writer })).status).toBe(404);
  });

  it("is documented field by field as AuditLine says", () => {
    expect(readFileSync("docs/operations/authentication.md", "utf8")).toContain(auditFieldsTable());
  });
});
