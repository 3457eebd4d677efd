// The JSON mirror keeps values exact: an int64 is a decimal string, a timestamp an RFC 3339
// string with up to nine fractional digits. These turn them into the platform's types, for
// callers who want them, and back, without loss wherever the type can hold the value: a bigint
// holds any int64; a Date holds milliseconds, so toDate drops what is finer (timestampParts
// keeps every nanosecond).

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** An int64 decimal string ("-3481990684367738963") as a bigint. */
export function int64ToBigInt(value: string): bigint {
  if (!/^(0|-?[1-9][0-9]{0,18})$/.test(value)) throw new RangeError(`not an int64 decimal string: ${JSON.stringify(value)}`);
  const parsed = BigInt(value);
  if (parsed < INT64_MIN || parsed > INT64_MAX) throw new RangeError(`outside int64: ${value}`);
  return parsed;
}

/** A bigint as the int64 decimal string the gateway reads; a RangeError outside int64. */
export function bigIntToInt64(value: bigint): string {
  if (value < INT64_MIN || value > INT64_MAX) throw new RangeError(`outside int64: ${String(value)}`);
  return value.toString();
}

const UINT64_MAX = 2n ** 64n - 1n;

/** A uint64 decimal string ("18446744073709551615") as a bigint. */
export function uint64ToBigInt(value: string): bigint {
  if (!/^(0|[1-9][0-9]{0,19})$/.test(value)) throw new RangeError(`not a uint64 decimal string: ${JSON.stringify(value)}`);
  const parsed = BigInt(value);
  if (parsed > UINT64_MAX) throw new RangeError(`outside uint64: ${value}`);
  return parsed;
}

/** A bigint as the uint64 decimal string the gateway reads; a RangeError outside uint64. */
export function bigIntToUint64(value: bigint): string {
  if (value < 0n || value > UINT64_MAX) throw new RangeError(`outside uint64: ${String(value)}`);
  return value.toString();
}

/** A timestamp's exact parts: whole seconds since the Unix epoch, and nanoseconds 0-999,999,999. */
export interface TimestampParts {
  readonly seconds: bigint;
  readonly nanos: number;
}

const RFC3339 = /^([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,9}))?([Zz]|[+-][0-9]{2}:[0-9]{2})$/;

/** An RFC 3339 date-time, any offset, as its exact parts. */
export function timestampParts(text: string): TimestampParts {
  const match = RFC3339.exec(text);
  if (match === null) throw new RangeError(`not an RFC 3339 date-time: ${JSON.stringify(text)}`);
  const [, year, month, day, hour, minute, second, fraction = "", zone = "Z"] = match;
  const utcMs = Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second));
  const offsetMinutes = zone.toUpperCase() === "Z" ? 0 : (zone.startsWith("-") ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
  // Date.UTC maps years 0-99 to 1900-1999; the timestamp's own year is set again.
  const date = new Date(utcMs);
  date.setUTCFullYear(Number(year));
  const seconds = BigInt(Math.floor(date.getTime() / 1000)) - BigInt(offsetMinutes * 60);
  return { seconds, nanos: Number(fraction.padEnd(9, "0")) };
}

/** Exact parts as the RFC 3339 UTC text the gateway writes: 0, 3, 6 or 9 fractional digits. */
export function timestampText(parts: TimestampParts): string {
  const date = new Date(Number(parts.seconds) * 1000);
  const whole = date.toISOString().slice(0, 19);
  if (parts.nanos === 0) return `${whole}Z`;
  const digits = String(parts.nanos).padStart(9, "0");
  const kept = digits.endsWith("000000") ? digits.slice(0, 3) : digits.endsWith("000") ? digits.slice(0, 6) : digits;
  return `${whole}.${kept}Z`;
}

/** A timestamp as a Date: exact to the millisecond, finer digits dropped. */
export function toDate(text: string): Date {
  const { seconds, nanos } = timestampParts(text);
  return new Date(Number(seconds) * 1000 + Math.floor(nanos / 1_000_000));
}

/** A Date as the timestamp text: exact (a Date holds milliseconds). */
export function fromDate(date: Date): string {
  const ms = date.getTime();
  const seconds = Math.floor(ms / 1000);
  return timestampText({ seconds: BigInt(seconds), nanos: (ms - seconds * 1000) * 1_000_000 });
}
