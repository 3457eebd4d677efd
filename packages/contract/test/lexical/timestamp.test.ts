// RFC 3339 date-times as text (src/lexical/timestamp.ts): what parseTimestamp accepts, and the
// words of each refusal, as a client reads them in a problem's `errors`; and the calendar
// arithmetic at the days where its eras turn.
import { describe, expect, it } from "vitest";
import { civilFromDays, daysFromCivil, parseTimestamp } from "../../src/lexical/timestamp.js";

const EXPECTED = "must be an RFC 3339 date-time with a time zone, such as 2025-12-02T10:00:00Z or 2025-12-02T11:00:00.5+01:00";

describe("parseTimestamp", () => {
  it.each([
    ["2025-12-02T10:00:00Z", { seconds: 1764669600n, nanos: 0 }],
    ["2025-12-02t11:00:00.5+01:00", { seconds: 1764669600n, nanos: 500_000_000 }],
    ["0001-01-01T00:00:00Z", { seconds: -62135596800n, nanos: 0 }],
    ["9999-12-31T23:59:59.999999999Z", { seconds: 253402300799n, nanos: 999_999_999 }],
  ])("reads %s", (text, expected) => {
    expect(parseTimestamp(text)).toEqual(expected);
  });

  it.each([
    ["not a date-time at all", "soon", EXPECTED],
    ["text before it", "x2025-12-02T10:00:00Z", EXPECTED],
    ["text after it", "2025-12-02T10:00:00Zjunk", EXPECTED],
    ["no time zone", "2025-12-02T10:00:00", EXPECTED],
    ["month 13", "2025-13-01T00:00:00Z", `${EXPECTED}; month 13 does not exist`],
    ["month 00", "2025-00-01T00:00:00Z", `${EXPECTED}; month 00 does not exist`],
    ["February 29 of a common year", "2025-02-29T00:00:00Z", `${EXPECTED}; 2025-02 has no day 29`],
    ["day 00", "2025-01-00T00:00:00Z", `${EXPECTED}; 2025-01 has no day 00`],
    ["hour 24", "2025-01-01T24:00:00Z", `${EXPECTED}; hour must be 00-23`],
    ["minute 60", "2025-01-01T23:60:00Z", `${EXPECTED}; minute must be 00-59`],
    ["a leap second", "2016-12-31T23:59:60Z", `${EXPECTED}; second must be 00-59 (leap seconds are not accepted)`],
    ["offset hour 24", "2025-01-01T00:00:00+24:00", `${EXPECTED}; the offset +24:00 does not exist`],
    ["offset minute 60", "2025-01-01T00:00:00-01:60", `${EXPECTED}; the offset -01:60 does not exist`],
    ["a time before year 1 in UTC", "0001-01-01T00:00:00+00:01", "must be between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999999999Z"],
  ])("refuses %s, saying why", (_name, text, message) => {
    expect(parseTimestamp(text)).toBe(message);
  });
});

describe("the calendar", () => {
  // The last day of a 400-year era (Hinnant's eras end on February 29 of a year divisible by 400).
  it.each([
    [1600, 2, 29],
    [2000, 2, 29],
    [2000, 3, 1],
    [2400, 2, 29],
    [1970, 1, 1],
  ])("turns %i-%i-%i into days and back", (year, month, day) => {
    const days = daysFromCivil(year, month, day);
    expect(days).toBe(Math.round(Date.UTC(year, month - 1, day) / 86_400_000));
    expect(civilFromDays(days)).toEqual({ year, month, day });
  });
});
