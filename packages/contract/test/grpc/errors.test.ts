// grpc-js's reports of its own process's faults, told apart from a Manager's statuses by their
// exact text (src/grpc/errors.ts, classifyLocal), and how each is answered (toProblem): an
// answer the gateway cannot use is its 502, never the 429 or 500 grpc-js's code would give.
import { describe, expect, it } from "vitest";
import { status as Code } from "@grpc/grpc-js";
import { GrpcError, TooLargeToSendError, UnusableAnswerError, classifyLocal } from "../../src/grpc/errors.js";
import { callError } from "../../src/grpc/dropped.js";
import { UnrepresentableError } from "../../../../src/json/errors.js";
import { toProblem } from "../../../../src/http/problem.js";

const request = { id: "req-1", url: "/v1/jobs/a" };
const BAD_GATEWAY = {
  type: "about:blank",
  title: "Bad Gateway",
  status: 502,
  code: "INTERNAL",
  detail: "the Manager sent an answer the gateway cannot use",
  instance: "/v1/jobs/a",
  requestId: "req-1",
};

describe("classifyLocal", () => {
  it.each([
    [Code.RESOURCE_EXHAUSTED, "Received message larger than max (5242910 vs 4194304)"],
    [Code.RESOURCE_EXHAUSTED, "Received message that decompresses to a size larger than 4194304"],
    [Code.INTERNAL, "Response message parsing error: premature EOF"],
    [Code.INTERNAL, "Failed to decompress gzip-encoded message"],
    [Code.INTERNAL, "Failed to decompress deflate-encoded message"],
  ])("takes %i %j for an unusable answer: a 502 saying nothing of it", (code, details) => {
    // As grpc-js rejects a call: an Error with code, details and metadata.
    const error = callError(Object.assign(new Error(details), { code, details, metadata: new GrpcError(code, "").metadata }));
    expect(error).toBeInstanceOf(UnusableAnswerError);
    expect(error.code).toBe(Code.INTERNAL);
    expect(error.details).toBe(details); // for the log
    expect(toProblem(error, request)).toEqual(BAD_GATEWAY);
  });

  it.each([
    // A grpc-js server's own receive limit ("vs." with a dot): the Manager refused the request.
    [Code.RESOURCE_EXHAUSTED, "Received message larger than max (5242910 vs. 4194304)"],
    [Code.RESOURCE_EXHAUSTED, "quota exceeded"],
    [Code.RESOURCE_EXHAUSTED, "Received message larger than max (5242910 vs 4194304) and more"],
    [Code.INTERNAL, "Response message parsing error"],
    [Code.INTERNAL, "the Manager failed"],
    [Code.UNKNOWN, "Response message parsing error: premature EOF"],
  ])("leaves %i %j as the Manager's status", (code, details) => {
    const error = classifyLocal(new GrpcError(code, details));
    expect(error).not.toBeInstanceOf(UnusableAnswerError);
    expect(error).not.toBeInstanceOf(TooLargeToSendError);
    expect(error.code).toBe(code);
  });

  it("takes grpc-js's send limit for a request too large for this deployment: a 413 naming the setting", () => {
    const error = classifyLocal(new GrpcError(Code.RESOURCE_EXHAUSTED, "Attempted to send message with a size larger than 65536"));
    expect(error).toBeInstanceOf(TooLargeToSendError);
    expect(toProblem(error, request)).toMatchObject({
      status: 413,
      detail: "the request is larger than the gateway may send the Manager (--max-message-size)",
    });
    expect(JSON.stringify(toProblem(error, request))).not.toContain("65536");
  });
});

describe("data the mirror cannot represent", () => {
  it("is the gateway's 502, not the client's 400, and says nothing of the value", () => {
    const error = new UnrepresentableError([{ pointer: "/startDateTime", message: "timestamp {seconds: 253402300800, nanos: 0} is outside 0001-01-01..9999-12-31" }]);
    expect(toProblem(error, request)).toEqual(BAD_GATEWAY);
  });
});
