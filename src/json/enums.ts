// Enum codecs (docs/architecture.md, "JSON rules"): a value is its name in lower case
// ("previous_recommended"). A number this gateway does not know (a newer Manager's value) travels
// as a JSON integer both ways, so
// it is never dropped or turned into 0. A known value sent as a number is refused: its name is
// the one spelling, which keeps JSON → protobuf → JSON the identity.
import type { DescEnum } from "@bufbuild/protobuf";
import type { Codec } from "./codec.js";
import { INVALID, describe } from "./errors.js";

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

/** The JSON names of an enum's values, in declaration order (aliases keep their first name). */
export function enumJsonNames(desc: DescEnum): string[] {
  return [...new Set(desc.values.map((v) => v.name.toLowerCase()))];
}

const codecs = new Map<string, Codec>();

export function enumCodec(desc: DescEnum): Codec {
  let codec = codecs.get(desc.typeName);
  if (codec === undefined) {
    codec = makeEnumCodec(desc);
    codecs.set(desc.typeName, codec);
  }
  return codec;
}

function makeEnumCodec(desc: DescEnum): Codec {
  const nameOf = new Map<number, string>();
  const numberOf = new Map<string, number>();
  for (const value of desc.values) {
    const name = value.name.toLowerCase();
    const known = numberOf.get(name);
    if (known !== undefined && known !== value.number) {
      // Two values differing only in case would make the lower-case mapping ambiguous.
      throw new Error(`enum ${desc.typeName}: ${value.name} clashes with another value in lower case`);
    }
    numberOf.set(name, value.number);
    if (!nameOf.has(value.number)) nameOf.set(value.number, name);
  }
  const names = [...numberOf.keys()].map((n) => JSON.stringify(n)).join(", ");
  const expected = `must be one of ${names}, or an integer that is not one of their numbers (a value this gateway does not know)`;
  return {
    out: (value) => nameOf.get(value as number) ?? (value as number),
    in(json, pointer, issues) {
      if (typeof json === "string") {
        const number = numberOf.get(json);
        if (number !== undefined) return number;
      } else if (typeof json === "number" && Number.isInteger(json) && json >= INT32_MIN && json <= INT32_MAX) {
        const name = nameOf.get(json);
        if (name === undefined) return json;
        issues.add(pointer, `must be the name "${name}", not the number ${json}`);
        return INVALID;
      }
      issues.add(pointer, `${expected}, not ${describe(json)}`);
      return INVALID;
    },
  };
}
