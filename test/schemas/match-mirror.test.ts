// Proto and schema kept in step: every TypeBox schema of a JSON body is walked beside its
// message descriptor (test/helpers/proto-schema.ts), so a field added to proto/ without its
// property here (or the other way round), or with the wrong JSON type, fails. Output schemas
// must also require exactly what the mirror always emits; request-body forms may take null.
// Planted schemas prove the walk catches each kind of disagreement.
import type { DescMessage } from "@bufbuild/protobuf";
import { Type } from "@sinclair/typebox";
import type { TObject, TSchema } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import { ServiceSchema, file_norsk_api_common } from "norsk-manager-contract/gen/norsk/api/common_pb.js";
import {
  CreateAwsNodeRequestSchema,
  CreateOciNodeRequestSchema,
  CurrentJobSchema,
  EventStreamEventSchema,
  JobSchema,
  JobWithHistorySchema,
  NorskStatusEventSchema,
  RunningJobSchema,
  UpdatePhysicalNodeRequestSchema,
  file_norsk_api_manager,
} from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { enumJsonNames } from "../../src/json/enums.js";
import { FLATTENED_WRAPPERS } from "../../src/json/presence.js";
import { ENUM_SCHEMAS } from "../../schemas/enums.js";
import { EventStreamEventJson, StatusEventJson } from "../../schemas/events.js";
import { JobWithHistoryJson } from "../../schemas/history.js";
import { CurrentJobJson, InstancesJson, JobInputJson, JobJson, JobListJson, JobPatchJson, RunningJobJson } from "../../schemas/job.js";
import { AwsNodeInputJson, AwsNodeJson, OciNodeInputJson, OciNodeJson, PhysicalNodeUpdateInputJson, PhysicalNodeUpdateJson } from "../../schemas/nodes.js";
import { ServiceJson } from "../../schemas/service.js";
import { disagreements, messagesMet } from "../helpers/proto-schema.js";

/** Each schema of a JSON body the gateway writes, with its message. */
const OUTPUT: [string, TSchema, DescMessage][] = [
  ["Job", JobJson, JobSchema],
  ["CurrentJob", CurrentJobJson, CurrentJobSchema],
  ["RunningJob", RunningJobJson, RunningJobSchema],
  ["JobWithHistory", JobWithHistoryJson, JobWithHistorySchema],
  ["EventStreamEvent", EventStreamEventJson, EventStreamEventSchema],
  ["NorskStatusEvent", StatusEventJson, NorskStatusEventSchema],
  ["AwsNode", AwsNodeJson, CreateAwsNodeRequestSchema],
  ["OciNode", OciNodeJson, CreateOciNodeRequestSchema],
  ["PhysicalNodeUpdate", PhysicalNodeUpdateJson, UpdatePhysicalNodeRequestSchema],
  ["JobList's jobs", (JobListJson.properties.jobs as TSchema & { items: TSchema }).items, JobSchema],
  ["Instances' instances", (InstancesJson.properties.instances as TSchema & { items: TSchema }).items, RunningJobSchema],
];

/** Each schema of a JSON body the gateway reads, with its message. */
const INPUT: [string, TSchema, DescMessage][] = [
  ["JobInput", JobInputJson, JobSchema],
  ["JobPatch", JobPatchJson, JobSchema],
  ["AwsNodeInput", AwsNodeInputJson, CreateAwsNodeRequestSchema],
  ["OciNodeInput", OciNodeInputJson, CreateOciNodeRequestSchema],
  ["PhysicalNodeUpdateInput", PhysicalNodeUpdateInputJson, UpdatePhysicalNodeRequestSchema],
];

/** Every message type reachable from `desc` through its fields, wrappers the mirror flattens and Timestamp aside. */
function reachable(desc: DescMessage, found = new Set<string>()): Set<string> {
  found.add(desc.typeName);
  for (const field of desc.fields) {
    const message = field.message;
    if (message === undefined || message.typeName === "google.protobuf.Timestamp" || FLATTENED_WRAPPERS.has(message.typeName)) continue;
    if (!found.has(message.typeName)) reachable(message, found);
  }
  return found;
}

function withoutProperty(schema: TObject, name: string): TObject {
  const { [name]: _gone, ...properties } = schema.properties;
  return { ...schema, properties, required: (schema.required ?? []).filter((r) => r !== name) };
}

describe("the TypeBox schemas agree with the protobuf messages", () => {
  it.each(OUTPUT)("%s: a property for every field and a field for every property, of the right JSON type, required = always emitted", (_name, schema, desc) => {
    expect(disagreements(schema, desc)).toEqual([]);
  });

  it.each(INPUT)("%s (a request body): the same, each property optional and nullable", (_name, schema, desc) => {
    expect(disagreements(schema, desc, { lenient: true })).toEqual([]);
  });

  it.each(OUTPUT)("%s: the walk meets every message type reachable from the message", (_name, schema, desc) => {
    expect(messagesMet(schema, desc)).toEqual(reachable(desc));
  });

  it("meets all 16 message types of a job, and over 40 from an event", () => {
    expect(messagesMet(JobJson, JobSchema).size).toBe(16);
    expect(messagesMet(EventStreamEventJson, EventStreamEventSchema).size).toBeGreaterThan(40);
  });

  it.each(Object.entries(ENUM_SCHEMAS))("enum %s: the names of the generated descriptor, then an integer", (typeName, schema) => {
    const desc = [file_norsk_api_manager, file_norsk_api_common]
      .flatMap((f) => [...f.enums, ...f.messages.flatMap((m) => m.nestedEnums)])
      .find((e) => e.typeName === typeName);
    if (desc === undefined) throw new Error(`no enum ${typeName}`);
    const names = schema.anyOf.flatMap((s): unknown[] => ("const" in s ? [(s as unknown as { const: unknown }).const] : []));
    expect(names).toEqual(enumJsonNames(desc));
    expect(schema.anyOf.at(-1)).toMatchObject({ type: "integer", minimum: -2147483648, maximum: 2147483647 });
  });
});

describe("the walk catches what it is for (planted disagreements)", () => {
  it("a field of the message without its property", () => {
    expect(disagreements(withoutProperty(JobJson, "cloud"), JobSchema)).toEqual([
      "/: field cloud of norsk.api.manager.Job has no property cloud",
      '/: required ["architecture","availabilityDomain","currentHash","description","jobId","norskMediaVersion","services","shape","startDateTime","state","subnet","tags"], but the mirror always emits ["architecture","availabilityDomain","cloud","currentHash","description","jobId","norskMediaVersion","services","shape","startDateTime","state","subnet","tags"]',
    ]);
  });

  it("a field missing deep inside: a service's restart, through Job's services", () => {
    const service = withoutProperty(ServiceJson, "restart");
    const job = { ...JobJson, properties: { ...JobJson.properties, services: Type.Array(service) } };
    expect(disagreements(job, JobSchema)).toContain("/services/0: field restart of norsk.api.common.Service has no property restart");
    expect(disagreements(service, ServiceSchema, { lenient: true })).toEqual(["/: field restart of norsk.api.common.Service has no property restart"]);
  });

  it("a property that no field has", () => {
    const extra = { ...JobJson, properties: { ...JobJson.properties, colour: Type.Optional(Type.String()) } };
    expect(disagreements(extra, JobSchema)).toEqual(["/colour: no field of norsk.api.manager.Job is named colour"]);
  });

  it("a property of the wrong JSON type: int64 as a number, a Timestamp without its format, repeated as one, a map as a list, an enum short of a name", () => {
    const wrong = {
      ...JobJson,
      properties: {
        ...JobJson.properties,
        currentHash: Type.Integer(),
        startDateTime: Type.String(),
        volumes: Type.Optional(Type.String()),
        tags: Type.Array(Type.String()),
        state: Type.Union([Type.Literal("pre"), Type.Literal("active"), Type.Integer({ minimum: -2147483648, maximum: 2147483647 })]),
      },
    };
    expect(disagreements(wrong, JobSchema)).toEqual([
      "/tags: map tags is not an object with additionalProperties",
      "/startDateTime: a Timestamp is not a string of format date-time",
      "/currentHash: is not a string of format int64 (the field is int64)",
      "/volumes: repeated volumes is not an array",
      '/state: enum norsk.api.manager.Job.JobState: names ["pre","active"], not ["pre","active","post"]',
    ]);
  });

  it("a property of an input form of the wrong JSON type", () => {
    const input = JobInputJson as unknown as TObject;
    const strict = { ...input, properties: { ...input.properties, description: Type.Optional(Type.Integer()) } };
    expect(disagreements(strict, JobSchema, { lenient: true })).toEqual(["/description: is not a string (the field is string)"]);
  });
});
