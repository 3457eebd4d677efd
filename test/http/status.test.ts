import { describe, expect, it } from "vitest";
import { status as Code } from "@grpc/grpc-js";
import { OWN_FAILURES, codeName, httpStatusFromCode, ownFailureOfStatus, problemCodeOf, redactedDetail, statusOf } from "../../src/http/status.js";
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
    expect(httpStatusFromCode(code)).toBe(http);
  });

  it("covers all 17 gRPC codes", () => {
    expect(TABLE.map(([code]) => code).sort((a, b) => a - b)).toEqual([...Array(17).keys()]);
  });

  it("names codes as gRPC spells them", () => {
    expect(codeName(Code.FAILED_PRECONDITION)).toBe("FAILED_PRECONDITION");
    expect(codeName(Code.NOT_FOUND)).toBe("NOT_FOUND");
  });

  it.each([17, 99, -1])("answers the unknown code %i as UNKNOWN: 500", (value) => {
    // A code outside the enum is what a newer or broken Manager sends, and what this test is about.
    // eslint-disable-next-line @typescript-eslint/no-unsafe-enum-assignment
    const code: Code = value;
    expect(httpStatusFromCode(code)).toBe(500);
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
  ["SHUTTING_DOWN", 503, "UNAVAILABLE"],
  ["AUTH_KEYS_UNAVAILABLE", 503, "UNAVAILABLE"],
  ["AUDIT_LOG_UNWRITABLE", 500, "INTERNAL"],
  ["NOT_ACCEPTABLE", 406, undefined],
  ["PATCH_CONFLICT", 409, "FAILED_PRECONDITION"],
];

describe("the failures: gRPC codes and the gateway's own", () => {
  it.each(TABLE)("answers the gRPC code %i with its status and its own name as the code", (code, http) => {
    const name = codeName(code);
    expect(statusOf(name)).toBe(http);
    expect(problemCodeOf(name)).toBe(name);
  });

  it.each(REASONS)("answers %s with HTTP %i and code %s", (failure, status, code) => {
    expect(statusOf(failure)).toBe(status);
    expect(problemCodeOf(failure)).toBe(code);
  });

  it("has these own failures, nothing else", () => {
    expect(Object.keys(OWN_FAILURES).sort()).toEqual(REASONS.map(([name]) => name).sort());
  });

  it.each(REASONS.filter(([, status]) => status < 500))("takes a 4xx HTTP chose for the own failure of its status: %s", (failure, status) => {
    expect(ownFailureOfStatus(status)).toBe(failure);
  });

  it("has no own failure for a status it does not know", () => {
    expect(ownFailureOfStatus(418)).toBeUndefined();
  });
});

describe("what a 5xx says", () => {
  it.each([
    ["UNKNOWN", "internal error; the request id identifies it in the gateway's log"],
    ["INTERNAL", "internal error; the request id identifies it in the gateway's log"],
    ["DATA_LOSS", "internal error; the request id identifies it in the gateway's log"],
    ["INTERNAL_SERVER_ERROR", "internal error; the request id identifies it in the gateway's log"],
    ["UNIMPLEMENTED", "the Manager does not implement this operation"],
    ["BAD_GATEWAY", "the Manager sent an answer the gateway cannot use"],
    ["UNAVAILABLE", "the Manager is unavailable; try again later"],
    ["DEADLINE_EXCEEDED", "the Manager did not answer before the deadline"],
  ] as const)("says of every %s only %j", (failure, detail) => {
    expect(statusOf(failure)).toBeGreaterThanOrEqual(500);
    expect(redactedDetail(failure)).toBe(detail);
  });

  it("says of the gateway's own overload that it is the gateway's, not the Manager's", () => {
    expect(statusOf("OVERLOADED")).toBe(statusOf("UNAVAILABLE"));
    expect(redactedDetail("OVERLOADED")).toBe("the gateway is overloaded; try again after the Retry-After delay");
    expect(redactedDetail("UNAVAILABLE")).toBe("the Manager is unavailable; try again later");
  });
});
