// The node routes through app.inject against a real reference Manager: every route, its
// success and each documented error, malformed input (nothing reaches the Manager), and the
// deadline behaviour of the job routes (against a Manager that never answers).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { messageToJson } from "../../src/json/index.js";
import { EventStreamEventSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { JSON_HEADERS, startTestGateway } from "../helpers/gateway.js";
import type { TestGateway } from "../helpers/gateway.js";
import { stubGateway, untilAborted } from "../helpers/stub-manager.js";
import type { StubGateway } from "../helpers/stub-manager.js";

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw.close();
});

/** The nodes the Manager knows, from its EventStream's current picture (it has no node search). */
async function managerNodes(): Promise<Record<string, unknown>[]> {
  const nodes: Record<string, unknown>[] = [];
  for await (const message of gw.connection.manager.eventStream({})) {
    if (message.event.case === "initialDataComplete") break;
    if (message.event.case === "nodeRunning" || message.event.case === "physicalNodeConnected") {
      nodes.push(messageToJson(EventStreamEventSchema, message));
    }
  }
  return nodes;
}

async function removeAll(): Promise<void> {
  for (const node of await managerNodes()) {
    const id = (node as { nodeRunning?: { nodeMetadata: { nodeId: string } }; physicalNodeConnected?: { node: { id: string } } });
    const nodeId = id.nodeRunning?.nodeMetadata.nodeId ?? id.physicalNodeConnected?.node.id ?? "";
    await gw.connection.manager.terminateNode({ nodeId });
  }
}

beforeEach(removeAll);

const post = (kind: "aws" | "oci", payload: unknown, headers: Record<string, string> = JSON_HEADERS) =>
  gw.app.inject({ method: "POST", url: `/v1/nodes/${kind}`, headers, payload: typeof payload === "string" ? payload : JSON.stringify(payload) });
const put = (id: string, payload: unknown, headers: Record<string, string> = JSON_HEADERS) =>
  gw.app.inject({ method: "PUT", url: `/v1/physical-nodes/${id}`, headers, payload: typeof payload === "string" ? payload : JSON.stringify(payload) });

describe("POST /v1/nodes/aws", () => {
  it("creates the node: 202 with the request as accepted, the Manager runs it", async () => {
    const res = await post("aws", {
      nodeId: "aws-1",
      tags: { env: "prod" },
      region: "eu-west-1",
      instanceType: "c5.2xlarge",
      template: { name: "norsk-worker", version: "3" },
      workerImageVersion: "latest",
    });
    expect(res.statusCode).toBe(202);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    expect(res.json()).toEqual({
      nodeId: "aws-1",
      tags: { env: "prod" },
      region: "eu-west-1",
      instanceType: "c5.2xlarge",
      template: { name: "norsk-worker", version: "3" },
      workerImageVersion: "latest",
      workerDaemonVersion: "recommended",
    });
    expect(await managerNodes()).toMatchObject([
      {
        nodeRunning: {
          nodeMetadata: { nodeId: "aws-1", tags: { env: "prod" }, providerMetadata: { aws: { region: "eu-west-1", instanceType: "c5.2xlarge" } } },
        },
      },
    ]);
  });

  it("answers an id in use with 409 ALREADY_EXISTS, also across kinds", async () => {
    expect((await post("aws", { nodeId: "n" })).statusCode).toBe(202);
    for (const kind of ["aws", "oci"] as const) {
      const res = await post(kind, { nodeId: "n" });
      expect(res.statusCode).toBe(409);
      expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
      expect(res.json()).toMatchObject({ status: 409, code: "ALREADY_EXISTS", instance: `/v1/nodes/${kind}` });
    }
  });
});

describe("POST /v1/nodes/oci", () => {
  it("creates the node: 202 with every field of the request", async () => {
    const res = await post("oci", { nodeId: "oci-1", availabilityDomain: "AD-1", shape: "VM.Standard.E4.Flex", subnet: "s", architecture: "aarch_64" });
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({
      nodeId: "oci-1",
      tags: {},
      availabilityDomain: "AD-1",
      architecture: "aarch_64",
      shape: "VM.Standard.E4.Flex",
      subnet: "s",
      workerImageVersion: "recommended",
      workerDaemonVersion: "recommended",
    });
    expect(await managerNodes()).toMatchObject([{ nodeRunning: { nodeMetadata: { nodeId: "oci-1", providerMetadata: { oci: {} } } } }]);
  });
});

describe("DELETE /v1/nodes/{nodeId}", () => {
  it("terminates a cloud node: 202, no body; the Manager forgets it", async () => {
    await post("aws", { nodeId: "tenant/n 1" });
    const res = await gw.app.inject({ method: "DELETE", url: "/v1/nodes/tenant%2Fn%201" });
    expect(res.statusCode).toBe(202);
    expect(res.body).toBe("");
    expect(await managerNodes()).toEqual([]);
  });

  it("terminates a physical node too", async () => {
    await put("rack-1", { daemonVersion: "1" });
    expect((await gw.app.inject({ method: "DELETE", url: "/v1/nodes/rack-1" })).statusCode).toBe(202);
    expect(await managerNodes()).toEqual([]);
  });

  it("answers an unknown node with 404 NOT_FOUND", async () => {
    const res = await gw.app.inject({ method: "DELETE", url: "/v1/nodes/ghost" });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ status: 404, code: "NOT_FOUND", detail: 'node "ghost" does not exist', instance: "/v1/nodes/ghost" });
  });
});

describe("PUT /v1/physical-nodes/{id}", () => {
  it("registers, then updates, a physical node: 200 with the update as applied", async () => {
    const first = await put("rack-7", { daemonVersion: "1.0.384" });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ id: "rack-7", daemonVersion: "1.0.384" });
    const again = await put("rack-7", { id: "rack-7", daemonVersion: "1.0.385" });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({ id: "rack-7", daemonVersion: "1.0.385" });
    expect(await managerNodes()).toEqual([{ physicalNodeConnected: { node: { id: "rack-7", tags: {}, ipAddress: "" }, instances: [] } }]);
  });

  it("takes an empty body as 'no daemon version'", async () => {
    const res = await put("rack-8", {});
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id: "rack-8", daemonVersion: "" });
  });

  it("refuses an id that is a cloud node's with 400 FAILED_PRECONDITION", async () => {
    await post("aws", { nodeId: "cloud" });
    const res = await put("cloud", { daemonVersion: "1" });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ status: 400, code: "FAILED_PRECONDITION" });
  });
});

interface BadCase {
  readonly name: string;
  readonly method: "POST" | "PUT" | "DELETE";
  readonly url: string;
  readonly body?: string;
  readonly headers?: Record<string, string>;
  readonly status: number;
  /** The pointer, parameter or header the problem names, or text in its detail. */
  readonly names: string;
}

const aws = (body: unknown, extra: Partial<BadCase> = {}) => ({ method: "POST" as const, url: "/v1/nodes/aws", body: JSON.stringify(body), ...extra });
const oci = (body: unknown) => ({ method: "POST" as const, url: "/v1/nodes/oci", body: JSON.stringify(body) });
const phys = (body: unknown, id = "rack-9") => ({ method: "PUT" as const, url: `/v1/physical-nodes/${id}`, body: JSON.stringify(body) });

const BAD: BadCase[] = [
  { name: "aws: no nodeId", ...aws({ region: "eu-west-1" }), status: 400, names: "/nodeId" },
  { name: "aws: empty nodeId", ...aws({ nodeId: "" }), status: 400, names: "/nodeId" },
  { name: "aws: nodeId a number", ...aws({ nodeId: 7 }), status: 400, names: "/nodeId" },
  { name: "aws: unknown property", ...aws({ nodeId: "x", colour: "red" }), status: 400, names: "/colour" },
  { name: "aws: tags not strings", ...aws({ nodeId: "x", tags: { a: 1 } }), status: 400, names: "/tags/a" },
  { name: "aws: unknown worker version", ...aws({ nodeId: "x", workerImageVersion: "newest" }), status: 400, names: "/workerImageVersion" },
  { name: "aws: known version as a number", ...aws({ nodeId: "x", workerDaemonVersion: 1 }), status: 400, names: "/workerDaemonVersion" },
  { name: "aws: template by id and name", ...aws({ nodeId: "x", template: { id: "lt-1", name: "t" } }), status: 400, names: "/template" },
  { name: "aws: template unknown property", ...aws({ nodeId: "x", template: { ami: "a" } }), status: 400, names: "/template" },
  { name: "aws: body an array", ...aws([{ nodeId: "x" }]), status: 400, names: "body" },
  { name: "aws: invalid JSON", method: "POST", url: "/v1/nodes/aws", body: '{"nodeId": ', status: 400, names: "JSON" },
  { name: "aws: __proto__ key", method: "POST", url: "/v1/nodes/aws", body: '{"nodeId": "x", "__proto__": {"a": 1}}', status: 400, names: "" },
  { name: "aws: wrong content type", ...aws({ nodeId: "x" }, { headers: { "content-type": "text/plain" } }), status: 415, names: "content-type" },
  { name: "aws: merge patch content type", ...aws({ nodeId: "x" }, { headers: { "content-type": "application/merge-patch+json" } }), status: 415, names: "content-type" },
  { name: "aws: bad Grpc-Timeout", ...aws({ nodeId: "x" }, { headers: { "content-type": "application/json", "grpc-timeout": "soon" } }), status: 400, names: "grpc-timeout" },
  { name: "oci: no nodeId", ...oci({ shape: "s" }), status: 400, names: "/nodeId" },
  { name: "oci: architecture not a string", ...oci({ nodeId: "x", architecture: 64 }), status: 400, names: "/architecture" },
  { name: "oci: null nodeId", ...oci({ nodeId: null }), status: 400, names: "/nodeId" },
  { name: "physical: id differs from the path", ...phys({ id: "other" }), status: 400, names: "/id" },
  { name: "physical: daemonVersion a number", ...phys({ daemonVersion: 1 }), status: 400, names: "/daemonVersion" },
  { name: "physical: unknown property", ...phys({ ipAddress: "192.0.2.1" }), status: 400, names: "/ipAddress" },
  { name: "physical: id too long", ...phys({}, "r".repeat(300)), status: 400, names: "id" },
  { name: "physical: no body, no content type", method: "PUT", url: "/v1/physical-nodes/rack-9", status: 415, names: "content-type" },
  { name: "physical: empty JSON body", method: "PUT", url: "/v1/physical-nodes/rack-9", body: "", headers: JSON_HEADERS, status: 400, names: "" },
  { name: "terminate: id too long", method: "DELETE", url: `/v1/nodes/${"n".repeat(300)}`, status: 400, names: "nodeId" },
  { name: "terminate: bad Grpc-Timeout", method: "DELETE", url: "/v1/nodes/x", headers: { "grpc-timeout": "1 S" }, status: 400, names: "grpc-timeout" },
];

describe("malformed node requests", () => {
  it.each(BAD)("$name → $status", async (c) => {
    const before = await managerNodes();
    const res = await gw.app.inject({
      method: c.method,
      url: c.url,
      headers: c.headers ?? (c.body === undefined ? {} : JSON_HEADERS),
      ...(c.body === undefined ? {} : { payload: c.body }),
    });
    expect(res.statusCode).toBe(c.status);
    expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
    const problem = res.json<{ status: number; detail: string; errors?: { pointer?: string; parameter?: string; header?: string }[] }>();
    expect(problem.status).toBe(c.status);
    const named = [problem.detail, ...(problem.errors ?? []).map((e) => e.pointer ?? e.parameter ?? e.header ?? "")].join(" ");
    expect(named).toContain(c.names);
    expect(await managerNodes()).toEqual(before);
  });
});

describe("node calls: deadlines and metadata, as for jobs", () => {
  let fake: StubGateway;
  beforeAll(async () => {
    // Every node call hangs until the gateway gives up on it.
    const hang = async (_request: unknown, context: { signal: AbortSignal }) => {
      await untilAborted(context.signal);
      return {};
    };
    fake = await stubGateway(
      { createAwsNode: hang, createOciNode: hang, terminateNode: hang, updatePhysicalNode: hang },
      { requestTimeoutMs: 1_000 },
    );
  });
  afterAll(async () => {
    await fake.close();
  });

  it.each([
    ["POST", "/v1/nodes/aws", '{"nodeId":"x"}', "CreateAwsNode"],
    ["POST", "/v1/nodes/oci", '{"nodeId":"x"}', "CreateOciNode"],
    ["DELETE", "/v1/nodes/x", undefined, "TerminateNode"],
    ["PUT", "/v1/physical-nodes/x", "{}", "UpdatePhysicalNode"],
  ] as const)("%s %s: the configured deadline, shortened by Grpc-Timeout, then 504", async (method, url, body, rpc) => {
    for (const [header, limit] of [[undefined, 1_000], ["200m", 200]] as const) {
      fake.manager.calls.length = 0;
      const sent = Date.now();
      const res = await fake.app.inject({
        method,
        url,
        headers: { ...(body === undefined ? {} : JSON_HEADERS), ...(header === undefined ? {} : { "grpc-timeout": header }), "x-request-id": "req-1" },
        ...(body === undefined ? {} : { payload: body }),
      });
      expect(res.statusCode).toBe(504);
      expect(res.json()).toMatchObject({ status: 504, code: "DEADLINE_EXCEEDED", requestId: "req-1" });
      const [call] = fake.manager.calls;
      expect(call?.method).toBe(rpc);
      // The deadline as the Manager received the call: the limit, less the time on the way.
      const left = (call?.deadline ?? Infinity) - (call?.at ?? 0);
      expect(left).toBeLessThanOrEqual(limit + 20);
      expect(left).toBeGreaterThan(limit - 500);
      expect(Date.now() - sent).toBeGreaterThanOrEqual(limit - 20);
      expect(call?.metadata.get("x-request-id")).toBe("req-1");
    }
  });
});
