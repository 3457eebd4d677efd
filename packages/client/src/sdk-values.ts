// Whole values of the API in the SDK's shapes (@norskvideo/norsk-api's Job and the messages in
// it): every int64 and uint64 a bigint, every timestamp a Date, and back. Where each schema holds
// such a value is generated from openapi.yaml (gen/exact-values.ts), so a field the document
// gains is converted without a change here. A Date holds milliseconds: a timestamp's finer
// digits are dropped on the way to the SDK's shape (timestampParts keeps them); everything else
// round-trips exactly. Properties the table does not name are copied as they are, absent ones
// stay absent and null stays null.
import type { components } from "./gen/openapi.js";
import { EXACT_VALUES } from "./gen/exact-values.js";
import type { ExactSchema } from "./gen/exact-values.js";
import { bigIntToInt64, bigIntToUint64, fromDate, int64ToBigInt, toDate, uint64ToBigInt } from "./values.js";

export type { ExactSchema } from "./gen/exact-values.js";

type Shape = "int64" | "uint64" | "timestamp" | { readonly schema: ExactSchema } | { readonly items: Shape } | { readonly values: Shape };
type Entry = Readonly<Record<string, Shape>>;

/** What each leaf of the table is in the SDK's shape. */
interface SdkLeaves {
  int64: bigint;
  uint64: bigint;
  timestamp: Date;
}

/** The value `T` of the document, with the exact values that `S` locates in the SDK's types. */
export type SdkShaped<T, S> = T extends null | undefined
  ? T
  : S extends keyof SdkLeaves
    ? SdkLeaves[S]
    : S extends { readonly schema: infer N extends ExactSchema }
      ? SdkShaped<T, (typeof EXACT_VALUES)[N]>
      : S extends { readonly items: infer I }
        ? T extends readonly (infer E)[]
          ? SdkShaped<E, I>[]
          : T
        : S extends { readonly values: infer V }
          ? { [K in keyof T]: SdkShaped<T[K], V> }
          : { [K in keyof T]: K extends keyof S ? SdkShaped<T[K], S[K]> : T[K] };

/** Schema `N` of the document in the SDK's shapes. */
export type Sdk<N extends ExactSchema> = SdkShaped<components["schemas"][N], (typeof EXACT_VALUES)[N]>;

type Leaf = (kind: "int64" | "uint64" | "timestamp", value: unknown, at: string) => unknown;

function convert(shape: Shape, value: unknown, leaf: Leaf, at: string): unknown {
  if (value === null || value === undefined) return value;
  if (typeof shape === "string") return leaf(shape, value, at);
  if ("schema" in shape) return convertEntry(EXACT_VALUES[shape.schema], value, leaf, at);
  if ("items" in shape) {
    if (!Array.isArray(value)) throw new TypeError(`${at} is not an array`);
    return value.map((item: unknown, index) => convert(shape.items, item, leaf, `${at}/${String(index)}`));
  }
  if (typeof value !== "object") throw new TypeError(`${at} is not an object`);
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, convert(shape.values, item, leaf, `${at}/${pointerToken(key)}`)]));
}

function convertEntry(entry: Entry, value: unknown, leaf: Leaf, at: string): unknown {
  if (value === null || value === undefined) return value;
  if (typeof value !== "object" || Array.isArray(value)) throw new TypeError(`${at === "" ? "the value" : at} is not an object`);
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const shape = entry[key];
    out[key] = shape === undefined ? item : convert(shape, item, leaf, `${at}/${pointerToken(key)}`);
  }
  return out;
}

const pointerToken = (key: string): string => key.replaceAll("~", "~0").replaceAll("/", "~1");

/** A RangeError naming where (a JSON Pointer into the value) and what. */
function at(where: string, run: () => unknown): unknown {
  try {
    return run();
  } catch (error) {
    if (error instanceof RangeError || error instanceof TypeError) throw new RangeError(`${where === "" ? "the value" : where}: ${error.message}`, { cause: error });
    throw error;
  }
}

const toSdkLeaf: Leaf = (kind, value, where) =>
  at(where, () => {
    if (typeof value !== "string") throw new TypeError(`not a string: ${typeof value}`);
    return kind === "int64" ? int64ToBigInt(value) : kind === "uint64" ? uint64ToBigInt(value) : toDate(value);
  });

const fromSdkLeaf: Leaf = (kind, value, where) =>
  at(where, () => {
    if (kind === "timestamp") {
      if (!(value instanceof Date) || Number.isNaN(value.getTime())) throw new TypeError("not a valid Date");
      return fromDate(value);
    }
    if (typeof value !== "bigint") throw new TypeError(`not a bigint: ${typeof value}`);
    return kind === "int64" ? bigIntToInt64(value) : bigIntToUint64(value);
  });

/**
 * A value of schema `schema` (`"Job"`, `"JobInput"`, `"JobList"`, ...) in the SDK's shapes: each
 * int64 and uint64 string a bigint, each timestamp a Date (to the millisecond). A RangeError names
 * the JSON Pointer of a value that is not what the document says.
 */
export function toSdk<N extends ExactSchema>(schema: N, value: components["schemas"][N]): Sdk<N> {
  return convertEntry(EXACT_VALUES[schema], value, toSdkLeaf, "") as Sdk<N>;
}

/** The inverse of toSdk: a value in the SDK's shapes as the document's JSON, every bigint range-checked. */
export function fromSdk<N extends ExactSchema>(schema: N, value: Sdk<N>): components["schemas"][N] {
  return convertEntry(EXACT_VALUES[schema], value, fromSdkLeaf, "") as components["schemas"][N];
}
