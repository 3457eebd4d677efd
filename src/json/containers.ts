// Codecs that wrap other codecs: repeated fields (JSON arrays), map fields (JSON objects) and
// flattened wrapper messages (JobId → its string).
import { ScalarType, create } from "@bufbuild/protobuf";
import type { DescMessage, JsonObject, JsonValue } from "@bufbuild/protobuf";
import type { Codec, Fields } from "./codec.js";
import { INVALID, childPointer, describe, isJsonObject, prefixed, setOwn } from "./errors.js";
import type { Invalid, Issues } from "./errors.js";
import { scalarCodec } from "./scalars.js";
import { int64Problem, stringProblem } from "norsk-manager-contract/lexical/scalars.js";

export function listCodec(element: Codec): Codec {
  return {
    out(value) {
      const list = value as readonly unknown[];
      const json: JsonValue[] = new Array<JsonValue>(list.length);
      for (let i = 0; i < list.length; i++) {
        try {
          json[i] = element.out(list[i]);
        } catch (e) {
          throw prefixed(e, i);
        }
      }
      return json;
    },
    in(json, pointer, issues) {
      if (!Array.isArray(json)) {
        issues.add(pointer, `must be an array, not ${describe(json)}`);
        return INVALID;
      }
      const list: unknown[] = [];
      let ok = true;
      for (let i = 0; i < json.length; i++) {
        const item: unknown = json[i];
        const p = childPointer(pointer, i);
        // proto3 JSON: null is "absent" for a field, but a list has no absent elements.
        const value = item === null || item === undefined ? nullElement(issues, p) : element.in(item, p, issues);
        if (value === INVALID) ok = false;
        else list.push(value);
      }
      return ok ? list : INVALID;
    },
  };
}

function nullElement(issues: Issues, pointer: string): Invalid {
  issues.add(pointer, "must not be null");
  return INVALID;
}

/** Why `key` cannot be a key of a map with this key type, or undefined. */
function keyProblem(keyType: ScalarType, key: string): string | undefined {
  switch (keyType) {
    case ScalarType.STRING:
      return stringProblem(key);
    case ScalarType.BOOL:
      return key === "true" || key === "false" ? undefined : 'must be "true" or "false"';
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return int64Problem(key, true);
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return int64Problem(key, false);
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return int32KeyProblem(key, 0, 4294967295);
    default:
      return int32KeyProblem(key, -2147483648, 2147483647);
  }
}

function int32KeyProblem(key: string, min: number, max: number): string | undefined {
  const n = /^(?:0|-?[1-9][0-9]*)$/.test(key) ? Number(key) : NaN;
  return n >= min && n <= max ? undefined : `must be a decimal integer between ${min} and ${max}`;
}

/**
 * protobuf-es keeps every map key as an object key (a string), whatever its type. Objects are
 * built with setOwn so that a key "__proto__" is an own property, never a prototype change;
 * input keys are read with Object.keys, so only own properties count.
 */
export function mapCodec(keyType: ScalarType, value: Codec): Codec {
  return {
    out(local) {
      const map = local as Record<string, unknown>;
      const json: JsonObject = {};
      for (const key of Object.keys(map)) {
        try {
          setOwn(json, key, value.out(map[key]));
        } catch (e) {
          throw prefixed(e, key);
        }
      }
      return json;
    },
    in(json, pointer, issues) {
      if (!isJsonObject(json)) {
        issues.add(pointer, `must be an object, not ${describe(json)}`);
        return INVALID;
      }
      const map: Record<string, unknown> = {};
      let ok = true;
      for (const key of Object.keys(json)) {
        const p = childPointer(pointer, key);
        const problem = keyProblem(keyType, key);
        if (problem !== undefined) issues.add(p, `the key ${problem}`);
        const item = json[key];
        const v = item === null || item === undefined ? nullElement(issues, p) : value.in(item, p, issues);
        if (problem !== undefined || v === INVALID) ok = false;
        else setOwn(map, key, v);
      }
      return ok ? map : INVALID;
    },
  };
}

/** A wrapper message (FLATTENED_WRAPPERS) as the JSON value of its single scalar field. */
export function wrapperCodec(desc: DescMessage): Codec {
  const field = desc.fields[0];
  if (desc.fields.length !== 1 || field?.fieldKind !== "scalar") {
    throw new Error(`${desc.typeName} cannot be flattened: it must have exactly one scalar field`);
  }
  const inner = scalarCodec(field.scalar, field.longAsString);
  const local = field.localName;
  return {
    out: (message) => inner.out((message as Fields)[local]),
    in(json, pointer, issues) {
      const value = inner.in(json, pointer, issues);
      if (value === INVALID) return INVALID;
      const message = create(desc) as unknown as Fields;
      message[local] = value;
      return message;
    },
  };
}
