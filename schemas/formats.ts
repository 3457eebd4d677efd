// The string formats the schemas use, checked exactly as the JSON mirror reads them (one
// implementation: src/lexical, which the mirror uses too). TypeBox knows a format only once registered, so importing the
// schemas registers them; Ajv instances take `gatewayFormats` (Ajv option `formats`, or
// ajv.addFormat for each), which also silences Ajv's "unknown format" for int64/uint64.
import { FormatRegistry } from "@sinclair/typebox";
import { int64Problem } from "norsk-manager-contract/lexical/scalars.js";
import { parseTimestamp } from "norsk-manager-contract/lexical/timestamp.js";

export const gatewayFormats = {
  /** A canonical decimal int64: "-9223372036854775808" .. "9223372036854775807". */
  int64: (value: string): boolean => int64Problem(value, true) === undefined,
  /** A canonical decimal uint64: "0" .. "18446744073709551615". */
  uint64: (value: string): boolean => int64Problem(value, false) === undefined,
  /** RFC 3339 with a time zone, a real date, within 0001-01-01..9999-12-31. */
  "date-time": (value: string): boolean => typeof parseTimestamp(value) !== "string",
} as const;

for (const [name, check] of Object.entries(gatewayFormats)) FormatRegistry.Set(name, check);
