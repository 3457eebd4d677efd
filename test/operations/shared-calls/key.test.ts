// The one key of a shared call (src/operations/shared-calls/key.ts): equal exactly when two
// calls would ask the Manager the same thing.
import { describe, expect, it } from "vitest";
import { Manager } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { metadataKey, namedCallKey, sharedCallKey } from "../../../src/operations/shared-calls/key.js";

const byId = (jobId: string) => ({ jobFilter: [{ jobFilter: { case: "idFilter" as const, value: { comparison: { case: "eq" as const, value: jobId } } } }] });

describe("metadataKey", () => {
  it("leaves out the request id and trace context, which differ per request", () => {
    expect(metadataKey({ "x-request-id": "a", traceparent: "00-1-2-01", tracestate: "x=1" })).toBe(metadataKey({ "x-request-id": "b" }));
  });

  it("keeps Authorization and forwarded metadata, whatever their order", () => {
    expect(metadataKey({ authorization: "Bearer a" })).not.toBe(metadataKey({ authorization: "Bearer b" }));
    expect(metadataKey({ tenant: "t1", authorization: "x" })).toBe(metadataKey({ authorization: "x", tenant: "t1" }));
    expect(metadataKey({ tenant: "t1" })).not.toBe(metadataKey({}));
  });
});

describe("sharedCallKey", () => {
  it("is the same for the same method, request and metadata, the per-request entries aside", () => {
    expect(sharedCallKey(Manager.method.jobSearch, byId("a"), { "x-request-id": "1", authorization: "x" })).toBe(
      sharedCallKey(Manager.method.jobSearch, byId("a"), { "x-request-id": "2", authorization: "x" }),
    );
  });

  it("differs when the request differs, however little", () => {
    expect(sharedCallKey(Manager.method.jobSearch, byId("a"), {})).not.toBe(sharedCallKey(Manager.method.jobSearch, byId("b"), {}));
    expect(sharedCallKey(Manager.method.eventStream, { pendingWindowS: 0 }, {})).not.toBe(sharedCallKey(Manager.method.eventStream, { pendingWindowS: 5 }, {}));
  });

  it("differs between methods with the same (empty) request", () => {
    expect(sharedCallKey(Manager.method.eventStream, {}, {})).not.toBe(sharedCallKey(Manager.method.createStatusChannel, {}, {}));
  });

  it("differs when the forwarded metadata differs", () => {
    expect(sharedCallKey(Manager.method.jobSearch, byId("a"), { authorization: "Bearer a" })).not.toBe(
      sharedCallKey(Manager.method.jobSearch, byId("a"), { authorization: "Bearer b" }),
    );
  });

  it("cannot be forged by a request whose bytes end like a metadata key", () => {
    // The id's bytes are followed by a NUL and the metadata: an id that carries the NUL and a
    // would-be metadata entry must not make the key of another call.
    const forged = sharedCallKey(Manager.method.jobSearch, byId("a"), { authorization: "x" });
    const other = sharedCallKey(Manager.method.jobSearch, byId("a\u0000authorization\u0000x\u0000"), {});
    expect(forged).not.toBe(other);
  });
});

describe("namedCallKey", () => {
  it("is one key for one name whatever the per-request metadata, and another for another name", () => {
    expect(namedCallKey(Manager.method.jobSearch, "a", { "x-request-id": "1", authorization: "x" })).toBe(
      namedCallKey(Manager.method.jobSearch, "a", { "x-request-id": "2", traceparent: "t", authorization: "x" }),
    );
    expect(namedCallKey(Manager.method.jobSearch, "a", {})).not.toBe(namedCallKey(Manager.method.jobSearch, "b", {}));
    expect(namedCallKey(Manager.method.jobSearch, "a", { authorization: "Bearer a" })).not.toBe(namedCallKey(Manager.method.jobSearch, "a", { authorization: "Bearer b" }));
  });

  it("cannot be forged by a name that ends like a metadata entry", () => {
    const forged = namedCallKey(Manager.method.jobSearch, "a", { authorization: "x" });
    expect(namedCallKey(Manager.method.jobSearch, "a\u0000authorization\u0000x", {})).not.toBe(forged);
    expect(namedCallKey(Manager.method.jobSearch, "a\u0000authorization\u0000x\u0000", {})).not.toBe(forged);
  });

  it("never equals a sharedCallKey", () => {
    expect(namedCallKey(Manager.method.jobSearch, "", {})).not.toBe(sharedCallKey(Manager.method.jobSearch, {}, {}));
  });
});

