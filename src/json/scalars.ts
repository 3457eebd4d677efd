// Scalar codecs (docs/architecture.md, "JSON rules"). 64-bit integers are decimal strings, because
// a JSON number is a double and silently loses digits beyond 2^53; every other scalar is its JSON
// counterpart.
// Input is exact: no type coercion ("1" is not 1), so that every value the gateway accepts is
// one it would emit itself, and JSON → protobuf → JSON is the identity.
import { ScalarType } from "@bufbuild/protobuf";
import type { Codec } from "./codec.js";
import { INVALID, describe } from "./errors.js";
import { INT64, UINT64, int64Problem, stringProblem } from "norsk-manager-contract/lexical/scalars.js";

/** The largest finite float32; a larger double would become Infinity on the wire. */
const FLOAT_MAX = 3.4028234663852886e38;

function int64Codec(signed: boolean, asString: boolean): Codec {
  const t = signed ? INT64 : UINT64;
  return {
    out: (v) => (typeof v === "string" ? v : (v as bigint).toString()),
    in(json, pointer, issues) {
      if (typeof json !== "string") {
        const hint = typeof json === "number" ? ` (a JSON number cannot carry 64 bits exactly: write "${String(json)}")` : "";
        issues.add(pointer, `must be a decimal string of an ${t.name} between ${t.min} and ${t.max}, not ${describe(json)}${hint}`);
        return INVALID;
      }
      const problem = int64Problem(json, signed);
      if (problem !== undefined) {
        issues.add(pointer, problem);
        return INVALID;
      }
      return asString ? json : BigInt(json);
    },
  };
}

function int32Codec(name: string, min: number, max: number): Codec {
  return {
    out: (v) => v as number,
    in(json, pointer, issues) {
      if (typeof json !== "number" || !Number.isInteger(json) || json < min || json > max) {
        issues.add(pointer, `must be an integer (${name}) between ${min} and ${max}, not ${describe(json)}`);
        return INVALID;
      }
      return json === 0 ? 0 : json; // JSON -0 is 0
    },
  };
}

// Non-finite values are strings, as in the proto3 JSON mapping: JSON has no NaN or Infinity.
const NON_FINITE = new Map<string, number>([
  ["NaN", NaN],
  ["Infinity", Infinity],
  ["-Infinity", -Infinity],
]);

function floatingCodec(name: "float" | "double"): Codec {
  const max = name === "float" ? FLOAT_MAX : Number.MAX_VALUE;
  return {
    out(v) {
      const n = v as number;
      if (Number.isFinite(n)) return n;
      return Number.isNaN(n) ? "NaN" : n > 0 ? "Infinity" : "-Infinity";
    },
    in(json, pointer, issues) {
      if (typeof json === "number" && Math.abs(json) <= max) return json;
      if (typeof json === "string") {
        const special = NON_FINITE.get(json);
        if (special !== undefined) return special;
      }
      const range = typeof json === "number" ? ` within ±${max}` : "";
      issues.add(pointer, `must be a number (${name})${range} or one of "NaN", "Infinity", "-Infinity", not ${describe(json)}`);
      return INVALID;
    },
  };
}

const boolCodec: Codec = {
  out: (v) => v as boolean,
  in(json, pointer, issues) {
    if (typeof json === "boolean") return json;
    issues.add(pointer, `must be a boolean, not ${describe(json)}`);
    return INVALID;
  },
};

const stringCodec: Codec = {
  out: (v) => v as string,
  in(json, pointer, issues) {
    if (typeof json !== "string") {
      issues.add(pointer, `must be a string, not ${describe(json)}`);
      return INVALID;
    }
    const problem = stringProblem(json);
    if (problem === undefined) return json;
    issues.add(pointer, problem);
    return INVALID;
  },
};

// bytes: standard base64 with padding out; standard or URL-safe, padded or not, in (proto3).
const BASE64 = /^(?:[A-Za-z0-9+/_-]{4})*(?:[A-Za-z0-9+/_-]{2}(?:==)?|[A-Za-z0-9+/_-]{3}=?)?$/;

const bytesCodec: Codec = {
  out: (v) => Buffer.from(v as Uint8Array).toString("base64"),
  in(json, pointer, issues) {
    if (typeof json === "string" && BASE64.test(json)) return new Uint8Array(Buffer.from(json, "base64"));
    issues.add(pointer, `must be a base64 string, not ${describe(json)}`);
    return INVALID;
  },
};

/** The codec of a scalar type; `longAsString` is protobuf-es' jstype = JS_STRING. */
export function scalarCodec(type: ScalarType, longAsString: boolean): Codec {
  return (longAsString ? STRING_LONG_CODECS : CODECS)[type];
}

function makeScalarCodec(type: ScalarType, longAsString: boolean): Codec {
  switch (type) {
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return int64Codec(true, longAsString);
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return int64Codec(false, longAsString);
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return int32Codec("int32", -2147483648, 2147483647);
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return int32Codec("uint32", 0, 4294967295);
    case ScalarType.FLOAT:
      return floatingCodec("float");
    case ScalarType.DOUBLE:
      return floatingCodec("double");
    case ScalarType.BOOL:
      return boolCodec;
    case ScalarType.STRING:
      return stringCodec;
    case ScalarType.BYTES:
      return bytesCodec;
  }
}

// Every scalar codec, made once when the module loads rather than on first use: a codec made
// lazily and kept would be made by whichever caller came first, so nothing (Stryker's per-test
// coverage included) could tell which caller its making belongs to.
const SCALAR_TYPES = Object.values(ScalarType).filter((value): value is ScalarType => typeof value === "number");
function codecTable(longAsString: boolean): Readonly<Record<ScalarType, Codec>> {
  // Filled for every member of ScalarType by the loop below.
  const table = {} as Record<ScalarType, Codec>;
  for (const type of SCALAR_TYPES) table[type] = makeScalarCodec(type, longAsString);
  return table;
}
const CODECS = codecTable(false);
const STRING_LONG_CODECS = codecTable(true);
