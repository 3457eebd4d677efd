// The unit the mirror is compiled from: one codec per value type (a scalar type, an enum, a
// message type). Field plans (mirror.ts) combine codecs with presence rules; codecs know
// nothing about where a value sits.
import type { JsonValue } from "@bufbuild/protobuf";
import type { Issues } from "./errors.js";

export interface Codec {
  /** protobuf-es local value (bigint, number, string, message...) → JSON value. */
  out(value: unknown): JsonValue;
  /**
   * JSON value (never null or undefined: callers treat those as absent) → local value. On a
   * bad value it records issues at `pointer` and returns INVALID.
   */
  in(json: unknown, pointer: string, issues: Issues): unknown;
}

/** A protobuf-es message seen through its fields by local name. */
export type Fields = Record<string, unknown>;

/** The local value of a oneof group: which member is set, and its value. */
export interface OneofValue {
  case: string | undefined;
  value?: unknown;
}
