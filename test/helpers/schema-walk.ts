// Walks TypeBox schemas for the documentation tests.
import { TypeGuard } from "@sinclair/typebox";
import type { TSchema } from "@sinclair/typebox";

/** Every property of every object schema inside `schema`, with its path. */
export function properties(schema: TSchema, at: string): [string, TSchema][] {
  const found: [string, TSchema][] = [];
  if (TypeGuard.IsObject(schema)) {
    for (const [name, p] of Object.entries(schema.properties)) found.push([`${at}/${name}`, p], ...properties(p, `${at}/${name}`));
    const additional: unknown = schema.additionalProperties;
    if (typeof additional === "object" && additional !== null) found.push(...properties(additional as TSchema, `${at}/*`));
  } else if (TypeGuard.IsArray(schema)) {
    found.push(...properties(schema.items, `${at}/0`));
  } else if (TypeGuard.IsUnion(schema)) {
    for (const branch of schema.anyOf) found.push(...properties(branch, at));
  } else if (Array.isArray(schema.oneOf)) {
    for (const branch of schema.oneOf as TSchema[]) found.push(...properties(branch, at));
  }
  return found;
}
