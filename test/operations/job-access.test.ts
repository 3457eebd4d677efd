// checkIfMatch: the one comparison of If-Match with a job as read (PATCH, a DELETE's fence, a
// complete, a PUT with If-Match "0"): a 412 for another tag, and for a job whose hash is 0,
// which the Manager's test-and-set cannot test.
import { describe, expect, it } from "vitest";
import { NO_VERSION, STALE_TAG, checkIfMatch } from "../../src/operations/job-access.js";
import type { IfMatch } from "../../src/http/preconditions.js";

function failure(ifMatch: IfMatch, current: bigint): unknown {
  try {
    checkIfMatch(ifMatch, current);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("checkIfMatch", () => {
  it.each([
    ["no If-Match", { kind: "none" }, 5n],
    ["*", { kind: "any" }, 5n],
    ["no If-Match", { kind: "none" }, 0n],
    ["*", { kind: "any" }, 0n],
    ['"5"', { kind: "hash", hash: 5n }, 5n],
    ['"-9223372036854775808"', { kind: "hash", hash: -9223372036854775808n }, -9223372036854775808n],
  ] as const)("lets %s through for hash %s", (_label, ifMatch, current) => {
    expect(failure(ifMatch, current)).toBeUndefined();
  });

  it.each([
    [5n, 6n],
    [0n, 5n],
    [5n, 0n],
  ])("fails tag %s on hash %s: 412, stale", (tag, current) => {
    expect(failure({ kind: "hash", hash: tag }, current)).toMatchObject({ status: 412, code: "ABORTED", detail: STALE_TAG });
  });

  it("fails tag 0 on hash 0: 412, no version to test", () => {
    expect(failure({ kind: "hash", hash: 0n }, 0n)).toMatchObject({ status: 412, code: "ABORTED", detail: NO_VERSION });
  });
});
