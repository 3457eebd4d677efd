// The schemas say in JSON Schema what the mirror does: same property names as the descriptors'
// JSON names, `required` = what the mirror always emits, the same enum names. Checked by walking
// each schema alongside its message descriptor, so a proto change cannot leave a schema stale.
import { ScalarType, create } from "@bufbuild/protobuf";
import type { DescMessage } from "@bufbuild/protobuf";
import { TypeGuard } from "@sinclair/typebox";
import type { TSchema } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import {
  EnvironmentVariableSchema,
  PortMappingSchema,
  ServiceParametersSchema,
  ServiceSchema,
  VolumeMountSchema,
  file_norsk_api_common,
} from "../../src/gen/norsk/api/common_pb.js";
import { CurrentJobSchema, JobSchema, RunningJobSchema, file_norsk_api_manager } from "../../src/gen/norsk/api/manager_pb.js";
import { enumJsonNames } from "../../src/json/enums.js";
import { messageToJson } from "../../src/json/mirror.js";
import { FLATTENED_WRAPPERS } from "../../src/json/presence.js";
import { ENUM_SCHEMAS } from "../../schemas/enums.js";
import { CurrentJobJson, InstancesJson, JobJson, JobListJson, RunningJobJson } from "../../schemas/job.js";
import { EnvironmentVariableJson, PortMappingJson, ServiceJson, ServiceParametersJson, VolumeMountJson } from "../../schemas/service.js";

const SIXTY_FOUR_BIT = new Set([ScalarType.INT64, ScalarType.UINT64, ScalarType.FIXED64, ScalarType.SFIXED64, ScalarType.SINT64]);

/** The schema of one value: array items and map values unwrapped, Optional ignored. */
function valueSchema(schema: TSchema, kind: "list" | "map" | "single"): TSchema {
  if (kind === "list") {
    if (!TypeGuard.IsArray(schema)) throw new Error("expected an array schema");
    return schema.items;
  }
  if (kind === "map") {
    const additional: unknown = (schema as { additionalProperties?: unknown }).additionalProperties;
    if (typeof additional !== "object" || additional === null) throw new Error("expected a map schema");
    return additional as TSchema;
  }
  return schema;
}

/** const values of an enum-like anyOf. */
function constants(schema: TSchema): unknown[] {
  return TypeGuard.IsUnion(schema) ? schema.anyOf.filter((s) => "const" in s).map((s) => (s as unknown as { const: unknown }).const) : [];
}

function checkAgainst(schema: TSchema, desc: DescMessage, at: string, seen: string[]): void {
  seen.push(desc.typeName);
  if (!TypeGuard.IsObject(schema)) throw new Error(`${at}: expected an object schema for ${desc.typeName}`);
  expect(Object.keys(schema.properties).sort(), `${at}: properties of ${desc.typeName}`).toEqual(desc.fields.map((f) => f.jsonName).sort());
  const emitted = Object.keys(messageToJson(desc, create(desc)));
  expect([...(schema.required ?? [])].sort(), `${at}: required of ${desc.typeName}`).toEqual(emitted.sort());
  expect(schema.additionalProperties, `${at}: closed`).toBe(false);
  for (const field of desc.fields) {
    const property = schema.properties[field.jsonName];
    if (property === undefined) continue;
    const kind = field.fieldKind === "list" || field.fieldKind === "map" ? field.fieldKind : "single";
    const value = valueSchema(property, kind);
    const where = `${at}/${field.jsonName}`;
    if (field.enum !== undefined) {
      expect(constants(value), `${where}: enum names`).toEqual(enumJsonNames(field.enum));
    } else if (field.message !== undefined) {
      if (field.message.typeName === "google.protobuf.Timestamp") expect(value.format, where).toBe("date-time");
      else if (FLATTENED_WRAPPERS.has(field.message.typeName)) expect(TypeGuard.IsObject(value), `${where}: flattened`).toBe(false);
      else checkAgainst(value, field.message, where, seen);
    } else if (SIXTY_FOUR_BIT.has(field.scalar)) {
      expect(value.format, `${where}: 64-bit`).toMatch(/^u?int64$/);
    }
  }
}

describe("the TypeBox schemas match the mirror", () => {
  it.each<[string, TSchema, DescMessage]>([
    ["Job", JobJson, JobSchema],
    ["Service", ServiceJson, ServiceSchema],
    ["ServiceParameters", ServiceParametersJson, ServiceParametersSchema],
    ["PortMapping", PortMappingJson, PortMappingSchema],
    ["EnvironmentVariable", EnvironmentVariableJson, EnvironmentVariableSchema],
    ["VolumeMount", VolumeMountJson, VolumeMountSchema],
    ["RunningJob", RunningJobJson, RunningJobSchema],
    ["CurrentJob", CurrentJobJson, CurrentJobSchema],
  ])("%s: property names, required = always emitted, enum names, nested messages", (_name, schema, desc) => {
    const seen: string[] = [];
    checkAgainst(schema, desc, "", seen);
    expect(seen.length).toBeGreaterThan(0);
  });

  it("covers every message type reachable from Job", () => {
    const seen: string[] = [];
    checkAgainst(JobJson, JobSchema, "", seen);
    expect(new Set(seen)).toEqual(
      new Set([
        "norsk.api.manager.Job",
        "norsk.api.common.Service",
        "norsk.api.common.DockerContainer",
        "norsk.api.common.ServiceParameters",
        "norsk.api.common.PortMapping",
        "norsk.api.common.HostPortEphemeral",
        "norsk.api.common.HostPortRange",
        "norsk.api.common.HostPortSpecific",
        "norsk.api.common.EnvironmentVariable",
        "norsk.api.common.VolumeMount",
        "norsk.api.manager.AutoPlacement",
        "norsk.api.manager.JobRequirements",
        "norsk.api.manager.CapabilityRequirement",
        "norsk.api.manager.ProductTemplateRef",
        "norsk.api.manager.TerminalState",
        "norsk.api.manager.WriteFile",
      ]),
    );
  });

  it("Instances and JobList wrap RunningJob and Job", () => {
    checkAgainst(valueSchema(InstancesJson.properties.instances, "list"), RunningJobSchema, "/instances", []);
    checkAgainst(valueSchema(JobListJson.properties.jobs, "list"), JobSchema, "/jobs", []);
  });

  it.each(Object.entries(ENUM_SCHEMAS))("enum %s: the names of the generated descriptor, then an integer", (typeName, schema) => {
    const desc = [file_norsk_api_manager, file_norsk_api_common]
      .flatMap((f) => [...f.enums, ...f.messages.flatMap((m) => m.nestedEnums)])
      .find((e) => e.typeName === typeName);
    if (desc === undefined) throw new Error(`no enum ${typeName}`);
    expect(constants(schema)).toEqual(enumJsonNames(desc));
    expect(schema.anyOf.at(-1)).toMatchObject({ type: "integer", minimum: -2147483648, maximum: 2147483647 });
  });
});
