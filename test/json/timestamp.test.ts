import { create } from "@bufbuild/protobuf";
import { TimestampSchema } from "@bufbuild/protobuf/wkt";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { JobSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { INVALID, Issues, UnrepresentableError } from "../../src/json/errors.js";
import { jobFromJson, jobToJson } from "../../src/json/job.js";
import { messageToJson } from "../../src/json/mirror.js";
import { formatTimestamp, timestampCodec } from "../../src/json/timestamp.js";
import { MAX_SECONDS, MIN_SECONDS, civilFromDays, daysFromCivil, parseTimestamp } from "norsk-manager-contract/lexical/timestamp.js";
import { timestamp } from "./arbitraries.js";
import { issueOf, jobBody } from "./helpers.js";

const start = (text: string) => {
  const ts = jobFromJson(jobBody({ startDateTime: text })).startDateTime;
  return { seconds: ts?.seconds, nanos: ts?.nanos };
};

describe("Timestamp output: UTC, Z, 0/3/6/9 fractional digits", () => {
  it.each([
    [0, "2025-12-02T10:00:00Z"],
    [500_000_000, "2025-12-02T10:00:00.500Z"],
    [123_456_000, "2025-12-02T10:00:00.123456Z"],
    [1, "2025-12-02T10:00:00.000000001Z"],
    [999_999_999, "2025-12-02T10:00:00.999999999Z"],
  ])("writes nanos %i as %s", (nanos, text) => {
    expect(formatTimestamp(1764669600n, nanos)).toBe(text);
  });

  it("writes the range ends and the epoch", () => {
    expect(formatTimestamp(MIN_SECONDS, 0)).toBe("0001-01-01T00:00:00Z");
    expect(formatTimestamp(MAX_SECONDS, 999_999_999)).toBe("9999-12-31T23:59:59.999999999Z");
    expect(formatTimestamp(-1n, 0)).toBe("1969-12-31T23:59:59Z");
  });

  it("refuses, with a pointer into the output, a timestamp no RFC 3339 string can hold", () => {
    const job = create(JobSchema, { startDateTime: create(TimestampSchema, { seconds: MAX_SECONDS + 1n }) });
    try {
      messageToJson(JobSchema, job);
      expect.fail("expected an UnrepresentableError");
    } catch (error) {
      expect(error).toBeInstanceOf(UnrepresentableError);
      expect((error as UnrepresentableError).errors[0]?.pointer).toBe("/startDateTime");
    }
    expect(() => formatTimestamp(0n, -1)).toThrow(UnrepresentableError);
  });

  it.each([
    [MIN_SECONDS - 1n, 0],
    [MAX_SECONDS + 1n, 0],
    [0n, -1],
    [0n, 1_000_000_000],
    [0n, 0.5],
  ])("refuses {seconds: %s, nanos: %s}, saying which timestamp and the range", (seconds, nanos) => {
    try {
      formatTimestamp(seconds, nanos);
      expect.fail("expected an UnrepresentableError");
    } catch (error) {
      expect(error).toBeInstanceOf(UnrepresentableError);
      expect((error as UnrepresentableError).errors).toEqual([
        { pointer: "", message: `timestamp {seconds: ${seconds}, nanos: ${nanos}} is outside 0001-01-01..9999-12-31` },
      ]);
    }
  });
});

describe("timestampCodec: a timestamp is a string", () => {
  it("refuses a value of another type, saying what an RFC 3339 date-time looks like and what it got", () => {
    const issues = new Issues();
    expect(timestampCodec.in(1764669600, "/t", issues)).toBe(INVALID);
    expect(issues.list).toEqual([
      {
        pointer: "/t",
        message: "must be an RFC 3339 date-time with a time zone, such as 2025-12-02T10:00:00Z or 2025-12-02T11:00:00.5+01:00, not the number 1764669600",
      },
    ]);
  });
});

describe("Timestamp input: RFC 3339, any offset, real dates within 0001..9999", () => {
  it("keeps nanoseconds exact", () => {
    expect(start("2100-01-01T00:00:00.123456789Z")).toEqual({ seconds: 4102444800n, nanos: 123456789 });
    expect(start("2100-01-01T00:00:00.1Z")).toEqual({ seconds: 4102444800n, nanos: 100_000_000 });
  });

  it.each([
    "2025-12-02T10:00:00Z",
    "2025-12-02t10:00:00z",
    "2025-12-02T11:00:00+01:00",
    "2025-12-02T05:30:00-04:30",
    "2025-12-03T09:59:00+23:59",
    "2025-12-02T10:00:00.000000000Z",
  ])("reads %s as 2025-12-02T10:00:00Z", (text) => {
    expect(start(text)).toEqual({ seconds: 1764669600n, nanos: 0 });
    expect(jobToJson(jobFromJson(jobBody({ startDateTime: text }))).startDateTime).toBe("2025-12-02T10:00:00Z");
  });

  it("accepts Feb 29 in leap years only (2024 and 2000, not 2023 or 1900)", () => {
    expect(start("2024-02-29T00:00:00Z").seconds).toBe(1709164800n);
    expect(start("2000-02-29T00:00:00Z").seconds).toBe(951782400n);
    expect(issueOf(() => jobFromJson(jobBody({ startDateTime: "2023-02-29T00:00:00Z" }))).message).toContain("2023-02 has no day 29");
    expect(issueOf(() => jobFromJson(jobBody({ startDateTime: "1900-02-29T00:00:00Z" }))).pointer).toBe("/startDateTime");
  });

  it.each([
    ["Feb 30", "2025-02-30T00:00:00Z"],
    ["April 31", "2025-04-31T00:00:00Z"],
    ["month 13", "2025-13-01T00:00:00Z"],
    ["day 0", "2025-01-00T00:00:00Z"],
    ["hour 24", "2025-12-02T24:00:00Z"],
    ["minute 60", "2025-12-02T10:60:00Z"],
    ["a leap second", "2016-12-31T23:59:60Z"],
    ["year 0000", "0000-01-01T00:00:00Z"],
    ["year 10000", "10000-01-01T00:00:00Z"],
    ["a date without a time", "2025-12-02"],
    ["no time zone", "2025-12-02T10:00:00"],
    ["a space for T", "2025-12-02 10:00:00Z"],
    ["10 fractional digits", "2025-12-02T10:00:00.1234567891Z"],
    ["an empty fraction", "2025-12-02T10:00:00.Z"],
    ["an offset without colon", "2025-12-02T10:00:00+0100"],
    ["offset hour 24", "2025-12-02T10:00:00+24:00"],
    ["offset minute 60", "2025-12-02T10:00:00+01:60"],
    ["before 0001 after the offset", "0001-01-01T00:30:00+01:00"],
    ["after 9999 after the offset", "9999-12-31T23:30:00-01:00"],
    ["a number", 1764669600],
    ["a Date-style string", "Tue, 02 Dec 2025 10:00:00 GMT"],
  ])("rejects %s", (_name, value) => {
    expect(issueOf(() => jobFromJson(jobBody({ startDateTime: value }))).pointer).toBe("/startDateTime");
  });

  it("accepts year 0000 when the offset brings it into 0001", () => {
    expect(jobToJson(jobFromJson(jobBody({ startDateTime: "0000-12-31T23:30:00-01:00" }))).startDateTime).toBe("0001-01-01T00:30:00Z");
  });

  it("accepts the range ends", () => {
    expect(start("0001-01-01T00:00:00Z").seconds).toBe(MIN_SECONDS);
    expect(start("9999-12-31T23:59:59.999999999Z")).toEqual({ seconds: MAX_SECONDS, nanos: 999_999_999 });
  });
});

describe("Timestamp arithmetic (fast-check)", () => {
  it("format → parse is the identity over the whole range", () => {
    fc.assert(
      fc.property(timestamp, (ts) => {
        expect(parseTimestamp(formatTimestamp(ts.seconds, ts.nanos))).toEqual({ seconds: ts.seconds, nanos: ts.nanos });
      }),
      { numRuns: 2000 },
    );
  });

  it("days-from-civil agrees with Date over years 1..9999 and inverts", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9999 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 28 }), (y, m, d) => {
        const date = new Date(0);
        date.setUTCFullYear(y, m - 1, d); // not Date.UTC: it maps years 0-99 to 1900-1999
        const days = daysFromCivil(y, m, d);
        expect(days * 86400000).toBe(date.getTime());
        expect(civilFromDays(days)).toEqual({ year: y, month: m, day: d });
      }),
      { numRuns: 2000 },
    );
  });

  it("an offset shifts the instant by exactly its size", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }), fc.boolean(), (h, m, minus) => {
        const offset = `${minus ? "-" : "+"}${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}`;
        const parsed = parseTimestamp(`2025-06-15T12:00:00${offset}`);
        const shift = BigInt((minus ? 1 : -1) * (h * 3600 + m * 60));
        expect(parsed).toEqual({ seconds: 1749988800n + shift, nanos: 0 });
      }),
    );
  });
});
