// Component schemas with stable names. Route schemas embed TypeBox schemas that carry a `$id`
// (schemas/common.ts `named()`: Job, JobInput, Problem, ...). Left alone, @fastify/swagger
// inlines them at every use; registering them with fastify.addSchema would name them def-N and
// would also hand them to the validator and serializer compilers. Instead, each is collected
// under its $id and the OpenAPI view of a route refers to it with $ref. fastify keeps
// validating and serializing with the route's own schemas: nothing here touches them.
//
// The schemas are composed from copies without $id (Ajv refuses one $id at two places), so a
// named schema also appears unnamed inside others (Job's body in JobList, Service's in Job).
// Such a twin, equal to a named schema but for the $id, is referred to by name as well.
import { isDeepStrictEqual } from "node:util";
import { isJsonObject as isObject } from "../json/errors.js";

export const SCHEMA_REF_PREFIX = "#/components/schemas/";

type JsonObject = Record<string, unknown>;

function withoutId(schema: JsonObject): JsonObject {
  const { $id: _id, ...rest } = schema;
  return rest;
}

export class NamedSchemas {
  /** Component schemas by name, filled by build(). @fastify/swagger is given this very object. */
  readonly components: Record<string, JsonObject> = {};
  /** Each named schema without its $id, by name. */
  private readonly bodies = new Map<string, JsonObject>();

  /** Remembers every subschema of `value` (a route's body or responses) that has a $id. */
  collect(value: unknown): void {
    if (Array.isArray(value)) {
      for (const item of value) this.collect(item);
      return;
    }
    if (!isObject(value)) return;
    if (typeof value.$id === "string") this.add(value.$id, value);
    for (const child of Object.values(value)) this.collect(child);
  }

  /** Fills `components` from what was collected; call once every route is known. */
  build(): void {
    // In name order: adding a route then adds to the document without reordering it.
    const names = [...this.bodies.keys()].sort();
    for (const name of names) this.components[name] = this.copyChildren(this.bodies.get(name) ?? {});
  }

  /**
   * A plain-JSON copy of `value` in which every named schema, and every twin of one, is a $ref
   * to its component. TypeBox's symbol-keyed markers are left behind.
   */
  referenced(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((item) => this.referenced(item));
    if (!isObject(value)) return value;
    const name = this.nameOf(value) ?? this.twinOf(value);
    return name === undefined ? this.copyChildren(value) : { $ref: `${SCHEMA_REF_PREFIX}${name}` };
  }

  private copyChildren(value: JsonObject): JsonObject {
    const copy: JsonObject = {};
    for (const [key, child] of Object.entries(value)) if (key !== "$id") copy[key] = this.referenced(child);
    return copy;
  }

  /** The schema's $id, if the component of that name is this schema. */
  private nameOf(value: JsonObject): string | undefined {
    if (typeof value.$id !== "string") return undefined;
    const body = this.bodies.get(value.$id);
    return body !== undefined && isDeepStrictEqual(body, withoutId(value)) ? value.$id : undefined;
  }

  private twinOf(value: JsonObject): string | undefined {
    if (value.type !== "object" || typeof value.description !== "string") return undefined;
    for (const [name, body] of this.bodies) {
      if (body.description === value.description && isDeepStrictEqual(body, value)) return name;
    }
    return undefined;
  }

  private add(name: string, schema: JsonObject): void {
    // One name, one schema: the first keeps the name. A different schema under the same $id
    // (a copy with another description, say) stays inline rather than be misnamed; a
    // documentation detail is no reason to stop the gateway from starting.
    if (!this.bodies.has(name)) this.bodies.set(name, withoutId(schema));
  }
}
