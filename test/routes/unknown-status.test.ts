// A Manager answering with a gRPC status code outside 0-16 (a newer or broken protocol): the
// answer is the problem for UNKNOWN, a 500 in problem+json, on a REST route, before an event
// stream starts, and as the last event of a stream that has started.
import { create } from "@bufbuild/protobuf";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { EventStreamEventSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { Metadata } from "@grpc/grpc-js";
import { stubGateway } from "../helpers/stub-manager.js";
import type { StubGateway } from "../helpers/stub-manager.js";

let gw: StubGateway;

beforeAll(async () => {
  // Each test gives deleteJob or eventStream its failure.
  gw = await stubGateway();
});
afterAll(async () => {
  await gw.close();
});
beforeEach(() => {
  gw.manager.reset();
});

/** What a Manager's handler fails with to send status `code`: grpc-js takes any number. */
const unknownCode = (code: number): Error =>
  Object.assign(new Error(`status ${code} from the future`), { code, details: `status ${code} from the future`, metadata: new Metadata() });

const problem500 = (instance: string) => ({
  type: "about:blank",
  title: "Internal Server Error",
  status: 500,
  detail: "internal error; the request id identifies it in the gateway's log",
  instance,
  requestId: "req-1",
  code: "UNKNOWN",
});

describe.each([17, 99])("gRPC status %i", (code) => {
  it("is a problem+json 500 with code UNKNOWN on a REST route", async () => {
    gw.manager.behaviour.deleteJob = () => {
      throw unknownCode(code);
    };
    const res = await gw.app.inject({ method: "DELETE", url: "/v1/jobs/x", headers: { "x-request-id": "req-1" } });
    expect(res.statusCode).toBe(500);
    expect(res.headers["content-type"]).toBe("application/problem+json; charset=utf-8");
    expect(res.json()).toEqual(problem500("/v1/jobs/x"));
  });

  it("is a problem+json 500 when an event stream fails before it starts", async () => {
    // eslint-disable-next-line require-yield -- fails before its first message
    gw.manager.behaviour.eventStream = async function* () {
      await Promise.resolve();
      throw unknownCode(code);
    };
    const res = await gw.app.inject({ method: "GET", url: "/v1/events", headers: { "x-request-id": "req-1" } });
    expect(res.statusCode).toBe(500);
    expect(res.headers["content-type"]).toBe("application/problem+json; charset=utf-8");
    expect(res.json()).toEqual(problem500("/v1/events"));
  });

  it("is the last event, a 500 problem, of a stream that has started", async () => {
    gw.manager.behaviour.eventStream = async function* () {
      yield create(EventStreamEventSchema, { event: { case: "initialDataComplete", value: {} } });
      await Promise.resolve();
      throw unknownCode(code);
    };
    const res = await gw.app.inject({
      method: "GET",
      url: "/v1/events",
      headers: { "x-request-id": "req-1", accept: "application/x-ndjson" },
    });
    expect(res.statusCode).toBe(200);
    const lines = res.body.trimEnd().split("\n").map((line) => JSON.parse(line) as unknown);
    expect(lines).toEqual([
      { event: "initialDataComplete", data: { health: [] } },
      { event: "error", data: problem500("/v1/events") },
    ]);
  });
});
