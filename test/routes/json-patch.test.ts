import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createJob, startTestGateway } from "../helpers/gateway.js";
import type { TestGateway } from "../helpers/gateway.js";

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw.close();
});

const SERVICES = [
  { name: "norsk", docker: { containerUrl: "docker.io/norskvideo/norsk:latest" }, restart: "on_failure" },
  { name: "sidecar", docker: { containerUrl: "docker.io/library/nginx:1" } },
];

beforeEach(async () => {
  for (const job of await gw.jobs()) await gw.connection.manager.deleteJob({ jobId: job.jobId?.jobId ?? "" });
  await createJob(gw.app, "jp", { services: SERVICES, tags: { env: "prod" } });
});

interface Job {
  services: { name: string; restartCount: number; docker?: { containerUrl: string } }[];
  tags: Record<string, string>;
  description: string;
}

async function jsonPatch(body: unknown, headers: Record<string, string> = {}) {
  return gw.app.inject({ method: "PATCH", url: "/v1/jobs/jp", headers: { "content-type": "application/json-patch+json", ...headers }, payload: JSON.stringify(body) });
}

async function stored(): Promise<Job> {
  return (await gw.app.inject({ method: "GET", url: "/v1/jobs/jp" })).json<Job>();
}

describe("PATCH /v1/jobs/{jobId} with a JSON Patch", () => {
  it("edits one element of a list, keeping the rest of it and the other elements", async () => {
    const before = await stored();
    const res = await jsonPatch([{ op: "replace", path: "/services/0/restartCount", value: 5 }]);
    expect(res.statusCode).toBe(200);
    const after = await stored();
    expect(after.services[0]).toEqual({ ...before.services[0], restartCount: 5 });
    expect(after.services[1]).toEqual(before.services[1]);
    expect(res.json()).toEqual(after);
    expect(res.headers.etag).not.toBe(undefined);
  });

  it("adds and removes map members, appends to a list, and moves and copies", async () => {
    const res = await jsonPatch([
      { op: "add", path: "/tags/tier", value: "gold" },
      { op: "remove", path: "/tags/env" },
      { op: "copy", from: "/services/1", path: "/services/-" },
      { op: "replace", path: "/services/2/name", value: "third" },
      { op: "move", from: "/tags/tier", path: "/description" },
    ]);
    expect(res.statusCode).toBe(200);
    const after = await stored();
    expect(after.tags).toEqual({});
    expect(after.description).toBe("gold");
    expect(after.services.map((s) => s.name)).toEqual(["norsk", "sidecar", "third"]);
  });

  it("answers a failed test with 409 naming the operation, and writes nothing", async () => {
    const before = await gw.app.inject({ method: "GET", url: "/v1/jobs/jp" });
    const res = await jsonPatch([
      { op: "replace", path: "/description", value: "changed" },
      { op: "test", path: "/services/0/restartCount", value: 1 },
    ]);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ status: 409, code: "FAILED_PRECONDITION", errors: [{ pointer: "/1/value" }] });
    const after = await gw.app.inject({ method: "GET", url: "/v1/jobs/jp" });
    expect(after.headers.etag).toBe(before.headers.etag);
  });

  it("passes a test of currentHash, a precondition in the body", async () => {
    const { currentHash } = (await stored()) as unknown as { currentHash: string };
    const res = await jsonPatch([{ op: "test", path: "/currentHash", value: currentHash }, { op: "replace", path: "/description", value: "x" }]);
    expect(res.statusCode).toBe(200);
    expect((await jsonPatch([{ op: "test", path: "/currentHash", value: currentHash }])).statusCode).toBe(409);
  });

  it("answers a path that names nothing in the job with 409 naming it", async () => {
    const res = await jsonPatch([{ op: "replace", path: "/services/5/restartCount", value: 1 }]);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ errors: [{ pointer: "/0/path" }] });
  });

  it.each([
    [[{ op: "jump", path: "/description" }], "/0/op"],
    [[{ op: "add", path: "description", value: "x" }], "/0/path"],
    [[{ op: "replace", path: "/description" }], "/0/value"],
    [{ description: "x" }, ""],
  ])("answers the malformed patch %j with 400 naming %s", async (body, pointer) => {
    const res = await jsonPatch(body);
    expect(res.statusCode).toBe(400);
    expect(res.json<{ errors: { pointer: string }[] }>().errors.map((e) => e.pointer)).toContain(pointer);
  });

  it.each([
    [[{ op: "replace", path: "/jobId", value: "other" }], "/jobId"],
    [[{ op: "remove", path: "/startDateTime" }], "/startDateTime"],
    [[{ op: "replace", path: "/currentHash", value: "1" }], "/currentHash"],
    [[{ op: "replace", path: "/services/0/restartCount", value: "many" }], "/services"],
  ])("refuses a patched job the merge patch path refuses: %j", async (body, pointer) => {
    const res = await jsonPatch(body);
    expect(res.statusCode).toBe(400);
    expect(JSON.stringify(res.json())).toContain(pointer);
  });

  it("answers a stale If-Match with 412 and writes nothing", async () => {
    const res = await jsonPatch([{ op: "replace", path: "/description", value: "x" }], { "if-match": '"1"' });
    expect(res.statusCode).toBe(412);
    expect((await stored()).description).toBe("");
  });

  it("answers more than 1000 operations with 400", async () => {
    const res = await jsonPatch(Array.from({ length: 1001 }, () => ({ op: "test", path: "/description", value: "" })));
    expect(res.statusCode).toBe(400);
  });
});
