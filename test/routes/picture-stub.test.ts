// The reads from the Manager's picture (GET /v1/nodes, /v1/nodes/{nodeId}, /v1/health,
// /v1/jobs/{jobId}/activity) against a stub Manager whose picture is exact: nodes of every
// kind, an empty picture, the providers' health, and Managers whose picture is unusable (never
// completed: 504 at the deadline; ended early, too large, not parsing: 502).
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { CurrentJobSchema, EventStreamEventSchema, Health, Job_JobState } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { EventStreamEvent, EventStreamRequest } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { Architecture } from "norsk-manager-contract/gen/norsk/api/common_pb.js";
import { stubGateway, untilAborted } from "../helpers/stub-manager.js";
import type { StubGateway } from "../helpers/stub-manager.js";

const event = (value: MessageInitShape<typeof EventStreamEventSchema>["event"]): EventStreamEvent => create(EventStreamEventSchema, { event: value });
const instance = (jobId: string, nodeId: string) => ({ jobKey: { jobId: { jobId }, role: "primary" }, nodeId: { nodeId } });

/** A picture with a node of every kind the picture can describe, and the providers' health. */
const EVERY_KIND: EventStreamEvent[] = [
  event({
    case: "nodeRunning",
    value: {
      nodeMetadata: {
        nodeId: { nodeId: "aws-1" },
        tags: { env: "prod", team: "a" },
        createdAt: { seconds: 1_766_595_600n, nanos: 5 },
        providerMetadata: { metadata: { case: "aws", value: { instanceType: "c5.large", region: "eu-west-1", architecture: Architecture.AARCH_64 } } },
      },
      runningNodeMetadata: {
        publicDnsName: "ec2.example",
        privateDnsName: "",
        privateIpAddress: "10.0.0.1",
        publicIpAddress: "",
        providerMetadata: { instance: { case: "aws", value: { instanceId: "i-1" } } },
      },
      instances: [instance("encoder-1", "aws-1")],
    },
  }),
  event({ case: "nodeRunning", value: { nodeMetadata: { nodeId: { nodeId: "oci-1" }, tags: { env: "dev" }, providerMetadata: { metadata: { case: "oci", value: {} } } } } }),
  event({
    case: "nodeRunning",
    value: { nodeMetadata: { nodeId: { nodeId: "test-1" }, providerMetadata: { metadata: { case: "test", value: { region: "r", instanceType: "t" } } } } },
  }),
  // A cloud node whose provider the Manager does not say: no cloud.
  event({ case: "nodeRunning", value: { nodeMetadata: { nodeId: { nodeId: "bare-1" } } } }),
  event({ case: "physicalNodeConnected", value: { node: { id: "rack-7", tags: { env: "prod" }, ipAddress: "192.0.2.7" }, instances: [instance("encoder-2", "rack-7")] } }),
  event({
    case: "initialDataComplete",
    value: {
      health: [
        { health: { case: "aws", value: { regionHealth: [{ region: "eu-west-1", health: Health.UNSTABLE }] } } },
        { health: { case: "oci", value: { regionHealth: [{ availabilityDomain: "AD-1", health: Health.HEALTHY }] } } },
      ],
    },
  }),
];

const NODE_AWS = {
  nodeId: "aws-1",
  cloud: "aws",
  state: "running",
  tags: { env: "prod", team: "a" },
  nodeMetadata: {
    nodeId: "aws-1",
    tags: { env: "prod", team: "a" },
    createdAt: "2025-12-24T17:00:00.000000005Z",
    providerMetadata: { aws: { instanceType: "c5.large", region: "eu-west-1", architecture: "aarch_64" } },
  },
  runningNodeMetadata: { publicDnsName: "ec2.example", privateDnsName: "", privateIpAddress: "10.0.0.1", publicIpAddress: "", providerMetadata: { aws: { instanceId: "i-1" } } },
  instances: [{ jobKey: { jobId: "encoder-1", role: "primary" }, nodeId: "aws-1" }],
};
const NODE_OCI = { nodeId: "oci-1", cloud: "oci", state: "running", tags: { env: "dev" }, nodeMetadata: { nodeId: "oci-1", tags: { env: "dev" }, providerMetadata: { oci: {} } }, instances: [] };
const NODE_TEST = {
  nodeId: "test-1",
  cloud: "test",
  state: "running",
  tags: {},
  nodeMetadata: { nodeId: "test-1", tags: {}, providerMetadata: { test: { instanceType: "t", region: "r", architecture: "x86_64" } } },
  instances: [],
};
const NODE_BARE = { nodeId: "bare-1", state: "running", tags: {}, nodeMetadata: { nodeId: "bare-1", tags: {} }, instances: [] };
const NODE_RACK = {
  nodeId: "rack-7",
  cloud: "physical",
  state: "connected",
  tags: { env: "prod" },
  physicalNode: { id: "rack-7", tags: { env: "prod" }, ipAddress: "192.0.2.7" },
  instances: [{ jobKey: { jobId: "encoder-2", role: "primary" }, nodeId: "rack-7" }],
};

let picture: EventStreamEvent[] = EVERY_KIND;
let gw: StubGateway;

beforeAll(async () => {
  gw = await stubGateway(
    {
      // The picture, then live events held open, as a Manager's EventStream is.
      eventStream: async function* (_request, context) {
        for (const each of picture) yield each;
        yield event({ case: "jobDeleted", value: { jobId: { jobId: "later" } } });
        await untilAborted(context.signal);
      },
    },
    { requestTimeoutMs: 1_000, pictureLimitBytes: 4_096 },
  );
});
afterAll(async () => {
  await gw.close();
});
afterEach(() => {
  picture = EVERY_KIND;
  gw.manager.reset();
});

const get = (url: string) => gw.app.inject({ method: "GET", url });

describe("GET /v1/nodes from an exact picture", () => {
  it("lists a node of every kind, cloud nodes then physical ones, each as the picture describes it", async () => {
    const res = await get("/v1/nodes");
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ nodes: [NODE_AWS, NODE_OCI, NODE_TEST, NODE_BARE, NODE_RACK] });
  });

  it("asks the Manager for the picture without a pending window, and ends the call once it is complete", async () => {
    await get("/v1/nodes");
    const calls = gw.manager.calls.filter((call) => call.method === "EventStream");
    expect(calls).toHaveLength(1);
    expect((calls[0]?.request as EventStreamRequest).pendingWindowS).toBe(0);
    expect(calls[0]?.deadline).toBeDefined();
  });

  it("filters by cloud (any of), state (any of) and tag (all of)", async () => {
    const ids = async (query: string) => (await get(`/v1/nodes?${query}`)).json<{ nodes: { nodeId: string }[] }>().nodes.map((node) => node.nodeId);
    expect(await ids("cloud=aws")).toEqual(["aws-1"]);
    expect(await ids("cloud=oci&cloud=physical")).toEqual(["oci-1", "rack-7"]);
    expect(await ids("state=connected")).toEqual(["rack-7"]);
    expect(await ids("state=running")).toEqual(["aws-1", "oci-1", "test-1", "bare-1"]);
    expect(await ids("tag=env:prod")).toEqual(["aws-1", "rack-7"]);
    expect(await ids("tag=env:prod&tag=team:a")).toEqual(["aws-1"]);
    expect(await ids("tag=env:prod&state=connected")).toEqual(["rack-7"]);
    expect(await ids("tag=env:")).toEqual([]);
    expect(await ids("tag=nothing:x")).toEqual([]);
  });

  it("answers an empty picture with no nodes and no health", async () => {
    picture = [event({ case: "initialDataComplete", value: {} })];
    expect((await get("/v1/nodes")).json()).toEqual({ nodes: [] });
    expect((await get("/v1/health")).json()).toEqual({ health: [] });
    expect((await get("/v1/nodes/aws-1")).statusCode).toBe(404);
  });

  it("refuses a filter it does not know, naming the parameter, and asks the Manager nothing", async () => {
    for (const query of ["cloud=gcp", "state=starting", "tag=env", "tag=:x", "nodeId=x", `cloud=${Array.from({ length: 33 }, () => "aws").join("&cloud=")}`]) {
      const res = await get(`/v1/nodes?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.headers["content-type"]).toBe("application/problem+json; charset=utf-8");
      const problem = res.json<{ errors: { parameter?: string }[] }>();
      expect(problem.errors[0]?.parameter, query).toBe(query.split("=")[0]);
    }
    expect(gw.manager.calls).toEqual([]);
  });
});

describe("GET /v1/nodes/{nodeId} from an exact picture", () => {
  it("answers each node, cloud or physical, as the list does", async () => {
    for (const node of [NODE_AWS, NODE_OCI, NODE_TEST, NODE_BARE, NODE_RACK]) {
      const res = await get(`/v1/nodes/${node.nodeId}`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(node);
    }
  });

  it("answers a node not in the picture with a 404 problem naming it", async () => {
    const res = await get("/v1/nodes/gone-1");
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ status: 404, code: "NOT_FOUND", detail: 'node "gone-1" is not in the Manager\'s picture' });
  });
});

describe("GET /v1/health from an exact picture", () => {
  it("answers the providers' health of initialDataComplete", async () => {
    const res = await get("/v1/health");
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      health: [{ aws: { regionHealth: [{ region: "eu-west-1", health: "unstable" }] } }, { oci: { regionHealth: [{ availabilityDomain: "AD-1", health: "healthy" }] } }],
    });
  });
});

describe("GET /v1/jobs/{jobId}/activity from an exact picture", () => {
  const job = (jobId: string, state: Job_JobState, start: Date) => create(CurrentJobSchema, { job: { jobId: { jobId }, state, startDateTime: timestampFromDate(start) } });

  it("finds the job by JobSearch, then reads the picture with a pending window reaching a pre job's start", async () => {
    const start = new Date(Date.now() + 3_600_000);
    gw.manager.behaviour.jobSearch = async function* () {
      await Promise.resolve();
      yield job("encoder-9", Job_JobState.PRE, start);
    };
    const withHistory = { job: { jobId: { jobId: "encoder-9" }, state: Job_JobState.PRE }, historyEntry: [{ historyEntry: { case: "jobCreated" as const, value: {} } }] };
    picture = [
      event({ case: "jobActive", value: { jobWithHistory: { job: { jobId: { jobId: "other" } } } } }),
      event({ case: "jobPending", value: { jobWithHistory: withHistory } }),
      event({ case: "initialDataComplete", value: {} }),
    ];
    const res = await get("/v1/jobs/encoder-9/activity");
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ jobId: "encoder-9", activity: "pending", jobWithHistory: { job: { jobId: "encoder-9", state: "pre" }, historyEntry: [{ jobCreated: {} }] } });
    const window = (gw.manager.calls.find((call) => call.method === "EventStream")?.request as EventStreamRequest).pendingWindowS;
    expect(window).toBeGreaterThanOrEqual(3_599);
    expect(window).toBeLessThanOrEqual(3_601);
  });

  it("answers a job the picture holds neither active nor pending as activity none, without history", async () => {
    gw.manager.behaviour.jobSearch = async function* () {
      await Promise.resolve();
      yield job("encoder-9", Job_JobState.POST, new Date(0));
    };
    const res = await get("/v1/jobs/encoder-9/activity");
    expect(res.json()).toEqual({ jobId: "encoder-9", activity: "none" });
    expect((gw.manager.calls.find((call) => call.method === "EventStream")?.request as EventStreamRequest).pendingWindowS).toBe(0);
  });

  it("answers a job that does not exist with a 404, without reading the picture", async () => {
    gw.manager.behaviour.jobSearch = async function* () {
      // No job matches.
    };
    const res = await get("/v1/jobs/nobody/activity");
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: "NOT_FOUND" });
    expect(gw.manager.calls.map((call) => call.method)).toEqual(["JobSearch"]);
  });
});

describe("a picture the gateway cannot use", () => {
  it("is a 504 at the deadline when the Manager never completes its picture", async () => {
    picture = [EVERY_KIND[0] as EventStreamEvent];
    gw.manager.behaviour.eventStream = async function* (_request, context) {
      yield EVERY_KIND[0] as EventStreamEvent;
      await untilAborted(context.signal);
    };
    const started = Date.now();
    const res = await get("/v1/nodes");
    expect(res.statusCode).toBe(504);
    expect(res.json()).toMatchObject({ code: "DEADLINE_EXCEEDED", detail: "the Manager did not answer before the deadline" });
    // The deadline is the request timeout (1 s here), not a wait for ever.
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
  });

  it("is a 502 when the stream ends before initialDataComplete", async () => {
    gw.manager.behaviour.eventStream = async function* () {
      await Promise.resolve();
      yield EVERY_KIND[0] as EventStreamEvent;
    };
    const res = await get("/v1/health");
    expect(res.statusCode).toBe(502);
    expect(res.json()).toMatchObject({ code: "INTERNAL", detail: "the Manager sent an answer the gateway cannot use" });
  });

  it("is a 502 when the picture is larger than the gateway reads, however it goes on", async () => {
    const big = event({ case: "physicalNodeConnected", value: { node: { id: "rack-big", tags: { blob: "x".repeat(5_000) } } } });
    picture = [big, ...EVERY_KIND];
    const res = await get("/v1/nodes");
    expect(res.statusCode).toBe(502);
    expect(JSON.stringify(res.json())).not.toContain("bytes");
  });
});
