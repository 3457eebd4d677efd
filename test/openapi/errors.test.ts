// The document's wording of the error responses: what each status means, and the problem shown
// as its example (src/openapi/errors.ts).
import { describe, expect, it } from "vitest";
import { status as Code } from "@grpc/grpc-js";
import { isCodeName, statusOf } from "../../src/http/status.js";
import { OTHER_FAILURE_SAMPLE, problemSample, statusDescription } from "../../src/openapi/errors.js";

/** The gRPC code names, in the codes' order. */
const CODES = Object.keys(Code).filter(isCodeName);

// The descriptions of the error responses in openapi.yaml, after the reason phrase.
const DESCRIPTIONS: readonly [number, string][] = [
  [400, "the request is invalid (each problem located in `errors`), or the Manager refused it (INVALID_ARGUMENT, FAILED_PRECONDITION, OUT_OF_RANGE)"],
  [404, "the resource does not exist"],
  [409, "the Manager refused the change: ALREADY_EXISTS, or ABORTED (a concurrent change won)"],
  [412, 'If-Match (or a non-zero currentHash in the body) does not match the job\'s current ETag, or is "0", a version the Manager cannot test; nothing was written'],
  [413, "the request body is larger than the gateway accepts (1 MiB by default)"],
  [415, "the request's Content-Type is not one this operation accepts"],
  [500, "the gateway or the Manager failed; the detail says nothing about internals, the request id finds it in the log"],
  [502, "the Manager sent an answer the gateway cannot use (larger than --max-message-size, undecodable, or holding data JSON cannot carry); the request id finds the cause in the log"],
  [401, 'the request has no valid credentials (a bearer token, an API key or a client certificate; the detail names those the gateway accepts); WWW-Authenticate says error="invalid_token"'],
  [403, "the credentials do not carry the operation's scope (WWW-Authenticate names it), or a cross-site request was refused"],
  [503, "the Manager cannot be reached (UNAVAILABLE), or the gateway is overloaded or shutting down and refuses new requests, or the token issuer's keys cannot be fetched; try again after the Retry-After delay"],
  [504, "the Manager did not answer in time: within the request timeout (of a list, its first result), or before the Grpc-Timeout"],
];

describe("what the document says of each error status", () => {
  it.each(DESCRIPTIONS)("describes %i", (status, text) => {
    expect(statusDescription(status)).toBe(text);
  });

  it.each([429, 499, 501])("leaves %i to the operation's wording", (status) => {
    expect(statusDescription(status)).toBeUndefined();
  });

  it.each([400, 409])("names in the description of %i exactly the codes answered with it", (status) => {
    const codes = CODES.filter((name) => statusOf(name) === status);
    const named = (statusDescription(status) ?? "").match(/\b[A-Z][A-Z_]+[A-Z]\b/g) ?? [];
    expect(named).toEqual(codes);
  });

  it.each([
    [400, "INVALID_ARGUMENT", "Grpc-Timeout must be 1 to 8 digits and a unit (H, M, S, m, u, n), e.g. 500m"],
    [404, "NOT_FOUND", 'job "encoder-1" does not exist'],
    [409, "ALREADY_EXISTS", "a different job with this jobId already exists"],
    [412, "ABORTED", "the job's ETag differs from If-Match"],
    [413, undefined, "Request body is too large"],
    [415, undefined, "Content-Type must be application/json"],
    [500, undefined, "internal error; the request id identifies it in the gateway's log"],
    [502, "INTERNAL", "the Manager sent an answer the gateway cannot use"],
    [503, "UNAVAILABLE", "the Manager is unavailable; try again later"],
    [504, "DEADLINE_EXCEEDED", "the Manager did not answer before the deadline"],
  ])("shows a %i in the document as code %s saying %j", (status, code, detail) => {
    expect(problemSample(status)).toMatchObject({ status, detail });
    expect(problemSample(status)?.code).toBe(code);
  });

  it("locates the example 400's fault, and has no example of a 429 but for the default response", () => {
    expect(problemSample(400)?.errors).toEqual([{ header: "grpc-timeout", message: "is not a valid gRPC timeout" }]);
    expect(problemSample(429)).toBeUndefined();
    expect(OTHER_FAILURE_SAMPLE).toStrictEqual({ status: 429, code: "RESOURCE_EXHAUSTED", detail: "too many requests" });
  });

  it("leaves out a sample's code and errors when it has none, rather than setting them to undefined", () => {
    expect(problemSample(413)).toStrictEqual({ status: 413, detail: "Request body is too large" });
  });
});
