import { describe, expect, it } from "vitest";
import { status as Code } from "@grpc/grpc-js";
import {
  FAILURES,
  HTTP_STATUS_OF_CODE,
  OTHER_FAILURE_SAMPLE,
  codeName,
  failureAnswered,
  failureOfHttpStatus,
  genericDetail,
  httpStatusOf,
  problemCodeOf,
  problemSample,
  statusDescription,
  statusOf,
} from "../../src/http/status.js";
import type { CodeName, Failure } from "../../src/http/status.js";

// docs/architecture.md, "HTTP surface": grpc-gateway's table.
const TABLE: readonly [Code, number][] = [
  [Code.OK, 200],
  [Code.CANCELLED, 499],
  [Code.UNKNOWN, 500],
  [Code.INVALID_ARGUMENT, 400],
  [Code.DEADLINE_EXCEEDED, 504],
  [Code.NOT_FOUND, 404],
  [Code.ALREADY_EXISTS, 409],
  [Code.PERMISSION_DENIED, 403],
  [Code.UNAUTHENTICATED, 401],
  [Code.RESOURCE_EXHAUSTED, 429],
  [Code.FAILED_PRECONDITION, 400],
  [Code.ABORTED, 409],
  [Code.OUT_OF_RANGE, 400],
  [Code.UNIMPLEMENTED, 501],
  [Code.INTERNAL, 500],
  [Code.UNAVAILABLE, 503],
  [Code.DATA_LOSS, 500],
];

describe("gRPC status to HTTP status", () => {
  it.each(TABLE)("maps code %i to HTTP %i", (code, http) => {
    expect(httpStatusOf(code)).toBe(http);
  });

  it("covers all 17 gRPC codes and nothing else", () => {
    expect(Object.keys(HTTP_STATUS_OF_CODE).map(Number).sort((a, b) => a - b)).toEqual(TABLE.map(([c]) => c).sort((a, b) => a - b));
  });

  it("names codes as gRPC spells them", () => {
    expect(codeName(Code.FAILED_PRECONDITION)).toBe("FAILED_PRECONDITION");
    expect(codeName(Code.NOT_FOUND)).toBe("NOT_FOUND");
  });

  it.each([17, 99, -1])("answers the unknown code %i as UNKNOWN: 500", (value) => {
    // A code outside the enum is what a newer or broken Manager sends, and what this test is about.
    // eslint-disable-next-line @typescript-eslint/no-unsafe-enum-assignment
    const code: Code = value;
    expect(httpStatusOf(code)).toBe(500);
    expect(codeName(code)).toBe("UNKNOWN");
  });
});

// HTTP's own reasons: statuses no gRPC code names (and the 412 the client's own precondition gets).
const REASONS: readonly [Failure, number, CodeName | undefined][] = [
  ["BAD_REQUEST", 400, "INVALID_ARGUMENT"],
  ["PRECONDITION_FAILED", 412, "ABORTED"],
  ["ROUTE_NOT_FOUND", 404, undefined],
  ["FORBIDDEN", 403, undefined],
  ["METHOD_NOT_ALLOWED", 405, undefined],
  ["REQUEST_TIMEOUT", 408, undefined],
  ["CONTENT_TOO_LARGE", 413, undefined],
  ["URI_TOO_LONG", 414, undefined],
  ["UNSUPPORTED_MEDIA_TYPE", 415, undefined],
  ["EXPECTATION_FAILED", 417, undefined],
  ["MISDIRECTED_REQUEST", 421, undefined],
  ["TOO_MANY_REQUESTS", 429, "RESOURCE_EXHAUSTED"],
  ["REQUEST_HEADER_FIELDS_TOO_LARGE", 431, undefined],
  ["INTERNAL_SERVER_ERROR", 500, undefined],
  ["BAD_GATEWAY", 502, "INTERNAL"],
  ["OVERLOADED", 503, "UNAVAILABLE"],
];

describe("the table of failures", () => {
  it.each(TABLE)("answers the gRPC code %i with its status and its own name as the code", (code, http) => {
    const name = codeName(code);
    expect(statusOf(name)).toBe(http);
    expect(problemCodeOf(name)).toBe(name);
  });

  it.each(REASONS)("answers %s with HTTP %i and code %s", (failure, status, code) => {
    expect(statusOf(failure)).toBe(status);
    expect(problemCodeOf(failure)).toBe(code);
  });

  it("has the gRPC codes and these reasons, nothing else", () => {
    expect(Object.keys(FAILURES).sort()).toEqual([...TABLE.map(([code]) => codeName(code)), ...REASONS.map(([name]) => name)].sort());
  });

  it.each(REASONS)("takes a status HTTP chose for its reason: %s", (failure, status) => {
    expect(failureOfHttpStatus(status)).toBe(failure);
  });

  it("has no reason for a status it does not know", () => {
    expect(failureOfHttpStatus(406)).toBeUndefined();
  });

  it.each(Object.keys(FAILURES) as Failure[])("finds %s again from the problem it makes (status and code)", (failure) => {
    const found = failureAnswered(statusOf(failure), problemCodeOf(failure));
    expect(found).toBeDefined();
    expect(statusOf(found ?? "OK")).toBe(statusOf(failure));
    expect(problemCodeOf(found ?? "OK")).toBe(problemCodeOf(failure));
  });
});

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
  [503, "the Manager cannot be reached (UNAVAILABLE), or the gateway is overloaded and refuses new requests (Retry-After says when to try again); try again later"],
  [504, "the Manager did not answer in time: within the request timeout (of a list, its first result), or before the Grpc-Timeout"],
];

describe("what the table says of each status", () => {
  it.each(DESCRIPTIONS)("describes %i", (status, text) => {
    expect(statusDescription(status)).toBe(text);
  });

  it.each([401, 403, 429, 499, 501])("leaves %i to the operation's wording", (status) => {
    expect(statusDescription(status)).toBeUndefined();
  });

  it.each([400, 409])("names in the description of %i exactly the codes answered with it", (status) => {
    const codes = TABLE.filter(([, http]) => http === status).map(([code]) => codeName(code));
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

  it.each([
    [500, "internal error; the request id identifies it in the gateway's log"],
    [501, "the Manager does not implement this operation"],
    [502, "the Manager sent an answer the gateway cannot use"],
    [503, "the Manager is unavailable; try again later"],
    [504, "the Manager did not answer before the deadline"],
  ])("says of every %i only %j", (status, detail) => {
    expect(genericDetail(status)).toBe(detail);
  });

  it("says of the gateway's own overload that it is the gateway's, not the Manager's", () => {
    expect(genericDetail(503, "OVERLOADED")).toBe("the gateway is overloaded; try again after the Retry-After delay");
    expect(genericDetail(503, "UNAVAILABLE")).toBe("the Manager is unavailable; try again later");
    // A failure's own words only for its own status.
    expect(genericDetail(500, "OVERLOADED")).toBe("internal error; the request id identifies it in the gateway's log");
  });
});
