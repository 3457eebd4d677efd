// The value helpers keep what the types can hold: every int64, every nanosecond of a timestamp
// through its parts, every millisecond through a Date; and refuse what is not a value.
import { describe, expect, it } from "vitest";
import { bigIntToInt64, fromDate, int64ToBigInt, timestampParts, timestampText, toDate } from "../src/index.js";

describe("int64 strings and bigint", () => {
  it("round-trip the extremes and zero", () => {
    for (const text of ["-9223372036854775808", "0", "9223372036854775807", "-3481990684367738963"]) expect(bigIntToInt64(int64ToBigInt(text))).toBe(text);
  });

  it("refuse what is not an int64", () => {
    for (const text of ["9223372036854775808", "-0", "01", "1.5", ""]) expect(() => int64ToBigInt(text), text).toThrow(RangeError);
    expect(() => bigIntToInt64(2n ** 63n)).toThrow(RangeError);
  });
});

describe("timestamps", () => {
  it("keep every nanosecond through their parts, written as the gateway writes them", () => {
    expect(timestampText(timestampParts("2100-01-01T00:00:00.123456789Z"))).toBe("2100-01-01T00:00:00.123456789Z");
    expect(timestampText(timestampParts("2026-12-24T19:00:00.5+01:00"))).toBe("2026-12-24T18:00:00.500Z");
    expect(timestampText(timestampParts("0001-01-01T00:00:00Z"))).toBe("0001-01-01T00:00:00Z");
    expect(timestampParts("1969-12-31T23:59:59.000001Z")).toEqual({ seconds: -1n, nanos: 1000 });
  });

  it("keep every millisecond through a Date, and drop only finer digits", () => {
    const date = new Date(Date.UTC(2026, 11, 24, 18, 0, 0, 123));
    expect(fromDate(date)).toBe("2026-12-24T18:00:00.123Z");
    expect(toDate(fromDate(date)).getTime()).toBe(date.getTime());
    expect(toDate("2026-12-24T18:00:00.123999999Z").getTime()).toBe(date.getTime());
  });
});
