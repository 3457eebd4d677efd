// A property said alike is said once: later copies become a $ref to the first (a JSON pointer
// into its component), the null-allowing copy `anyOf [that $ref, null]`; only where that is
// shorter; never a pointer to a pointer. What every property allows, and every description,
// example and constraint it carries, stays reachable: the tests resolve the references and
// compare with what was replaced.
import { describe, expect, it } from "vitest";
import { referToAlikeProperties } from "../../src/openapi/pointers.js";
import type { OpenApiDocument } from "../../src/openapi/document.js";
import { committedDocument, resolveRef } from "./helpers.js";

type Json = Record<string, unknown>;

const LONG = "A description long enough that a reference to it is shorter than saying it again.";
const name = { description: LONG, examples: ["n"], type: "string", maxLength: 9 };
const nullableName = { description: LONG, examples: ["n"], type: ["string", "null"], maxLength: 9 };
const thing = { $ref: "#/components/schemas/Thing", description: LONG };

function documentOf(schemas: Record<string, Json>): OpenApiDocument & { components: { schemas: Record<string, { properties: Json }> } } {
  return { openapi: "3.1.0", components: { schemas: structuredClone(schemas) } } as never;
}

describe("referToAlikeProperties", () => {
  it("refers a later identical property to the first, and an input form's nullable copy by anyOf with null", () => {
    const doc = documentOf({
      A: { type: "object", properties: { name, thing } },
      AInput: { type: "object", properties: { name: nullableName, thing: { anyOf: [{ $ref: "#/components/schemas/Thing" }, { type: "null" }], description: LONG } } },
      B: { type: "object", properties: { name, short: { type: "string" } } },
      C: { type: "object", properties: { short: { type: "string" } } },
    });
    referToAlikeProperties(doc);
    const { A, AInput, B, C } = doc.components.schemas;
    expect(A?.properties).toEqual({ name, thing });
    expect(B?.properties.name).toEqual({ $ref: "#/components/schemas/A/properties/name" });
    expect(AInput?.properties.name).toEqual({ anyOf: [{ $ref: "#/components/schemas/A/properties/name" }, { type: "null" }] });
    expect(AInput?.properties.thing).toEqual({ anyOf: [{ $ref: "#/components/schemas/A/properties/thing" }, { type: "null" }] });
    // Not shorter as a reference: left as it is.
    expect(B?.properties.short).toEqual({ type: "string" });
    expect(C?.properties.short).toEqual({ type: "string" });
  });

  it("never points to a pointer: copies of a replaced property take its replacement", () => {
    const doc = documentOf({
      A: { type: "object", properties: { name } },
      AInput: { type: "object", properties: { name: nullableName } },
      APatch: { type: "object", properties: { name: nullableName } },
    });
    referToAlikeProperties(doc);
    const replacement = { anyOf: [{ $ref: "#/components/schemas/A/properties/name" }, { type: "null" }] };
    expect(doc.components.schemas.AInput?.properties.name).toEqual(replacement);
    expect(doc.components.schemas.APatch?.properties.name).toEqual(replacement);
  });

  it("escapes / and ~ in a pointer (RFC 6901)", () => {
    const doc = documentOf({ A: { properties: { "a/b~c": name } }, B: { properties: { x: name } } });
    referToAlikeProperties(doc);
    expect(doc.components.schemas.B?.properties.x).toEqual({ $ref: "#/components/schemas/A/properties/a~1b~0c" });
    expect(resolveRef(doc, "#/components/schemas/A/properties/a~1b~0c")).toEqual(name);
  });

  it("leaves a property whose null-less form has other keywords beside an anyOf alone", () => {
    const clash = { anyOf: [{ $ref: "#/components/schemas/Thing", description: "own" }, { type: "null" }], description: LONG };
    const doc = documentOf({ A: { properties: { thing: { $ref: "#/components/schemas/Thing", description: LONG } } }, AInput: { properties: { thing: clash } } });
    referToAlikeProperties(doc);
    expect(doc.components.schemas.AInput?.properties.thing).toEqual(clash);
  });
});

describe("the committed document's property pointers", () => {
  const doc = committedDocument();
  const pointers: [string, string][] = [];
  const visit = (value: unknown, at: string): void => {
    if (Array.isArray(value)) value.forEach((item, i) => { visit(item, `${at}/${String(i)}`); });
    else if (typeof value === "object" && value !== null) {
      for (const [key, child] of Object.entries(value as Json)) {
        if (key === "$ref" && typeof child === "string" && child.includes("/properties/")) pointers.push([at, child]);
        else visit(child, `${at}/${key}`);
      }
    }
  };
  visit(doc, "");

  it("has JobPatch and the input forms refer to properties said before", () => {
    expect(pointers.length).toBeGreaterThan(50);
    expect(pointers.some(([at]) => at.startsWith("/components/schemas/JobPatch/"))).toBe(true);
  });

  it("points every one at a property that is itself no pointer, with a description (its own or its component's)", () => {
    for (const [at, ref] of pointers) {
      const target = resolveRef(doc, ref) as Json | undefined;
      expect(target, `${at} → ${ref}`).toBeDefined();
      expect(JSON.stringify(target), `${at} → ${ref} leads to another pointer`).not.toMatch(/"\$ref":"[^"]*\/properties\//);
      const anyOf = Array.isArray(target?.anyOf) ? (target.anyOf as Json[]) : [];
      const component = [target?.$ref, anyOf[0]?.$ref].find((r): r is string => typeof r === "string");
      const described = target?.description ?? (component === undefined ? undefined : (resolveRef(doc, component) as Json | undefined)?.description);
      expect(typeof described, `${at} → ${ref}: description`).toBe("string");
    }
  });
});
