// A descriptor-driven fast-check arbitrary of any message of the contract, so that every type
// the HTTP API exposes (events, nodes, history entries...) gets the round-trip properties too.
import { ScalarType, create } from "@bufbuild/protobuf";
import type { DescField, DescMessage } from "@bufbuild/protobuf";
import { FeatureSet_FieldPresence } from "@bufbuild/protobuf/wkt";
import fc from "fast-check";
import { PRESENCE_OVERRIDES } from "../../src/json/presence.js";
import { double, enumValue, float, int64, mapOf, text, timestamp, uint32, uint64 } from "./arbitraries.js";

const int32 = fc.integer({ min: -2147483648, max: 2147483647 });

function scalar(type: ScalarType): fc.Arbitrary<unknown> {
  switch (type) {
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return int64;
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return uint64;
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return uint32;
    case ScalarType.DOUBLE:
      return double;
    case ScalarType.FLOAT:
      return float;
    case ScalarType.BOOL:
      return fc.boolean();
    case ScalarType.STRING:
      return text;
    case ScalarType.BYTES:
      return fc.uint8Array({ maxLength: 8 });
    default:
      return int32;
  }
}

function value(field: DescField, depth: number): fc.Arbitrary<unknown> {
  if (field.message !== undefined) return messageArbitrary(field.message, depth + 1);
  if (field.enum !== undefined) return enumValue(field.enum.values.map((v) => v.number));
  return scalar(field.scalar);
}

type Fields = Record<string, unknown>;

/** Any message of `desc`; sub-messages get sparser with depth so that values stay small. */
export function messageArbitrary(desc: DescMessage, depth = 0): fc.Arbitrary<unknown> {
  if (desc.typeName === "google.protobuf.Timestamp") return timestamp;
  const required = new Set(
    Object.entries(PRESENCE_OVERRIDES.get(desc.typeName) ?? {})
      .filter(([, rule]) => rule === "required")
      .map(([name]) => name),
  );
  const parts: fc.Arbitrary<(m: Fields) => void>[] = [];
  for (const member of desc.members) {
    if (member.kind === "oneof") {
      const cases = member.fields.map((f) => value(f, depth).map((v) => (m: Fields) => (m[member.localName] = { case: f.localName, value: v })));
      parts.push(fc.oneof(fc.constant(() => undefined), ...cases));
      continue;
    }
    const local = member.localName;
    const maxLength = depth > 2 ? 0 : 2;
    switch (member.fieldKind) {
      case "list":
        parts.push(fc.array(value(member, depth), { maxLength }).map((v) => (m: Fields) => (m[local] = v)));
        break;
      case "map":
        parts.push(mapOf(value(member, depth)).map((v) => (m: Fields) => (m[local] = v)));
        break;
      default: {
        const always = required.has(member.jsonName) || (member.fieldKind !== "message" && member.presence === FeatureSet_FieldPresence.IMPLICIT);
        const drawn = value(member, depth).map((v) => (m: Fields) => (m[local] = v));
        parts.push(always ? drawn : depth > 3 ? fc.constant(() => undefined) : fc.oneof(fc.constant(() => undefined), drawn));
      }
    }
  }
  // Assign onto a zero message: create()'s initializer would rebuild maps and lose "__proto__".
  return fc.tuple(...parts).map((setters) => {
    const message = create(desc) as unknown as Fields;
    for (const set of setters) set(message);
    return message;
  });
}
