// google.protobuf.Timestamp ⇄ RFC 3339 (docs/architecture.md, "JSON rules"). Computed in integers
// from the seconds and nanos: Date has millisecond precision (timestampDate() drops the last six
// digits) and
// Date.parse accepts impossible dates such as Feb 30 by rolling them over.
import { create } from "@bufbuild/protobuf";
import { TimestampSchema } from "@bufbuild/protobuf/wkt";
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import type { Codec } from "./codec.js";
import { INVALID, UnrepresentableError, describe } from "./errors.js";
import { DAY, EXPECTED, MAX_SECONDS, MIN_SECONDS, civilFromDays, pad, parseTimestamp } from "norsk-manager-contract/lexical/timestamp.js";

/**
 * RFC 3339 in UTC with "Z", with 0, 3, 6 or 9 fractional digits, as few as carry the nanos.
 * Throws an UnrepresentableError for a timestamp no RFC 3339 string can hold (outside
 * 0001..9999, or nanos outside 0..999999999): only a misbehaving peer sends one.
 */
export function formatTimestamp(seconds: bigint, nanos: number): string {
  if (seconds < MIN_SECONDS || seconds > MAX_SECONDS || !Number.isInteger(nanos) || nanos < 0 || nanos > 999_999_999) {
    throw new UnrepresentableError([
      { pointer: "", message: `timestamp {seconds: ${seconds}, nanos: ${nanos}} is outside 0001-01-01..9999-12-31` },
    ]);
  }
  const total = Number(seconds); // |seconds| < 2^53 in this range
  const days = Math.floor(total / DAY);
  const secondOfDay = total - days * DAY;
  const { year, month, day } = civilFromDays(days);
  const hms = `${pad(Math.floor(secondOfDay / 3600), 2)}:${pad(Math.floor(secondOfDay / 60) % 60, 2)}:${pad(secondOfDay % 60, 2)}`;
  let fraction = "";
  if (nanos !== 0) {
    if (nanos % 1_000_000 === 0) fraction = `.${pad(nanos / 1_000_000, 3)}`;
    else if (nanos % 1000 === 0) fraction = `.${pad(nanos / 1000, 6)}`;
    else fraction = `.${pad(nanos, 9)}`;
  }
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${hms}${fraction}Z`;
}

export const timestampCodec: Codec = {
  out(value) {
    const ts = value as Timestamp;
    return formatTimestamp(ts.seconds, ts.nanos);
  },
  in(json, pointer, issues) {
    const parsed = typeof json === "string" ? parseTimestamp(json) : `${EXPECTED}, not ${describe(json)}`;
    if (typeof parsed === "string") {
      issues.add(pointer, parsed);
      return INVALID;
    }
    return create(TimestampSchema, parsed);
  },
};
