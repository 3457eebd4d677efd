// Accept-Encoding as RFC 9110 §12.5.3 reads it: a coding's own q, else that of `*`; identity
// acceptable unless refused; the best of brotli, gzip and none.
import { describe, expect, it } from "vitest";
import { chooseCoding, codingQ } from "../../src/http/fixed-answer.js";

describe("Accept-Encoding", () => {
  it.each([
    [undefined, "identity"],
    ["", "identity"],
    ["gzip", "gzip"],
    ["gzip, deflate, br, zstd", "br"],
    ["br;q=0.5, gzip", "gzip"],
    ["*", "br"],
    ["br;q=0, *", "gzip"],
    ["gzip;q=0, br;q=0", "identity"],
    ["identity;q=0, gzip;q=0.1", "gzip"],
    ["compress, deflate", "identity"],
    ["GZIP;Q=1", "gzip"],
    ["gzip;q=x, br", "br"],
  ] as const)("%j → %s", (header, coding) => {
    expect(chooseCoding(header)).toBe(coding);
  });

  it("reads a coding's own q before that of *, and keeps identity acceptable unless refused", () => {
    expect(codingQ("br;q=0.2, *;q=0.9", "br")).toBe(0.2);
    expect(codingQ("*;q=0.9", "gzip")).toBe(0.9);
    expect(codingQ("gzip", "identity")).toBe(1);
    expect(codingQ("*;q=0", "identity")).toBe(0);
    expect(codingQ("identity;q=0", "identity")).toBe(0);
  });
});
