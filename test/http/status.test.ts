import { describe, expect, it } from "vitest";
import { status as Code } from "@grpc/grpc-js";
import { HTTP_STATUS_OF_CODE, codeName, httpStatusOf } from "../../src/http/status.js";

// docs/ARCHITECTURE.md §5: grpc-gateway's table.
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
