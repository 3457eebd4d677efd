// Walks a JSON schema (a TypeBox schema, or a component of the OpenAPI document with $refs
// resolved) beside a protobuf message descriptor and lists every disagreement: a field of the
// message with no property, a property with no field, or a property whose JSON type is not
// the one the mirror writes for the field (docs/architecture.md, "JSON rules"):
//
//   string → string; bool → boolean; 32-bit integers → integer in their range; 64-bit
//   integers → string (format int64 or uint64); float, double → number, or "NaN"/"Infinity";
//   enum → its lower-case names, then an integer; Timestamp → string (format date-time); a
//   flattened wrapper (JobId, OptionalInt, ...) → the JSON type of its one field; any other
//   message → a closed object, walked in turn; repeated → array of those; map → object whose
//   additionalProperties are those.
//
// Output schemas also have `required` = what the mirror always emits. In the lenient mode
// (request bodies: JobInput, ServiceInput, ...) every property may also be null and none need
// be required.
import { ScalarType, create } from "@bufbuild/protobuf";
import type { DescEnum, DescField, DescMessage } from "@bufbuild/protobuf";
import { enumJsonNames } from "../../src/json/enums.js";
import { messageToJson } from "../../src/json/mirror.js";
import { FLATTENED_WRAPPERS } from "../../src/json/presence.js";

type Json = Record<string, unknown>;

export interface WalkOptions {
  /** Resolves a $ref (the document's components); TypeBox schemas have none. */
  readonly resolve?: (ref: string) => unknown;
  /** Request-body form: properties may be null, none is required. */
  readonly lenient?: boolean;
}

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

const INT32 = { minimum: -2147483648, maximum: 2147483647 };
const UINT32 = { minimum: 0, maximum: 4294967295 };
const NON_FINITE = ["NaN", "Infinity", "-Infinity"];

/** The constants a branch of a union allows: its const, or its enum (the document merges string constants into one). */
function constantsOf(branch: Json): unknown[] {
  if (branch.const !== undefined) return [branch.const];
  return Array.isArray(branch.enum) ? (branch.enum as unknown[]) : [];
}

class Walk {
  readonly found: string[] = [];
  /** Message types met, by full name. */
  readonly seen = new Set<string>();
  private readonly visited = new Set<unknown>();

  constructor(private readonly options: WalkOptions) {}

  private deref(schema: unknown): Json {
    let at = schema;
    for (let hops = 0; isObject(at) && typeof at.$ref === "string"; hops++) {
      if (this.options.resolve === undefined || hops > 8) return {};
      at = this.options.resolve(at.$ref);
    }
    return isObject(at) ? at : {};
  }

  /** The schema without its null alternative (lenient mode): T from type [T, "null"] or anyOf [..., null]. */
  private nonNull(schema: unknown): Json {
    const own = this.deref(schema);
    if (this.options.lenient !== true) return own;
    if (Array.isArray(own.type)) {
      const types = own.type.filter((t) => t !== "null");
      return { ...own, type: types.length === 1 ? types[0] : types };
    }
    if (Array.isArray(own.anyOf) && own.anyOf.some((b) => isObject(b) && b.type === "null")) {
      const rest = own.anyOf.filter((b) => !(isObject(b) && b.type === "null"));
      return rest.length === 1 ? this.deref(rest[0]) : { ...own, anyOf: rest };
    }
    return own;
  }

  private fail(at: string, message: string): void {
    this.found.push(`${at || "/"}: ${message}`);
  }

  message(schema: unknown, desc: DescMessage, at: string): void {
    const own = this.nonNull(schema);
    this.seen.add(desc.typeName);
    if (this.visited.has(own)) return;
    this.visited.add(own);
    if (own.type !== "object" || !isObject(own.properties)) {
      this.fail(at, `${desc.typeName} is not an object schema`);
      return;
    }
    if (own.additionalProperties !== false) this.fail(at, `${desc.typeName} is not closed (additionalProperties: false)`);
    const properties = own.properties;
    for (const field of desc.fields) {
      if (!(field.jsonName in properties)) this.fail(at, `field ${field.name} of ${desc.typeName} has no property ${field.jsonName}`);
    }
    const names = new Set(desc.fields.map((f) => f.jsonName));
    for (const name of Object.keys(properties)) if (!names.has(name)) this.fail(`${at}/${name}`, `no field of ${desc.typeName} is named ${name}`);
    if (this.options.lenient !== true) {
      const required = [...((own.required as string[] | undefined) ?? [])].sort();
      const emitted = Object.keys(messageToJson(desc, create(desc))).sort();
      if (JSON.stringify(required) !== JSON.stringify(emitted)) this.fail(at, `required ${JSON.stringify(required)}, but the mirror always emits ${JSON.stringify(emitted)}`);
    }
    for (const field of desc.fields) if (field.jsonName in properties) this.field(properties[field.jsonName], field, `${at}/${field.jsonName}`);
  }

  private field(schema: unknown, field: DescField, at: string): void {
    const own = this.nonNull(schema);
    if (field.fieldKind === "list") {
      if (own.type !== "array") this.fail(at, `repeated ${field.name} is not an array`);
      else this.value(own.items, field, `${at}/0`);
    } else if (field.fieldKind === "map") {
      if (own.type !== "object" || !isObject(own.additionalProperties)) this.fail(at, `map ${field.name} is not an object with additionalProperties`);
      else this.value(own.additionalProperties, field, `${at}/*`);
    } else {
      this.value(schema, field, at);
    }
  }

  /** One value of the field: the field itself, an element of a list, or a value of a map. */
  private value(schema: unknown, field: DescField, at: string): void {
    if (field.enum !== undefined) this.enumValue(schema, field.enum, at);
    else if (field.message !== undefined) this.messageValue(schema, field.message, at);
    else this.scalar(schema, field.scalar, at);
  }

  private messageValue(schema: unknown, message: DescMessage, at: string): void {
    if (message.typeName === "google.protobuf.Timestamp") {
      const own = this.nonNull(schema);
      if (own.type !== "string" || own.format !== "date-time") this.fail(at, "a Timestamp is not a string of format date-time");
    } else if (FLATTENED_WRAPPERS.has(message.typeName)) {
      const [inner] = message.fields;
      if (inner !== undefined) this.value(schema, inner, at);
    } else {
      this.message(schema, message, at);
    }
  }

  private enumValue(schema: unknown, desc: DescEnum, at: string): void {
    const branches = this.branches(schema);
    const names = branches.flatMap(constantsOf);
    if (JSON.stringify(names) !== JSON.stringify(enumJsonNames(desc))) this.fail(at, `enum ${desc.typeName}: names ${JSON.stringify(names)}, not ${JSON.stringify(enumJsonNames(desc))}`);
    const last = branches.at(-1);
    if (last?.type !== "integer" || last.minimum !== INT32.minimum || last.maximum !== INT32.maximum) this.fail(at, `enum ${desc.typeName}: no int32 for unknown values`);
  }

  /** The alternatives of a union (nulls aside), each dereferenced; a schema that is no union is its own one. */
  private branches(schema: unknown): Json[] {
    const own = this.nonNull(schema);
    if (!Array.isArray(own.anyOf)) return [own];
    return own.anyOf.flatMap((b) => this.branches(b)).filter((b) => b.type !== "null");
  }

  private scalar(schema: unknown, scalar: ScalarType, at: string): void {
    const own = this.nonNull(schema);
    const expect = (ok: boolean, what: string) => {
      if (!ok) this.fail(at, `is not ${what} (the field is ${ScalarType[scalar].toLowerCase()})`);
    };
    switch (scalar) {
      case ScalarType.STRING:
        expect(own.type === "string" && own.format !== "int64" && own.format !== "uint64", "a string");
        break;
      case ScalarType.BOOL:
        expect(own.type === "boolean", "a boolean");
        break;
      case ScalarType.BYTES:
        expect(own.type === "string", "a (base64) string");
        break;
      case ScalarType.INT32:
      case ScalarType.SINT32:
      case ScalarType.SFIXED32:
        expect(own.type === "integer" && own.minimum === INT32.minimum && own.maximum === INT32.maximum, "an integer in the int32 range");
        break;
      case ScalarType.UINT32:
      case ScalarType.FIXED32:
        expect(own.type === "integer" && own.minimum === UINT32.minimum && own.maximum === UINT32.maximum, "an integer in the uint32 range");
        break;
      case ScalarType.INT64:
      case ScalarType.SINT64:
      case ScalarType.SFIXED64:
        expect(own.type === "string" && own.format === "int64", "a string of format int64");
        break;
      case ScalarType.UINT64:
      case ScalarType.FIXED64:
        expect(own.type === "string" && own.format === "uint64", "a string of format uint64");
        break;
      case ScalarType.FLOAT:
      case ScalarType.DOUBLE: {
        const branches = this.branches(schema);
        const consts = branches.flatMap(constantsOf);
        expect(branches.some((b) => b.type === "number") && NON_FINITE.every((n) => consts.includes(n)), 'a number, or "NaN", "Infinity", "-Infinity"');
        break;
      }
    }
  }
}

/** Every disagreement between `schema` and the message `desc`, each "where: what"; none when they agree. */
export function disagreements(schema: unknown, desc: DescMessage, options: WalkOptions = {}): string[] {
  const walk = new Walk(options);
  walk.message(schema, desc, "");
  return walk.found;
}

/** The message types the walk meets from `desc`, for the tests that check coverage. */
export function messagesMet(schema: unknown, desc: DescMessage, options: WalkOptions = {}): Set<string> {
  const walk = new Walk(options);
  walk.message(schema, desc, "");
  return walk.seen;
}
