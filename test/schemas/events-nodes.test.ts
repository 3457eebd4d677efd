// The schemas of the node and event routes say what the mirror does (property names = the
// descriptors' JSON names, required = what the mirror always emits, enum names, nested
// messages), checked by walking each schema beside its message descriptor; and they are
// documented: every property has a description and an example that fits it.
import { ScalarType, create } from "@bufbuild/protobuf";
import type { DescMessage } from "@bufbuild/protobuf";
import { TypeGuard } from "@sinclair/typebox";
import type { TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { describe, expect, it } from "vitest";
import {
  CreateAwsNodeRequestSchema,
  CreateOciNodeRequestSchema,
  EventStreamEventSchema,
  NorskStatusEventSchema,
  UpdatePhysicalNodeRequestSchema,
} from "../../src/gen/norsk/api/manager_pb.js";
import { enumJsonNames } from "../../src/json/enums.js";
import { messageToJson } from "../../src/json/index.js";
import { FLATTENED_WRAPPERS } from "../../src/json/presence.js";
import { EVENT_DATA, EventLine, EventStreamEventJson, EventStreamQuery, STATUS_DATA, StatusEventJson, StatusLine } from "../../schemas/events.js";
import { AwsNodeJson, AwsNodeInputJson, OciNodeJson, OciNodeInputJson, PhysicalNodeUpdateJson, PhysicalNodeUpdateInputJson } from "../../schemas/nodes.js";
import { properties } from "../helpers/schema-walk.js";
import { componentOf } from "../../schemas/common.js";

const SIXTY_FOUR_BIT = new Set([ScalarType.INT64, ScalarType.UINT64]);

function constants(schema: TSchema): unknown[] {
  return TypeGuard.IsUnion(schema) ? schema.anyOf.filter((s) => "const" in s).map((s) => (s as unknown as { const: unknown }).const) : [];
}

/** Walks `schema` beside `desc`; returns the message types it met. */
function check(schema: TSchema, desc: DescMessage, at: string, seen: Set<string>): void {
  seen.add(desc.typeName);
  if (!TypeGuard.IsObject(schema)) throw new Error(`${at}: not an object schema for ${desc.typeName}`);
  expect(Object.keys(schema.properties).sort(), `${at}: properties of ${desc.typeName}`).toEqual(desc.fields.map((f) => f.jsonName).sort());
  expect([...(schema.required ?? [])].sort(), `${at}: required of ${desc.typeName}`).toEqual(Object.keys(messageToJson(desc, create(desc))).sort());
  expect(schema.additionalProperties, `${at}: closed`).toBe(false);
  for (const field of desc.fields) {
    const where = `${at}/${field.jsonName}`;
    let value = schema.properties[field.jsonName] as TSchema;
    if (field.fieldKind === "list") value = (value as TSchema & { items: TSchema }).items;
    if (field.fieldKind === "map") value = (value as TSchema & { additionalProperties: TSchema }).additionalProperties;
    if (field.enum !== undefined) expect(constants(value), `${where}: enum names`).toEqual(enumJsonNames(field.enum));
    else if (field.message?.typeName === "google.protobuf.Timestamp") expect(value.format, where).toBe("date-time");
    else if (field.message !== undefined && FLATTENED_WRAPPERS.has(field.message.typeName)) expect(TypeGuard.IsObject(value), `${where}: flattened`).toBe(false);
    else if (field.message !== undefined) check(value, field.message, where, seen);
    else if (SIXTY_FOUR_BIT.has(field.scalar)) expect(value.format, where).toMatch(/^u?int64$/);
  }
}

describe("node and event schemas match the mirror", () => {
  it.each<[string, TSchema, DescMessage]>([
    ["AwsNode", AwsNodeJson, CreateAwsNodeRequestSchema],
    ["OciNode", OciNodeJson, CreateOciNodeRequestSchema],
    ["PhysicalNodeUpdate", PhysicalNodeUpdateJson, UpdatePhysicalNodeRequestSchema],
    ["EventStreamEvent", EventStreamEventJson, EventStreamEventSchema],
    ["NorskStatusEvent", StatusEventJson, NorskStatusEventSchema],
  ])("%s", (_name, schema, desc) => {
    check(schema, desc, "", new Set());
  });

  it("describes every message an event can carry", () => {
    const seen = new Set<string>();
    check(EventStreamEventJson, EventStreamEventSchema, "", seen);
    for (const type of ["norsk.api.manager.JobHistoryJobRunning", "norsk.api.common.RunningNodeProviderMetadata", "norsk.api.common.JobInfoComposeMessage", "norsk.api.manager.OciHealth"]) {
      expect(seen.has(type), type).toBe(true);
    }
    expect(seen.size).toBeGreaterThan(40);
  });

  it("names events as the descriptors' oneof members, in field order", () => {
    expect(Object.keys(EVENT_DATA)).toEqual(EventStreamEventSchema.oneofs[0]?.fields.map((f) => f.jsonName));
    expect(Object.keys(STATUS_DATA)).toEqual(NorskStatusEventSchema.oneofs[0]?.fields.map((f) => f.jsonName));
  });
});

const NAMED: Record<string, TSchema> = {
  AwsNode: AwsNodeJson,
  AwsNodeInput: AwsNodeInputJson,
  OciNode: OciNodeJson,
  OciNodeInput: OciNodeInputJson,
  PhysicalNodeUpdate: PhysicalNodeUpdateJson,
  PhysicalNodeUpdateInput: PhysicalNodeUpdateInputJson,
  EventLine,
  StatusLine,
};

describe("node and event schemas are documented", () => {
  it.each(Object.entries(NAMED))("%s is the component of its name, with a description", (name, schema) => {
    expect(componentOf(schema)).toEqual({ name, schema });
    expect(typeof schema.description).toBe("string");
  });

  it("EventStreamQuery has its name as $id and a description", () => {
    expect(EventStreamQuery.$id).toBe("EventStreamQuery");
    expect(typeof EventStreamQuery.description).toBe("string");
  });

  it.each(Object.entries({ ...NAMED, EventStreamQuery, EventStreamEventJson, StatusEventJson }))("every property of %s has a description and an example that fits", (_name, schema) => {
    const list = properties(schema, "");
    expect(list.length).toBeGreaterThan(0);
    for (const [path, property] of list) {
      expect(property.description, `${path}: description`).toEqual(expect.any(String));
      expect(property.examples, `${path}: examples`).toEqual(expect.any(Array));
      for (const example of property.examples as unknown[]) {
        expect(Value.Check({ ...property, $id: undefined }, example), `${path}: example ${JSON.stringify(example)}`).toBe(true);
      }
    }
  });
});
