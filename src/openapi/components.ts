// Component schemas: one per message, enum and stream line (docs/architecture.md, "Layout"). The
// schemas of schemas/ are composed from one another as they are, so every route's schema is
// self-contained for fastify's validators and serializers, untouched here. A component mark
// (schemas/common.ts `named()`) on each schema and each of its copies says which component
// it is; in the OpenAPI view of a route every marked copy becomes a $ref, with the copy's
// own description and examples beside it where they differ from the component's, and the
// components hold each marked schema once.
//
// A copy that differs from its component in anything but those two annotations, or two
// different schemas with one name, are mistakes in schemas/: building the document throws,
// so no message is ever inlined silently.
import { isDeepStrictEqual } from "node:util";
import { componentOf } from "../../schemas/common.js";
import type { ComponentMark } from "../../schemas/common.js";
import { isJsonObject as isObject } from "../json/errors.js";

export const SCHEMA_REF_PREFIX = "#/components/schemas/";

type JsonObject = Record<string, unknown>;

/**
 * Stands for $ref beside a copy's own annotations until the document is finished: @fastify/swagger
 * keeps only the $ref of a schema that has one (as OpenAPI 3.0 required), where 3.1 lets a
 * $ref have a description and examples of its own.
 */
const ANNOTATED_REF = "x-annotated-ref";

/** The document with each ANNOTATED_REF a $ref again (in place), $ref first for readers. */
export function restoreAnnotatedRefs(value: unknown): void {
  if (Array.isArray(value)) {
    for (const item of value) restoreAnnotatedRefs(item);
    return;
  }
  if (!isObject(value)) return;
  const ref = value[ANNOTATED_REF];
  if (typeof ref === "string") {
    const rest = Object.entries(value).filter(([key]) => key !== ANNOTATED_REF);
    for (const key of Object.keys(value)) Reflect.deleteProperty(value, key);
    Object.assign(value, { $ref: ref }, Object.fromEntries(rest));
  }
  for (const child of Object.values(value)) restoreAnnotatedRefs(child);
}

/** The annotations a copy may change (schemas/common.ts doc()). */
const ANNOTATIONS = ["description", "examples"] as const;

/** Plain JSON: symbol keys (TypeBox's and the component marks) left behind. */
function plain(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value)) as unknown;
}

function withoutAnnotations(value: unknown): unknown {
  if (!isObject(value)) return value;
  const rest: JsonObject = { ...value };
  for (const key of ANNOTATIONS) Reflect.deleteProperty(rest, key);
  return rest;
}

export class NamedSchemas {
  /** Component schemas by name, filled by build(). @fastify/swagger is given this very object. */
  readonly components: Record<string, JsonObject> = {};
  /** The schema of each component found, by name. */
  private readonly found = new Map<string, unknown>();
  /** Each component's schema as plain JSON without its annotations, to compare copies with. */
  private readonly shapes = new Map<string, unknown>();

  /** Finds every component in `value` (a route's body or responses), and those they contain. */
  collect(value: unknown): void {
    if (Array.isArray(value)) {
      for (const item of value) this.collect(item);
      return;
    }
    if (!isObject(value)) return;
    const mark = componentOf(value);
    if (mark !== undefined && this.add(mark)) this.collect(Object.values(mark.schema));
    for (const child of Object.values(value)) this.collect(child);
  }

  /** Fills `components` from what was collected; call once every route is known. */
  build(): void {
    // In name order: adding a route then adds to the document without reordering it.
    for (const name of [...this.found.keys()].sort()) this.components[name] = this.copyChildren(this.found.get(name));
  }

  /**
   * A plain-JSON copy of `value` in which every component, and every copy of one, is a $ref to
   * it. TypeBox's symbol-keyed markers are left behind. With `keepAnnotations` (a parameter's
   * schema, whose description and examples @fastify/swagger lifts onto the parameter) `value`
   * itself, if it is a copy, keeps its description and examples even where they are the
   * component's; what it contains does not.
   */
  referenced(value: unknown, keepAnnotations = false): unknown {
    if (Array.isArray(value)) return value.map((item) => this.referenced(item));
    if (!isObject(value)) return value;
    const mark = componentOf(value);
    return mark === undefined ? this.copyChildren(value) : this.reference(value, mark, keepAnnotations);
  }

  /** {$ref} to the component (anyOf [it, null] for a nullable copy), with the copy's annotations where they differ from it. */
  private reference(copy: JsonObject, mark: ComponentMark, keepAnnotations: boolean): JsonObject {
    const shape = this.shapes.get(mark.name);
    if (shape === undefined) throw new Error(`component ${mark.name} was not collected`);
    const expected = mark.nullable === true ? orNull(shape) : shape;
    if (!isDeepStrictEqual(withoutAnnotations(plain(copy)), expected)) {
      throw new Error(`a copy of component ${mark.name} differs from it in more than its description and examples`);
    }
    const $ref = `${SCHEMA_REF_PREFIX}${mark.name}`;
    const annotations: JsonObject = {};
    const component = this.found.get(mark.name) as JsonObject;
    for (const key of ANNOTATIONS) {
      const own = copy[key];
      if (own !== undefined && (keepAnnotations || !isDeepStrictEqual(own, component[key]))) annotations[key] = plain(own);
    }
    if (mark.nullable === true) return { anyOf: [{ $ref }, { type: "null" }], ...annotations };
    // @fastify/swagger drops whatever stands beside a $ref; restoreAnnotatedRefs() puts it back.
    return Object.keys(annotations).length === 0 ? { $ref } : { [ANNOTATED_REF]: $ref, ...annotations };
  }

  private copyChildren(value: unknown): JsonObject {
    const copy: JsonObject = {};
    if (!isObject(value)) return copy;
    for (const [key, child] of Object.entries(value)) copy[key] = this.referenced(child);
    const mapping = discriminatorMapping(value);
    if (mapping !== undefined) copy.discriminator = { ...(copy.discriminator as JsonObject), mapping };
    // A map's empty `properties` (TypeBox writes one) says nothing beside its additionalProperties.
    if (isObject(copy.additionalProperties) && isObject(copy.properties) && Object.keys(copy.properties).length === 0) Reflect.deleteProperty(copy, "properties");
    return this.withoutRepeats(compactUnion(copy));
  }

  /**
   * `anyOf [{$ref: C}, null]` (a nullable copy of a component in an input form) without the
   * description and examples that C itself has: the reference says them.
   */
  private withoutRepeats(schema: JsonObject): JsonObject {
    const [first, second, ...rest] = Array.isArray(schema.anyOf) ? (schema.anyOf as unknown[]) : [];
    if (rest.length > 0 || !isDeepStrictEqual(second, { type: "null" }) || !isObject(first) || Object.keys(first).length !== 1) return schema;
    // Until the document is finished, a reference may still be written as ANNOTATED_REF.
    const ref = first.$ref ?? first[ANNOTATED_REF];
    const component = typeof ref === "string" && ref.startsWith(SCHEMA_REF_PREFIX) ? this.found.get(ref.slice(SCHEMA_REF_PREFIX.length)) : undefined;
    if (!isObject(component)) return schema;
    const own: JsonObject = { ...schema };
    for (const key of ANNOTATIONS) if (own[key] !== undefined && isDeepStrictEqual(plain(own[key]), plain(component[key]))) Reflect.deleteProperty(own, key);
    return own;
  }

  /** Remembers a component; false when it was known already. */
  private add(mark: ComponentMark): boolean {
    const known = this.found.get(mark.name);
    if (known === mark.schema) return false;
    if (known !== undefined) {
      if (isDeepStrictEqual(plain(known), plain(mark.schema))) return false;
      throw new Error(`two different schemas are named ${mark.name}`);
    }
    this.found.set(mark.name, mark.schema);
    this.shapes.set(mark.name, withoutAnnotations(plain(mark.schema)));
    return true;
  }
}

/**
 * The mapping of a discriminated oneOf: each branch's constant of the discriminating property to
 * the branch's component (OpenAPI needs it when the values are not the components' names).
 */
function discriminatorMapping(schema: JsonObject): Record<string, string> | undefined {
  const { discriminator, oneOf } = schema;
  if (!isObject(discriminator) || typeof discriminator.propertyName !== "string" || !Array.isArray(oneOf)) return undefined;
  const property = discriminator.propertyName;
  const mapping: Record<string, string> = {};
  for (const branch of oneOf) {
    const mark = componentOf(branch);
    const value = isObject(branch) && isObject(branch.properties) && isObject(branch.properties[property]) ? branch.properties[property].const : undefined;
    if (mark === undefined || typeof value !== "string") throw new Error(`a branch of a discriminated oneOf is not a component with a constant ${property}`);
    mapping[value] = `${SCHEMA_REF_PREFIX}${mark.name}`;
  }
  return mapping;
}

/** The anyOf of a union's shape with null as one more alternative. */
function orNull(shape: unknown): unknown {
  if (!isObject(shape) || !Array.isArray(shape.anyOf)) throw new Error("a nullable copy of a component that is not a union");
  return { ...shape, anyOf: [...(shape.anyOf as unknown[]), { type: "null" }] };
}

/** Keywords after which a schema's `type` alone does not say what it allows, or that `null` would break. */
const NOT_SIMPLE = ["$ref", "anyOf", "oneOf", "allOf", "not", "const", "enum", "if"];

/**
 * The same union, written shorter for readers (the document only; validation keeps its own
 * schemas): no branch repeats the union's own description or examples, and `anyOf [S, null]`
 * for a schema S of one `type` becomes S with `type: [S's type, "null"]`, which allows the same
 * values, since S's other keywords apply only to values of its type.
 */
function compactUnion(schema: JsonObject): JsonObject {
  const key = Array.isArray(schema.anyOf) ? "anyOf" : Array.isArray(schema.oneOf) ? "oneOf" : undefined;
  if (key === undefined) return schema;
  const branches = (schema[key] as unknown[]).map((branch) => {
    if (!isObject(branch)) return branch;
    const own: JsonObject = { ...branch };
    for (const annotation of ANNOTATIONS) if (isDeepStrictEqual(own[annotation], schema[annotation])) Reflect.deleteProperty(own, annotation);
    return own;
  });
  const [first, second] = branches;
  if (key === "anyOf" && branches.length === 2 && isDeepStrictEqual(second, { type: "null" }) && isSimple(first)) {
    const { anyOf: _anyOf, ...rest } = schema;
    return { ...rest, ...first, type: [first.type, "null"] };
  }
  return { ...schema, [key]: key === "anyOf" ? withEnums(branches) : branches };
}

/** anyOf branches with each run of string constants ({const, type: "string"}) as one string enum. */
function withEnums(branches: readonly unknown[]): unknown[] {
  const out: unknown[] = [];
  for (const branch of branches) {
    const previous = out.at(-1);
    if (!isStringConstant(branch)) out.push(branch);
    else if (isObject(previous) && previous.type === "string" && Array.isArray(previous.enum) && Object.keys(previous).length === 2) previous.enum.push(branch.const);
    else out.push({ type: "string", enum: [branch.const] });
  }
  // A run of one stays as it was.
  return out.map((branch) => (isObject(branch) && Array.isArray(branch.enum) && branch.enum.length === 1 ? { const: (branch.enum as unknown[])[0], type: "string" } : branch));
}

function isStringConstant(schema: unknown): schema is { const: string; type: "string" } {
  return isObject(schema) && typeof schema.const === "string" && schema.type === "string" && Object.keys(schema).length === 2;
}

function isSimple(schema: unknown): schema is JsonObject & { type: string } {
  return isObject(schema) && typeof schema.type === "string" && schema.type !== "null" && NOT_SIMPLE.every((key) => !(key in schema));
}
