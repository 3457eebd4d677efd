// Media types as headers carry them (src/http/media-type.ts): the bare type of a Content-Type,
// and how much an Accept header wants a type (RFC 9110 §12.5.1).
import { describe, expect, it } from "vitest";
import { JSON_TYPE, MERGE_PATCH_TYPE, NDJSON, SSE, mediaType, preference } from "../../src/http/media-type.js";

describe("the media types the gateway speaks", () => {
  it("names them as their registrations spell them", () => {
    expect([JSON_TYPE, MERGE_PATCH_TYPE, NDJSON, SSE]).toEqual(["application/json", "application/merge-patch+json", "application/x-ndjson", "text/event-stream"]);
  });
});

describe("mediaType", () => {
  it.each([
    ["application/json", "application/json"],
    ["Application/JSON; charset=utf-8", "application/json"],
    ["  application/merge-patch+json ;charset=UTF-8", "application/merge-patch+json"],
    ["text/plain;", "text/plain"],
    ["", ""],
    [undefined, ""],
    [";charset=utf-8", ""],
  ])("reads %j as %j", (contentType, expected) => {
    expect(mediaType(contentType)).toBe(expected);
  });
});

describe("preference", () => {
  const json = (range: string): boolean => range === "application/json" || range === "*/*";

  it.each([
    ["application/json", { q: 1, at: 0 }],
    ["text/html, application/json;q=0.5", { q: 0.5, at: 1 }],
    ["text/html;q=0.9, */*;q=0.1", { q: 0.1, at: 1 }],
    // The highest q among the ranges that name it, and where the first with that q stands.
    ["*/*;q=0.2, application/json;q=0.8, application/json;q=0.8", { q: 0.8, at: 1 }],
    ["application/json;q=0.8, */*", { q: 1, at: 1 }],
    ["application/json;q=0", { q: 0, at: 0 }],
    ["text/html", { q: -1, at: Infinity }],
    ["", { q: -1, at: Infinity }],
  ])("of %j for JSON is %o", (accept, expected) => {
    expect(preference(accept, json)).toEqual(expected);
  });

  it("compares ranges and parameters without regard to case or blanks", () => {
    expect(preference(" Application/JSON ; Q=0.3 ", json)).toEqual({ q: 0.3, at: 0 });
  });

  it("reads q among other parameters, wherever it stands", () => {
    expect(preference("application/json;version=2;q=0.4", json)).toEqual({ q: 0.4, at: 0 });
  });

  it("ignores a range whose q is not a number", () => {
    expect(preference("application/json;q=high, */*;q=0.1", json)).toEqual({ q: 0.1, at: 1 });
    expect(preference("application/json;q=high", json)).toEqual({ q: -1, at: Infinity });
  });

  it("takes a parameter that only begins like q as no q at all", () => {
    expect(preference("application/json;quality=0.1", json)).toEqual({ q: 1, at: 0 });
  });
});
