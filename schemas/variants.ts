// Request-body variants derived from a response schema, so each message is described once.
//
// - Input (create, replace, any request body): the mirror reads every field as optional (the
//   proto3 zero value when absent) and `null` as absent, so every property becomes optional and
//   nullable, at every depth; map values and array elements stay non-null (proto3 JSON has no
//   "absent" element). Selected top-level properties may stay required (Job: jobId and
//   startDateTime).
// - Merge patch (RFC 7396): objects are patched property by property, so every property is
//   optional and nullable (null removes it), map values too (null removes the key); arrays
//   are replaced whole, so they take the input form.
//
// Each form of a component is a component too (docs/architecture.md, "Layout"): the input form of
// Service is ServiceInput, its merge-patch form ServicePatch, wherever a copy of Service is.
import { isDeepStrictEqual } from "node:util";
import { OptionalKind, Type, TypeGuard } from "@sinclair/typebox";
import type { Static, TObject, TSchema, TUnsafe } from "@sinclair/typebox";
import { componentOf, marked, named } from "./common.js";

/** Type of the input form of T: maps keep their value type, objects go optional + nullable. */
export type Lenient<T> = T extends readonly (infer E)[]
  ? Lenient<E>[]
  : T extends object
    ? string extends keyof T
      ? { [K in keyof T]: Lenient<T[K]> }
      : { [K in keyof T]?: Lenient<T[K]> | null }
    : T;

/** Type of an RFC 7396 merge patch of T. */
export type MergePatch<T> = T extends readonly unknown[]
  ? Lenient<T>
  : T extends object
    ? { [K in keyof T]?: MergePatch<T[K]> | null }
    : T;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** Lenient<T>, except that the properties R stay required and non-null. */
export type InputWith<T, R extends keyof T> = Simplify<Omit<Lenient<T>, R> & { [K in R]-?: Lenient<T[K]> }>;

type Annotations = { description?: string; examples?: unknown[] };

function annotations(schema: TSchema): Annotations {
  const out: Annotations = {};
  if (typeof schema.description === "string") out.description = schema.description;
  if (Array.isArray(schema.examples)) out.examples = schema.examples as unknown[];
  return out;
}

/** The schema without its Optional marker (a property's own type). */
function bare(schema: TSchema): TSchema {
  if (!TypeGuard.IsOptional(schema)) return schema;
  const { [OptionalKind]: _optional, ...rest } = schema as TSchema & { [OptionalKind]?: string };
  return rest;
}

function isMap(schema: TObject): schema is TObject & { additionalProperties: TSchema } {
  return Object.keys(schema.properties).length === 0 && typeof schema.additionalProperties === "object";
}

/** schema | null, as one flat anyOf (flat alternatives make better validation messages). */
function nullable(schema: TSchema): TSchema {
  if (!TypeGuard.IsUnion(schema)) return Type.Union([schema, Type.Null()], annotations(schema));
  const union = Type.Union([...schema.anyOf, Type.Null()], annotations(schema));
  const mark = componentOf(schema);
  return mark === undefined ? union : marked(union, () => ({ name: mark.name, schema: mark.schema, nullable: true }));
}

function objectOf(schema: TObject, property: (p: TSchema) => TSchema): TObject {
  const properties: Record<string, TSchema> = {};
  for (const [name, p] of Object.entries(schema.properties)) properties[name] = Type.Optional(nullable(property(bare(p))));
  return Type.Object(properties, { ...annotations(schema), additionalProperties: false });
}

type Form = (schema: TSchema) => TSchema;

/** The same JSON Schema (symbol keys, such as component marks, aside). */
function sameJson(a: TSchema, b: TSchema): boolean {
  return isDeepStrictEqual(JSON.parse(JSON.stringify(a)), JSON.parse(JSON.stringify(b)));
}

/**
 * `form` as a form of components: the form of a component's copy is a copy of the form of the
 * component, named after it with `suffix` (each computed once). Where `form` makes of a
 * component what `alike` makes of it, the component's form is `alike`'s, so that one schema
 * is not documented twice under two names (the merge patch of an object without maps is its
 * input form).
 */
function formOfComponents(form: Form, suffix: string, alike?: Form): Form {
  const ofComponent = new WeakMap<TSchema, TSchema | Form>();
  const apply = (schema: TSchema): TSchema => {
    const mark = componentOf(schema);
    if (mark === undefined || !TypeGuard.IsObject(schema)) return form(schema);
    const component = mark.schema;
    let own = ofComponent.get(component);
    if (own === undefined) {
      const made = form(component);
      own = alike !== undefined && sameJson(made, alike(component)) ? alike : named(made, `${mark.name}${suffix}`);
      ofComponent.set(component, own);
    }
    if (typeof own === "function") return own(schema);
    if (schema === component) return own;
    const ownForm = own;
    return marked(form(schema), () => ({ name: `${mark.name}${suffix}`, schema: ownForm }));
  };
  return apply;
}

const lenientSchema: Form = formOfComponents((schema) => {
  if (TypeGuard.IsArray(schema)) return Type.Array(lenientSchema(schema.items), annotations(schema));
  if (!TypeGuard.IsObject(schema)) return schema;
  if (isMap(schema)) return Type.Object({}, { ...annotations(schema), additionalProperties: lenientSchema(schema.additionalProperties) });
  return objectOf(schema, lenientSchema);
}, "Input");

const patchSchema: Form = formOfComponents(
  (schema) => {
    if (TypeGuard.IsArray(schema)) return lenientSchema(schema);
    if (!TypeGuard.IsObject(schema)) return schema;
    if (isMap(schema)) return Type.Object({}, { ...annotations(schema), additionalProperties: nullable(patchSchema(schema.additionalProperties)) });
    return objectOf(schema, patchSchema);
  },
  "Patch",
  lenientSchema,
);

/**
 * The request-body form of an object schema; `required` properties stay required, non-null.
 * `stricter` replaces the schema of a required property with a narrower one of the same type,
 * for what only input must satisfy (a new job's id must be one a path can address; a job the
 * Manager holds may have any).
 */
export function InputOf<T extends TObject, R extends keyof Static<T> & string = never>(
  schema: T,
  options: { name: string; description: string; required?: readonly R[]; stricter?: Partial<Record<R, TSchema>> },
): TUnsafe<InputWith<Static<T>, R>> {
  const lenient = objectOf(schema, lenientSchema);
  const properties: Record<string, TSchema> = { ...lenient.properties };
  const stricter: Partial<Record<string, TSchema>> = options.stricter ?? {};
  for (const name of options.required ?? []) {
    const own = (schema.properties as Record<string, TSchema | undefined>)[name];
    if (own === undefined) throw new Error(`InputOf: no property ${name}`);
    properties[name] = stricter[name] ?? lenientSchema(bare(own));
  }
  // The source's examples are valid input as they are: they carry over (documentation only).
  const object = Type.Object(properties, { ...annotations(schema), additionalProperties: false, description: options.description });
  return named(Type.Unsafe<InputWith<Static<T>, R>>(object), options.name);
}

/** The RFC 7396 merge-patch form of an object schema. */
export function PatchOf<T extends TObject>(schema: T, options: { name: string; description: string }): TUnsafe<MergePatch<Static<T>>> {
  const patch = objectOf(schema, patchSchema);
  const object = Type.Object(patch.properties, { additionalProperties: false, description: options.description });
  return named(Type.Unsafe<MergePatch<Static<T>>>(object), options.name);
}
