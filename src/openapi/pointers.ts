// A property said once. Several components have properties that say exactly the same (JobPatch
// repeats most of JobInput; AwsNode and AwsNodeInput share a constrained nodeId) or the same
// with null allowed (an input form's property beside its output form's). The first property
// of its kind, in component order, is kept; each later one becomes a $ref to it (a JSON
// pointer into that component), or `anyOf [that $ref, null]` for the null-allowing copy, when
// that is shorter than what it replaces. Description, examples and constraints are then
// reached through the $ref, as JSON Schema 2020-12 (OpenAPI 3.1) resolves a $ref to the
// whole schema it points to; the values each property allows are unchanged.
import { isDeepStrictEqual } from "node:util";
import { SCHEMA_REF_PREFIX } from "./components.js";
import type { OpenApiDocument } from "./document.js";

type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);

const NULL = { type: "null" };

/** A reference token of a JSON pointer (RFC 6901): ~ and / escaped. */
function token(name: string): string {
  return name.replaceAll("~", "~0").replaceAll("/", "~1");
}

/**
 * The schema that allows what `schema` allows except null, when `schema` is one of the two
 * null-allowing forms the document writes: `type: [T, "null"]` (T's other keywords apply only
 * to values of type T), or `anyOf [S, {type: "null"}]` with annotations beside it.
 */
function withoutNull(schema: JsonObject): JsonObject | undefined {
  const { type, anyOf } = schema;
  if (Array.isArray(type) && type.length === 2 && type[1] === "null" && typeof type[0] === "string") return { ...schema, type: type[0] };
  if (Array.isArray(anyOf) && anyOf.length === 2 && isObject(anyOf[0]) && isDeepStrictEqual(anyOf[1], NULL)) {
    const { anyOf: _anyOf, ...annotations } = schema;
    const bare: JsonObject = { ...anyOf[0] };
    for (const [key, value] of Object.entries(annotations)) {
      if (key in bare) return undefined;
      bare[key] = value;
    }
    return bare;
  }
  return undefined;
}

/** Every component's properties become references to the first property that says the same, where shorter. */
export function referToAlikeProperties(doc: OpenApiDocument): void {
  const schemas = (doc.components?.schemas ?? {}) as Record<string, JsonObject>;
  const properties = Object.entries(schemas).flatMap(([name, schema]) =>
    isObject(schema.properties) ? Object.keys(schema.properties).map((property) => ({ owner: schema.properties as JsonObject, property, pointer: `${SCHEMA_REF_PREFIX}${token(name)}/properties/${token(property)}` })) : [],
  );
  // The first property of each text, and what each text is written as: a first property as it
  // is, or as `anyOf [$ref, null]` to the first property without null. Targets of a $ref have
  // no null, so they are never replaced themselves: no pointer leads to a pointer.
  const first = new Map<string, string>();
  for (const { owner, property, pointer } of properties) {
    const text = JSON.stringify(owner[property]);
    if (!first.has(text)) first.set(text, pointer);
  }
  const written = new Map<string, JsonObject>();
  for (const [text, pointer] of first) {
    const value: unknown = JSON.parse(text);
    const bare = isObject(value) ? withoutNull(value) : undefined;
    const target = bare === undefined ? undefined : first.get(JSON.stringify(bare));
    const replacement = { anyOf: [{ $ref: target }, NULL] };
    if (target !== undefined && target !== pointer && JSON.stringify(replacement).length < text.length) written.set(text, replacement);
  }
  for (const { owner, property, pointer } of properties) {
    const text = JSON.stringify(owner[property]);
    const firstPointer = first.get(text) ?? pointer;
    const replacement = written.get(text) ?? (firstPointer === pointer ? undefined : { $ref: firstPointer });
    if (replacement !== undefined && JSON.stringify(replacement).length < text.length) owner[property] = replacement;
  }
}
