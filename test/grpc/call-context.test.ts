import { describe, expect, it } from "vitest";
import { forwardedMetadata, parseGrpcTimeout } from "../../src/grpc/call-context.js";

describe("parseGrpcTimeout", () => {
  it.each([
    ["1H", 3_600_000],
    ["2M", 120_000],
    ["3S", 3_000],
    ["500m", 500],
    ["1500u", 2],
    ["1n", 1],
    ["0S", 0],
    ["99999999m", 99_999_999],
  ])("reads %s as %i ms", (value, ms) => {
    expect(parseGrpcTimeout(value)).toBe(ms);
  });

  it.each(["", "5", "m", "1s", "1.5S", "-1S", "123456789m", " 1S", "1S ", "1 S", "1Sm", "0x10S"])("rejects %j", (value) => {
    expect(parseGrpcTimeout(value)).toBeUndefined();
  });
});

describe("forwardedMetadata", () => {
  it("forwards only the allow-listed headers, Grpc-Metadata-* without the prefix", () => {
    const metadata = forwardedMetadata(
      {
        authorization: "Bearer t",
        traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
        cookie: "session=1",
        host: "gw",
        "x-forwarded-for": "10.1.1.1",
        "grpc-metadata-tenant": "acme",
        "grpc-metadata-grpc-timeout": "1S",
        "grpc-metadata-blob-bin": "AAEC",
        "grpc-metadata-": "x",
        "x-request-id": "from-client",
      },
      "req-7",
    );
    expect(metadata).toEqual({
      authorization: "Bearer t",
      traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
      "x-request-id": "req-7",
      tenant: "acme",
    });
  });
});
