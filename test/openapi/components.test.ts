// Component naming: named schemas and their unnamed twins become references; the rest, and a
// second schema that claims a name already taken, stay inline.
import { Type } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import { NamedSchemas } from "../../src/openapi/components.js";

const Body = Type.Object({ a: Type.String({ description: "a" }) }, { description: "A thing." });
const Thing = { ...Body, $id: "Thing" };
const List = Type.Object({ things: Type.Array(Body) }, { $id: "List", description: "Things." });

function build(...schemas: unknown[]): NamedSchemas {
  const named = new NamedSchemas();
  for (const schema of schemas) named.collect(schema);
  named.build();
  return named;
}

describe("NamedSchemas", () => {
  it("names each schema with a $id after it, and refers to it by $ref", () => {
    const named = build({ 200: Thing, 201: List });
    expect(Object.keys(named.components)).toEqual(["List", "Thing"]);
    expect(named.referenced({ 200: Thing })).toEqual({ 200: { $ref: "#/components/schemas/Thing" } });
    expect(named.components.Thing).not.toHaveProperty("$id");
  });

  it("refers to an unnamed twin of a named schema by its name", () => {
    const named = build(Thing, List);
    expect(named.components.List).toMatchObject({ properties: { things: { items: { $ref: "#/components/schemas/Thing" } } } });
  });

  it("keeps a schema inline when a different one has its $id already", () => {
    const other = { ...Thing, description: "Another thing." };
    const named = build(Thing, other);
    const view = named.referenced(other) as Record<string, unknown>;
    expect(view).not.toHaveProperty("$ref");
    expect(view).not.toHaveProperty("$id");
    expect(view.description).toBe("Another thing.");
  });

  it("leaves the route's own schemas untouched", () => {
    const response = { 200: Thing };
    const before = JSON.stringify(response);
    build(response).referenced(response);
    expect(JSON.stringify(response)).toBe(before);
    expect(Thing.$id).toBe("Thing");
  });
});
