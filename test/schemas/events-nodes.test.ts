// The schemas of the node and event routes are documented: every property has a description
// and an example that fits it. That they say what the mirror does is checked with the other
// schemas, beside their message descriptors, in match-mirror.test.ts.
import type { TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { describe, expect, it } from "vitest";
import { EventStreamEventSchema, NorskStatusEventSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { componentOf } from "../../schemas/common.js";
import { EVENT_DATA, EventLine, EventStreamEventJson, EventStreamQuery, STATUS_DATA, StatusEventJson, StatusLine } from "../../schemas/events.js";
import { AwsNodeJson, AwsNodeInputJson, OciNodeJson, OciNodeInputJson, PhysicalNodeUpdateJson, PhysicalNodeUpdateInputJson } from "../../schemas/nodes.js";
import { properties } from "../helpers/schema-walk.js";

describe("event schemas follow the streams' messages", () => {
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
