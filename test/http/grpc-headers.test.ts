// The headers a request carries into its gRPC calls: Grpc-Timeout, the forwarded metadata, the
// client's leaving (src/http/grpc-headers.ts).
import { IncomingMessage, ServerResponse } from "node:http";
import { Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { disconnectSignal, forwardedMetadata, metadataFaults, parseGrpcTimeout } from "../../src/http/grpc-headers.js";

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

  it("leaves out a Grpc-Metadata value that metadata cannot carry, under a key that is fine", () => {
    expect(forwardedMetadata({ "grpc-metadata-city": "K\u00f8benhavn", "grpc-metadata-ok": "y" }, "req-1")).toEqual({ "x-request-id": "req-1", ok: "y" });
  });

  it("joins a repeated Grpc-Metadata header as node joins others, and takes one without a value as empty", () => {
    expect(forwardedMetadata({ "grpc-metadata-a": ["1", "2"], "grpc-metadata-b": undefined }, "req-1")).toEqual({
      "x-request-id": "req-1",
      a: "1, 2",
      b: "",
    });
  });
});

describe("metadataFaults", () => {
  it("finds nothing wrong with printable ASCII in the forwarded headers and ordinary keys", () => {
    expect(
      metadataFaults({
        authorization: "Bearer abc.DEF-123_~+/=",
        traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
        tracestate: "vendor=a b, other=c",
        "grpc-metadata-tenant.id_2": "acme corp",
        "grpc-metadata-empty": "",
        "x-anything": "caf\u00e9\t",
      }),
    ).toEqual([]);
  });

  it.each([
    { header: "authorization", value: "Bearer caf\u00e9", message: "must be printable ASCII: gRPC metadata cannot carry other characters" },
    { header: "authorization", value: "Bearer a\tb", message: "must be printable ASCII: gRPC metadata cannot carry other characters" },
    { header: "traceparent", value: "00-\u00ff", message: "must be printable ASCII: gRPC metadata cannot carry other characters" },
    { header: "tracestate", value: "a=\u0001", message: "must be printable ASCII: gRPC metadata cannot carry other characters" },
    { header: "grpc-metadata-foo", value: "caf\u00c3\u00a9", message: "must be printable ASCII: gRPC metadata cannot carry other characters" },
    { header: "grpc-metadata-a!b", value: "x", message: "is not a valid gRPC metadata key (letters, digits, '-', '_' and '.' only)" },
    { header: "grpc-metadata-", value: "x", message: "names no metadata key" },
    { header: "grpc-metadata-authorization", value: "other", message: "cannot set authorization: send it as the Authorization header" },
    { header: "grpc-metadata-x-request-id", value: "spoofed", message: "cannot set x-request-id: send it as the X-Request-Id header" },
    { header: "grpc-metadata-traceparent", value: "t", message: "cannot set traceparent: send it as the traceparent header" },
    { header: "grpc-metadata-tracestate", value: "t", message: "cannot set tracestate: send it as the tracestate header" },
    { header: "grpc-metadata-grpc-timeout", value: "1S", message: "cannot set grpc-* metadata: those keys belong to the gRPC protocol" },
    { header: "grpc-metadata-connection", value: "close", message: "cannot set connection: HTTP/2 and gRPC set it themselves" },
    { header: "grpc-metadata-content-length", value: "5", message: "cannot set content-length: HTTP/2 and gRPC set it themselves" },
    { header: "grpc-metadata-te", value: "x", message: "cannot set te: HTTP/2 and gRPC set it themselves" },
    { header: "grpc-metadata-blob-bin", value: "AAEC", message: "binary (-bin) metadata is not supported" },
  ])("refuses $header: $value", ({ header, value, message }) => {
    expect(metadataFaults({ [header]: value, "grpc-metadata-fine": "ok" })).toEqual([{ header, message }]);
  });

  it("lists every fault, and forwardedMetadata leaves each of them out", () => {
    const headers = { authorization: "Bearer \u00e9", "grpc-metadata-a!b": "x", "grpc-metadata-ok": "y", tracestate: "s=1" };
    expect(metadataFaults(headers).map((f) => f.header)).toEqual(["authorization", "grpc-metadata-a!b"]);
    expect(forwardedMetadata(headers, "req-1")).toEqual({ tracestate: "s=1", "x-request-id": "req-1", ok: "y" });
  });
});


describe("disconnectSignal", () => {
  const response = () => new ServerResponse(new IncomingMessage(new Socket()));

  it("aborts when the connection closes before the response was finished", () => {
    const res = response();
    const signal = disconnectSignal(res);
    expect(signal.aborted).toBe(false);
    res.emit("close");
    expect(signal.aborted).toBe(true);
  });

  it("does not abort when the connection closes after the response was finished", () => {
    const res = response();
    const signal = disconnectSignal(res);
    Object.defineProperty(res, "writableFinished", { get: () => true });
    res.emit("close");
    expect(signal.aborted).toBe(false);
  });
});
