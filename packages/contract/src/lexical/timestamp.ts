// RFC 3339 date-times as text, computed in integers from seconds and nanos (docs/architecture.md,
// "JSON rules"): Date has millisecond precision and Date.parse accepts impossible dates such as Feb
// 30 by
// rolling them over. A leaf: the schemas' formats and the mirror's codec both read timestamps
// here, so there is one parser and neither imports the other.

/** 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z in seconds since the epoch. */
export const MIN_SECONDS = -62135596800n;
export const MAX_SECONDS = 253402300799n;

export const DAY = 86400;

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** The inverse of daysFromCivil. */
export function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: month <= 2 ? yoe + era * 400 + 1 : yoe + era * 400, month, day };
}

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysInMonth(year: number, month: number): number {
  return month === 2 && isLeap(year) ? 29 : (MONTH_DAYS[month - 1] ?? 0);
}

export const pad = (n: number, width: number): string => String(n).padStart(width, "0");

// RFC 3339 §5.6 date-time, with "T"/"t" and "Z"/"z" (§5.6 NOTE), a 1-9 digit fraction (the
// 10th digit would be below a nanosecond) and a numeric offset with its colon.
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

export const EXPECTED = "must be an RFC 3339 date-time with a time zone, such as 2025-12-02T10:00:00Z or 2025-12-02T11:00:00.5+01:00";

/** seconds and nanos of an RFC 3339 date-time, or a message saying why it is not one. */
export function parseTimestamp(text: string): { seconds: bigint; nanos: number } | string {
  const m = DATE_TIME.exec(text);
  if (m === null) return EXPECTED;
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i]));
  if (year === undefined || month === undefined || day === undefined || hour === undefined || minute === undefined || second === undefined) {
    return EXPECTED;
  }
  if (month < 1 || month > 12) return `${EXPECTED}; month ${pad(month, 2)} does not exist`;
  if (day < 1 || day > daysInMonth(year, month)) return `${EXPECTED}; ${pad(year, 4)}-${pad(month, 2)} has no day ${pad(day, 2)}`;
  if (hour > 23) return `${EXPECTED}; hour must be 00-23`;
  if (minute > 59) return `${EXPECTED}; minute must be 00-59`;
  // Leap seconds: protobuf timestamps are smeared (no :60), so there is nothing to map it to.
  if (second > 59) return `${EXPECTED}; second must be 00-59 (leap seconds are not accepted)`;
  let offset = 0;
  if (m[8] !== undefined) {
    const oh = Number(m[9]);
    const om = Number(m[10]);
    if (oh > 23 || om > 59) return `${EXPECTED}; the offset ${m[8]}${m[9] ?? ""}:${m[10] ?? ""} does not exist`;
    offset = (m[8] === "-" ? -1 : 1) * (oh * 3600 + om * 60);
  }
  const seconds = BigInt(daysFromCivil(year, month, day) * DAY + hour * 3600 + minute * 60 + second - offset);
  if (seconds < MIN_SECONDS || seconds > MAX_SECONDS) {
    return "must be between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999999999Z";
  }
  return { seconds, nanos: Number((m[7] ?? "").padEnd(9, "0")) };
}
