// The mirror's own refusals (src/json/mirror.ts), word for word: what a client or a log reads.
import { create, createFileRegistry } from "@bufbuild/protobuf";
import type { DescMessage } from "@bufbuild/protobuf";
import {
  DescriptorProtoSchema,
  FieldDescriptorProtoSchema,
  FieldDescriptorProto_Label,
  FieldDescriptorProto_Type,
  FileDescriptorProtoSchema,
  StructSchema,
  file_google_protobuf_duration,
} from "@bufbuild/protobuf/wkt";
import type { DescriptorProto, FieldDescriptorProto } from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import { HostPortEphemeralSchema, OciMetadataSchema } from "norsk-manager-contract/gen/norsk/api/common_pb.js";
import { JobSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { messageFromJson, messageToJson } from "../../src/json/mirror.js";
import { PRESENCE_OVERRIDES } from "../../src/json/presence.js";
import type { PresenceOverride } from "../../src/json/presence.js";
import { issueOf } from "./helpers.js";

describe("messageFromJson on a message with no fields", () => {
  it("names an unknown property and says the message has no properties", () => {
    expect(issueOf(() => messageFromJson(OciMetadataSchema, { region: "x" }))).toEqual({
      pointer: "/region",
      message: 'unknown property "region"; OciMetadata has no properties',
    });
    expect(messageFromJson(HostPortEphemeralSchema, {})).toEqual(create(HostPortEphemeralSchema));
  });
});

describe("messageToJson", () => {
  it("refuses a message of another type, naming both types", () => {
    const wrong = create(OciMetadataSchema) as unknown as ReturnType<typeof create<typeof JobSchema>>;
    expect(() => messageToJson(JobSchema, wrong)).toThrow(
      new TypeError("messageToJson: expected a norsk.api.manager.Job, got a norsk.api.common.OciMetadata"),
    );
  });
});

/**
 * A message made from its descriptor, for the cases manager.proto does not have, as protoc
 * would describe it in package test (proto3), with `nested` messages (map entries) and an enum
 * `<name>Colour` beside it.
 */
function messageOf(name: string, fields: readonly FieldDescriptorProto[], nested: readonly DescriptorProto[] = []): DescMessage {
  const file = create(FileDescriptorProtoSchema, {
    name: `test/${name}.proto`,
    package: "test",
    syntax: "proto3",
    dependency: ["google/protobuf/duration.proto"],
    messageType: [{ name, field: [...fields], nestedType: [...nested] }],
    enumType: [{ name: `${name}Colour`, value: [{ name: "RED", number: 0 }, { name: "GREEN", number: 1 }] }],
  });
  const desc = createFileRegistry(file, (dependency) => (dependency === "google/protobuf/duration.proto" ? file_google_protobuf_duration : undefined)).getMessage(`test.${name}`);
  if (desc === undefined) throw new Error(`no message test.${name}`);
  return desc;
}

const field = (name: string, number: number, type: FieldDescriptorProto_Type, typeName = "", label = FieldDescriptorProto_Label.OPTIONAL): FieldDescriptorProto =>
  create(FieldDescriptorProtoSchema, { name, jsonName: name, number, type, typeName, label });

describe("the mirror's plan of a message type", () => {
  it("fails as it is built for a google.protobuf type it has no JSON form for, naming the type", () => {
    expect(() => messageToJson(StructSchema, create(StructSchema))).toThrow(new Error("the JSON mirror has no mapping for google.protobuf.Value"));
    const timed = messageOf("Timed", [field("wait", 1, FieldDescriptorProto_Type.MESSAGE, ".google.protobuf.Duration")]);
    expect(() => messageFromJson(timed, {})).toThrow(new Error("the JSON mirror has no mapping for google.protobuf.Duration"));
  });

  it("reads and writes the int64 values of a map as exact decimal strings, to and from bigint", () => {
    const entry = create(DescriptorProtoSchema, {
      name: "CountsEntry",
      field: [field("key", 1, FieldDescriptorProto_Type.STRING), field("value", 2, FieldDescriptorProto_Type.INT64)],
      options: { mapEntry: true },
    });
    const counted = messageOf("Counted", [field("counts", 1, FieldDescriptorProto_Type.MESSAGE, ".test.Counted.CountsEntry", FieldDescriptorProto_Label.REPEATED)], [entry]);
    const message = messageFromJson(counted, { counts: { a: "9223372036854775807", b: "-1" } }) as unknown as { counts: Record<string, unknown> };
    expect(message.counts).toEqual({ a: 9223372036854775807n, b: -1n });
    expect(messageToJson(counted, message as never)).toEqual({ counts: { a: "9223372036854775807", b: "-1" } });
  });

  it("leaves out an implicit-presence enum field with an omitEmpty override when it holds the zero value, and writes it otherwise", () => {
    const painted = messageOf("Painted", [field("colour", 1, FieldDescriptorProto_Type.ENUM, ".test.PaintedColour"), field("name", 2, FieldDescriptorProto_Type.STRING)]);
    (PRESENCE_OVERRIDES as Map<string, Record<string, PresenceOverride>>).set("test.Painted", { colour: "omitEmpty" });
    expect(messageToJson(painted, messageFromJson(painted, { name: "x" }))).toEqual({ name: "x" });
    expect(messageToJson(painted, messageFromJson(painted, { colour: "green" }))).toEqual({ colour: "green", name: "" });
  });

  it("refuses a presence override that names a field its message does not have", () => {
    const plain = messageOf("Plain", [field("name", 1, FieldDescriptorProto_Type.STRING)]);
    (PRESENCE_OVERRIDES as Map<string, Record<string, PresenceOverride>>).set("test.Plain", { nmae: "omitEmpty" });
    expect(() => messageToJson(plain, create(plain))).toThrow(new Error("presence override: test.Plain has no field nmae"));
  });
});

describe("messageFromJson on properties set to undefined", () => {
  it("takes a property whose value is undefined as absent, as it takes null", () => {
    const job = messageFromJson(JobSchema, { jobId: "a", description: undefined, services: undefined });
    expect(job.description).toBe("");
    expect(job.services).toEqual([]);
    expect(job.jobId?.jobId).toBe("a");
  });
});
