// Every method of the Manager service has an HTTP route, so a new RPC in proto/ cannot be
// forgotten: the test walks the generated descriptor (Manager.methods) and, for each method,
// sends the request of its route (ROUTES) to a gateway whose Manager records the calls it
// receives; the call must arrive, and the route must succeed. The routes table of
// docs/reference/http-api.md must name every method too (and the OpenAPI document, once the
// gateway serves one).
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Manager } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { emptyPicture, statusHello, stubGateway } from "../helpers/stub-manager.js";
import type { ManagerStub, StubGateway } from "../helpers/stub-manager.js";

interface RouteRequest {
  readonly method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  readonly url: string;
  readonly payload?: unknown;
}

const job = { jobId: "j", startDateTime: "2026-01-01T00:00:00Z" };

/** The HTTP route of each RPC (routes that also use JobSearch or UpdateJob, such as PATCH, aside). */
const ROUTES: Readonly<Record<string, RouteRequest>> = {
  CreateStatusChannel: { method: "GET", url: "/v1/status" },
  CreateJob: { method: "POST", url: "/v1/jobs", payload: job },
  UpdateJob: { method: "PUT", url: "/v1/jobs/j", payload: job },
  DeleteJob: { method: "DELETE", url: "/v1/jobs/j" },
  JobSearch: { method: "GET", url: "/v1/jobs" },
  CreateAwsNode: { method: "POST", url: "/v1/nodes/aws", payload: { nodeId: "n" } },
  CreateOciNode: { method: "POST", url: "/v1/nodes/oci", payload: { nodeId: "n" } },
  UpdatePhysicalNode: { method: "PUT", url: "/v1/physical-nodes/n", payload: {} },
  TerminateNode: { method: "DELETE", url: "/v1/nodes/n" },
  StartJob: { method: "POST", url: "/v1/jobs/j/instances", payload: { role: "primary", nodeId: "n" } },
  StopJob: { method: "DELETE", url: "/v1/jobs/j/instances/primary?nodeId=n" },
  CompleteJob: { method: "POST", url: "/v1/jobs/j/complete" },
  EventStream: { method: "GET", url: "/v1/events" },
};

/**
 * This test calls every RPC, so it names every one, each answering as plainly as it can; a new
 * RPC answers UNIMPLEMENTED here (and the test fails) until it has its route and its line.
 */
const MANAGER: ManagerStub = {
  createStatusChannel: statusHello,
  createJob: () => ({ hash: 1n }),
  updateJob: () => ({ hash: 1n }),
  deleteJob: () => ({}),
  // eslint-disable-next-line @typescript-eslint/require-await -- nothing found
  jobSearch: async function* () {
    yield* [];
  },
  createAwsNode: () => ({}),
  createOciNode: () => ({}),
  updatePhysicalNode: () => ({}),
  terminateNode: () => ({}),
  startJob: () => ({}),
  stopJob: () => ({}),
  completeJob: () => ({}),
  eventStream: emptyPicture,
};

let gw: StubGateway;

beforeAll(async () => {
  gw = await stubGateway(MANAGER);
});
afterAll(async () => {
  await gw.close();
});
beforeEach(() => {
  gw.manager.reset();
});

function send(route: RouteRequest) {
  return gw.app.inject({
    method: route.method,
    url: route.url,
    ...(route.payload === undefined ? {} : { headers: { "content-type": "application/json" }, payload: JSON.stringify(route.payload) }),
  });
}

const methods = Manager.methods.map((method) => [method.name, method] as const);

describe("every Manager RPC has an HTTP route", () => {
  it("walks a service that has methods", () => {
    expect(methods.length).toBeGreaterThanOrEqual(13);
  });

  it.each(methods)("%s is reached over HTTP", async (name) => {
    const route = ROUTES[name];
    expect(route, `no HTTP route listed for the RPC ${name}`).toBeDefined();
    if (route === undefined) return;
    const res = await send(route);
    expect(res.statusCode, res.body).toBeLessThan(300);
    expect(gw.manager.calls.map((call) => call.method)).toContain(name);
  });

  it("lists no route for an RPC the service does not have", () => {
    expect(Object.keys(ROUTES).sort()).toEqual(methods.map(([name]) => name).sort());
  });

  it.each(methods)("%s is in the routes table of docs/reference/http-api.md", async (name) => {
    const reference = await readFile("docs/reference/http-api.md", "utf8");
    const start = reference.indexOf("## Routes");
    const table = reference.slice(start, reference.indexOf("\n## ", start + 1));
    const rows = table.split("\n").filter((line) => line.startsWith("|"));
    expect(rows.some((row) => row.split("|")[2]?.includes(name)), `the routes table has no row for ${name}`).toBe(true);
  });

  it("gives every RPC an operation of its own name in the OpenAPI document, once there is one", async (context) => {
    const res = await gw.app.inject({ method: "GET", url: "/openapi.json" });
    if (res.statusCode === 404) {
      context.skip("the gateway serves no /openapi.json yet");
      return;
    }
    const document = res.json<{ paths: Record<string, Record<string, { operationId?: string; summary?: string }>> }>();
    const operations = Object.values(document.paths).flatMap((path) => Object.values(path));
    for (const [name, method] of methods) {
      const operation = operations.find((op) => op.operationId === method.localName);
      expect(operation, `no operation ${method.localName} for ${name}`).toBeDefined();
      expect(operation?.summary, `${method.localName}: summary`).toEqual(expect.any(String));
    }
  });
});
