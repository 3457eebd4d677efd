// The JSON mirror (docs/architecture.md, "JSON rules"): one generic, descriptor-driven converter
// between protobuf-es messages and JSON values. Each message type is compiled once, on first use,
// into a plan of
// closures (one emitter and one reader per field) cached by type name, so converting a message
// walks the plan, never the descriptors. Type-specific knowledge lives in presence.ts.
import { create } from "@bufbuild/protobuf";
import { isScalarZeroValue } from "@bufbuild/protobuf/reflect";
import type { DescField, DescMessage, DescOneof, JsonObject, MessageShape } from "@bufbuild/protobuf";
import { FeatureSet_FieldPresence } from "@bufbuild/protobuf/wkt";
import type { Codec, Fields, OneofValue } from "./codec.js";
import { listCodec, mapCodec, wrapperCodec } from "./containers.js";
import { enumCodec } from "./enums.js";
import { INVALID, Issues, childPointer, describe, isJsonObject, prefixed, setOwn } from "./errors.js";
import { FLATTENED_WRAPPERS, PRESENCE_OVERRIDES } from "./presence.js";
import type { PresenceOverride } from "./presence.js";
import { scalarCodec } from "./scalars.js";
import { timestampCodec } from "./timestamp.js";

/** JSON of a protobuf message: the object form of its plan (also for a top-level wrapper). */
export function messageToJson<Desc extends DescMessage>(schema: Desc, message: MessageShape<Desc>): JsonObject {
  if (message.$typeName !== schema.typeName) {
    throw new TypeError(`messageToJson: expected a ${schema.typeName}, got a ${message.$typeName}`);
  }
  return planOf(schema).out(message) as JsonObject;
}

/**
 * A protobuf message (built with create()) from its JSON. Throws a MirrorError listing every
 * problem, with JSON Pointers prefixed by `basePointer` (where the value sits in a request).
 */
export function messageFromJson<Desc extends DescMessage>(schema: Desc, json: unknown, basePointer = ""): MessageShape<Desc> {
  const issues = new Issues();
  const message = planOf(schema).in(json, basePointer, issues);
  issues.throwIfAny();
  return message as MessageShape<Desc>;
}

const plans = new Map<string, Codec>();

function planOf(desc: DescMessage): Codec {
  let plan = plans.get(desc.typeName);
  if (plan === undefined) {
    plan = compileMessage(desc);
    plans.set(desc.typeName, plan);
  }
  return plan;
}

/** The codec of a message-typed value: special JSON forms first, else the object plan. */
function messageValueCodec(desc: DescMessage): Codec {
  if (desc.typeName === "google.protobuf.Timestamp") return timestampCodec;
  if (FLATTENED_WRAPPERS.has(desc.typeName)) return wrapperCodec(desc);
  if (desc.typeName.startsWith("google.protobuf.")) {
    // Fail when the plan is built, not on some later message: no JSON form was agreed for it.
    throw new Error(`the JSON mirror has no mapping for ${desc.typeName}`);
  }
  // Deferred, so that compiling a type does not compile every type it reaches (or loop).
  let plan: Codec | undefined;
  return {
    out: (value) => (plan ??= planOf(desc)).out(value),
    in: (json, pointer, issues) => (plan ??= planOf(desc)).in(json, pointer, issues),
  };
}

/** The codec of one value of a field: the element type for lists, the value type for maps. */
function valueCodec(field: DescField): Codec {
  if (field.message !== undefined) return messageValueCodec(field.message);
  if (field.enum !== undefined) return enumCodec(field.enum);
  return scalarCodec(field.scalar, field.fieldKind === "map" ? false : field.longAsString);
}

function fieldCodec(field: DescField): Codec {
  switch (field.fieldKind) {
    case "list":
      return listCodec(valueCodec(field));
    case "map":
      return mapCodec(field.mapKey, valueCodec(field));
    default:
      return valueCodec(field);
  }
}

type Emitter = (message: Fields, json: JsonObject) => void;

function put(json: JsonObject, key: string, codec: Codec, value: unknown): void {
  try {
    setOwn(json, key, codec.out(value));
  } catch (e) {
    throw prefixed(e, key);
  }
}

function always(local: string, key: string, codec: Codec): Emitter {
  return (m, j) => {
    put(j, key, codec, m[local]);
  };
}

function ifSet(local: string, key: string, codec: Codec): Emitter {
  return (m, j) => {
    if (m[local] !== undefined) put(j, key, codec, m[local]);
  };
}

function fieldEmitter(field: DescField, override: PresenceOverride | undefined): Emitter {
  const key = field.jsonName;
  const local = field.localName;
  const codec = fieldCodec(field);
  const omitEmpty = override === "omitEmpty";
  switch (field.fieldKind) {
    case "list":
      if (!omitEmpty) return always(local, key, codec);
      return (m, j) => {
        if ((m[local] as unknown[]).length > 0) put(j, key, codec, m[local]);
      };
    case "map":
      if (!omitEmpty) return always(local, key, codec);
      return (m, j) => {
        if (Object.keys(m[local] as object).length > 0) put(j, key, codec, m[local]);
      };
    case "message": {
      if (override !== "required") return ifSet(local, key, codec);
      const type = field.message;
      let zero: unknown;
      return (m, j) => {
        put(j, key, codec, m[local] ?? (zero ??= create(type)));
      };
    }
    case "scalar":
    case "enum": {
      // Explicit presence in proto3 means `optional`: emitted when set, even to "" or 0.
      if (field.presence !== FeatureSet_FieldPresence.IMPLICIT) {
        return ifSet(local, key, codec);
      }
      if (!omitEmpty) return always(local, key, codec);
      const type = field.scalar;
      const isZero = type === undefined ? (v: unknown) => v === 0 : (v: unknown) => isScalarZeroValue(type, v);
      return (m, j) => {
        if (!isZero(m[local])) put(j, key, codec, m[local]);
      };
    }
  }
}

/** A oneof group: its members are sibling properties, and only the set one is emitted. */
function oneofEmitter(oneof: DescOneof): Emitter {
  const members = new Map(oneof.fields.map((f) => [f.localName, { key: f.jsonName, codec: fieldCodec(f) }]));
  const local = oneof.localName;
  return (m, j) => {
    const { case: set, value } = m[local] as OneofValue;
    const member = set === undefined ? undefined : members.get(set);
    if (member !== undefined) put(j, member.key, member.codec, value);
  };
}

interface Reader {
  readonly field: DescField;
  readonly oneof: DescOneof | undefined;
  readonly codec: Codec;
}

function compileMessage(desc: DescMessage): Codec {
  const overrides = PRESENCE_OVERRIDES.get(desc.typeName) ?? {};
  for (const name of Object.keys(overrides)) {
    if (!desc.fields.some((f) => f.jsonName === name)) throw new Error(`presence override: ${desc.typeName} has no field ${name}`);
  }
  const emitters: Emitter[] = [];
  const readers = new Map<string, Reader>(); // a Map: a key "__proto__" finds nothing
  for (const member of desc.members) {
    if (member.kind === "oneof") {
      emitters.push(oneofEmitter(member));
      for (const field of member.fields) readers.set(field.jsonName, { field, oneof: member, codec: fieldCodec(field) });
    } else {
      emitters.push(fieldEmitter(member, overrides[member.jsonName]));
      readers.set(member.jsonName, { field: member, oneof: undefined, codec: fieldCodec(member) });
    }
  }
  const known = [...readers.keys()].join(", ");
  return {
    out(message) {
      const json: JsonObject = {};
      for (const emit of emitters) emit(message as Fields, json);
      return json;
    },
    in(json, pointer, issues) {
      if (!isJsonObject(json)) {
        issues.add(pointer, `must be an object (${desc.name}), not ${describe(json)}`);
        return INVALID;
      }
      const message = create(desc) as unknown as Fields;
      let chosen: Map<DescOneof, string> | undefined; // oneof → pointer of its member already set
      for (const key of Object.keys(json)) {
        const p = childPointer(pointer, key);
        const reader = readers.get(key);
        if (reader === undefined) {
          issues.add(p, `unknown property ${JSON.stringify(key)}; ${desc.name} has ${known === "" ? "no properties" : known}`);
          continue;
        }
        const item = json[key];
        if (item === null || item === undefined) continue; // null means absent
        const { field, oneof, codec } = reader;
        if (oneof !== undefined) {
          const other = (chosen ??= new Map<DescOneof, string>()).get(oneof);
          if (other !== undefined) {
            const names = oneof.fields.map((f) => f.jsonName).join(", ");
            issues.add(p, `only one of ${names} may be set, but ${other} is set too`);
            continue;
          }
          chosen.set(oneof, p);
        }
        const value = codec.in(item, p, issues);
        if (value === INVALID) continue;
        if (oneof === undefined) message[field.localName] = value;
        else message[oneof.localName] = { case: field.localName, value } satisfies OneofValue;
      }
      return message;
    },
  };
}
