// Component naming: every schema marked by named(), and every copy of one, becomes a $ref to its
// component; a copy keeps its own description and examples beside the $ref; a copy that
// differs in anything else, or two schemas under one name, stop the document from being built.
import { Type } from "@sinclair/typebox";
import type { TSchema } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import { doc, named } from "../../schemas/common.js";
import { EnumOf } from "../../schemas/enums.js";
import { InputOf } from "../../schemas/variants.js";
import { NamedSchemas, restoreAnnotatedRefs } from "../../src/openapi/components.js";

const Thing = named(Type.Object({ a: Type.String({ description: "a" }) }, { description: "A thing." }), "Thing");
const List = named(Type.Object({ things: Type.Array(Thing), first: Type.Optional(doc(Thing, "The first thing.")) }, { description: "Things." }), "List");

function build(...schemas: unknown[]): NamedSchemas {
  const named = new NamedSchemas();
  for (const schema of schemas) named.collect(schema);
  named.build();
  return named;
}

describe("NamedSchemas", () => {
  it("makes each marked schema a component, found inside others too, and refers to it by $ref", () => {
    const components = build({ 200: List });
    expect(Object.keys(components.components)).toEqual(["List", "Thing"]);
    expect(components.referenced({ 200: List })).toEqual({ 200: { $ref: "#/components/schemas/List" } });
    expect(components.components.List).toMatchObject({ properties: { things: { items: { $ref: "#/components/schemas/Thing" } } } });
    expect(JSON.stringify(components.components)).not.toContain("$id");
  });

  it("keeps a copy's own description beside its $ref (through @fastify/swagger, which would drop it)", () => {
    const components = build(List);
    const list = structuredClone(components.components.List);
    expect(list).not.toHaveProperty(["properties", "first", "$ref"]);
    restoreAnnotatedRefs(list);
    expect(list).toMatchObject({ properties: { first: { $ref: "#/components/schemas/Thing", description: "The first thing." } } });
    expect(Object.keys((list as { properties: { first: object } }).properties.first)).toEqual(["$ref", "description"]);
    expect(components.components.Thing).toMatchObject({ description: "A thing." });
  });

  it("refuses a copy that differs from its component in more than its annotations", () => {
    const changed = { ...Thing, additionalProperties: false };
    expect(() => build(Thing).referenced({ body: changed })).toThrow(/copy of component Thing differs/);
  });

  it("refuses two different schemas under one name", () => {
    const other = named(Type.Object({ b: Type.Integer() }), "Thing");
    expect(() => build(Thing, other)).toThrow(/two different schemas are named Thing/);
  });

  it("shows an input form's nullable enum as anyOf [the enum, null], and an input form as a component of its own", () => {
    const Colour = EnumOf("Colour", "test.Colour", ["red", "green"] as const, "A colour.");
    const Paint = named(Type.Object({ colour: doc(Colour, "The paint's colour."), thing: Thing }, { description: "Paint." }), "Paint");
    const PaintInput = InputOf(Paint, { name: "PaintInput", description: "Paint to make." });
    const components = build(PaintInput);
    expect(Object.keys(components.components)).toEqual(["Colour", "PaintInput", "ThingInput"]);
    expect(components.components.PaintInput).toMatchObject({
      properties: {
        colour: { anyOf: [{ $ref: "#/components/schemas/Colour" }, { type: "null" }], description: "The paint's colour." },
        thing: { anyOf: [{ $ref: "#/components/schemas/ThingInput" }, { type: "null" }] },
      },
    });
    // The enum's names in one branch; a string or null as one type.
    expect(components.components.Colour).toMatchObject({ anyOf: [{ type: "string", enum: ["red", "green"] }, { type: "integer" }] });
    expect(components.components.ThingInput).toMatchObject({ properties: { a: { type: ["string", "null"], description: "a" } } });
  });

  it("writes the mapping of a discriminated oneOf from its branches' constants", () => {
    const line = (event: string) => named(Type.Object({ event: Type.Literal(event) }), `${event}Line`);
    const Line = named(Type.Unsafe<unknown>({ oneOf: [line("a"), line("b")], discriminator: { propertyName: "event" } }), "Line");
    const components = build(Line);
    expect(components.components.Line).toEqual({
      oneOf: [{ $ref: "#/components/schemas/aLine" }, { $ref: "#/components/schemas/bLine" }],
      discriminator: { propertyName: "event", mapping: { a: "#/components/schemas/aLine", b: "#/components/schemas/bLine" } },
    });
  });

  it("leaves the route's own schemas untouched", () => {
    const response: Record<number, TSchema> = { 200: List };
    const before = JSON.stringify(response);
    build(response).referenced(response);
    expect(JSON.stringify(response)).toBe(before);
  });
});
