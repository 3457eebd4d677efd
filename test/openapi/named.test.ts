// The document at the size of the API: each message is one component, named after it, and
// referred to by $ref everywhere else (no inlined copy anywhere); each component named after
// a protobuf message agrees with that message; the event streams are discriminated oneOfs of
// one component per event. Planted copies prove the checks can fail.
import type { DescMessage } from "@bufbuild/protobuf";
import { isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
import { file_norsk_api_common } from "norsk-manager-contract/gen/norsk/api/common_pb.js";
import { EventStreamEventSchema, NorskStatusEventSchema, file_norsk_api_manager } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { componentOf } from "../../schemas/common.js";
import { ENUM_SCHEMAS } from "../../schemas/enums.js";
import { ComposeStage, LogLevel, NodeStoppingReason } from "../../schemas/events.js";
import { JobStoppingReason } from "../../schemas/history.js";
import type { OpenApiDocument } from "../../src/openapi/document.js";
import { disagreements } from "../helpers/proto-schema.js";
import { committedDocument, resolveRef } from "./helpers.js";

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

const doc = committedDocument();
const schemasOf = (document: OpenApiDocument) => (document.components?.schemas ?? {}) as Record<string, Json>;

/** Messages by simple name (nested ones too); the gateway's request wrappers by their resource's name. */
const MESSAGES = new Map<string, DescMessage>();
for (const file of [file_norsk_api_manager, file_norsk_api_common]) {
  const add = (desc: DescMessage): void => {
    MESSAGES.set(desc.name, desc);
    desc.nestedMessages.forEach(add);
  };
  file.messages.forEach(add);
}
const RESOURCE_OF_REQUEST: Record<string, string> = { AwsNode: "CreateAwsNodeRequest", OciNode: "CreateOciNodeRequest", PhysicalNodeUpdate: "UpdatePhysicalNodeRequest" };
/** Components that are no protobuf message: the gateway's own shapes. */
const GATEWAY_OWN = ["CloudHealth", "Id", "Instances", "JobActivity", "JobActivityState", "JobList", "JsonPatch", "Node", "NodeCloud", "NodeList", "NodeState", "PartialJobList", "ProbeStatus", "Problem", "ProblemCode", "ProblemItem", "ServerSentEvents", "StartInstance", "Timestamp"];
const ENUMS = new Set([...Object.values(ENUM_SCHEMAS), ComposeStage, LogLevel, NodeStoppingReason, JobStoppingReason].map((schema) => componentOf(schema)?.name));

/** The message a component stands for, and whether it is a request-body form of it or a partial read (fields=) of it. */
function messageOf(name: string): { desc: DescMessage; lenient: boolean } | undefined {
  const form = /^(.+)(?:Input|Patch)$/.exec(name) ?? /^Partial(.+)$/.exec(name);
  const base = form?.[1] ?? name;
  const desc = MESSAGES.get(RESOURCE_OF_REQUEST[base] ?? base);
  return desc === undefined ? undefined : { desc, lenient: form !== null };
}

/** The schema without its top-level annotations, its keys sorted at every depth: what two copies share. */
function shape(schema: Json): string {
  const { description: _d, examples: _e, ...rest } = schema;
  return JSON.stringify(rest, (_key, value: unknown) => (isObject(value) ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b))) : value));
}

/** Every schema object outside components/schemas that has the shape of a component (other than a bare $ref). */
function inlinedCopies(document: OpenApiDocument): string[] {
  const shapes = new Map<string, string>();
  for (const [name, schema] of Object.entries(schemasOf(document))) shapes.set(shape(schema), name);
  const found: string[] = [];
  const visit = (value: unknown, at: string, isRoot: boolean): void => {
    if (Array.isArray(value)) value.forEach((item, i) => { visit(item, `${at}/${String(i)}`, false); });
    if (!isObject(value)) return;
    const name = isRoot ? undefined : shapes.get(shape(value));
    if (name !== undefined && value.$ref === undefined) found.push(`${at} is a copy of ${name}`);
    for (const [key, child] of Object.entries(value)) visit(child, `${at}/${key}`, at === "/components/schemas");
  };
  visit(document, "", false);
  return found;
}

describe("one component per message", () => {
  it("names each message the issue lists, each event payload, and the problem", () => {
    const events = [...EventStreamEventSchema.fields, ...NorskStatusEventSchema.fields].map((field) => field.message?.name ?? "");
    const listed = ["Job", "JobInput", "JobPatch", "Service", "PortMapping", "ServiceParameters", "VolumeMount", "EnvironmentVariable"];
    listed.push("JobHistoryEntry", "JobWithHistory", "RunningJob", "NodeMetadata", "RunningNodeMetadata", "PhysicalNode", "Problem");
    for (const name of [...listed, ...events]) expect(schemasOf(doc), name).toHaveProperty(name);
    expect(events).toEqual(expect.arrayContaining(["JobUpdated", "NodeStarted", "ProviderHealth", "JobInfoMessage", "Log"]));
  });

  it("keeps each copy's own description beside its $ref", () => {
    expect((schemasOf(doc).Job as { properties: Json }).properties.norskServiceParameters).toEqual({
      $ref: "#/components/schemas/ServiceParameters",
      description: "Parameters for the Norsk Media container (omitted when unset).",
    });
    expect(JSON.stringify(doc)).not.toContain("x-annotated-ref");
  });

  it("inlines no copy of any component anywhere in the document", () => {
    expect(inlinedCopies(doc)).toEqual([]);
  });

  it("finds a planted copy (Service inlined into Job's services)", () => {
    const planted = structuredClone(doc);
    const job = schemasOf(planted).Job as { properties: { services: { items: unknown } } };
    job.properties.services.items = { ...schemasOf(planted).Service, description: "A service, copied." };
    expect(inlinedCopies(planted)).toEqual(["/components/schemas/Job/properties/services/items is a copy of Service"]);
  });

  it("names every component after a message, a request-body or partial form of one, an enum, a stream line, or one of the gateway's own", () => {
    const other = Object.keys(schemasOf(doc)).filter((name) => messageOf(name) === undefined && !ENUMS.has(name) && !/Line$/.test(name));
    expect(other.sort()).toEqual(GATEWAY_OWN);
  });
});

describe("components agree with their protobuf messages", () => {
  const resolve = (ref: string): unknown => resolveRef(doc, ref);
  const named = Object.keys(schemasOf(doc)).flatMap((name) => {
    const message = messageOf(name);
    return message === undefined ? [] : [[name, message] as const];
  });

  it("covers the messages of every JSON body (more than 60 components)", () => {
    expect(named.length).toBeGreaterThan(60);
  });

  it.each(named)("%s", (name, { desc, lenient }) => {
    expect(disagreements(schemasOf(doc)[name], desc, { resolve, lenient })).toEqual([]);
  });

  it("finds a planted disagreement: a field of Job without its property in the document", () => {
    const planted = structuredClone(doc);
    const job = schemasOf(planted).Job as { properties: Json };
    Reflect.deleteProperty(job.properties, "cloud");
    const found = disagreements(job, MESSAGES.get("Job") as DescMessage, { resolve: (ref) => resolveRef(planted, ref) });
    expect(found).toContain("/: field cloud of norsk.api.manager.Job has no property cloud");
  });
});

describe("the event streams are named, discriminated unions", () => {
  it.each([
    ["EventLine", EventStreamEventSchema],
    ["StatusLine", NorskStatusEventSchema],
  ] as const)("%s: a oneOf of one component per event, told apart by `event`", (name, desc) => {
    const union = schemasOf(doc)[name] as { oneOf: { $ref: string }[]; discriminator: { propertyName: string; mapping: Record<string, string> } };
    const events = [...desc.fields.map((field) => field.jsonName), "heartbeat", "error"];
    expect(union.discriminator.propertyName).toBe("event");
    expect(Object.keys(union.discriminator.mapping)).toEqual(events);
    expect(union.oneOf.map((branch) => branch.$ref)).toEqual(Object.values(union.discriminator.mapping));
    for (const [event, ref] of Object.entries(union.discriminator.mapping)) {
      const line = resolveRef(doc, ref) as { properties: { event: { const: string }; data?: { $ref?: string } }; required: string[] };
      expect(line.properties.event.const, ref).toBe(event);
      expect(line.required, ref).toContain("event");
      if (line.properties.data !== undefined) expect(line.properties.data.$ref, `${ref}: its data is a component`).toMatch(/^#\/components\/schemas\//);
    }
  });

  it("the payload of each event is the component of its message", () => {
    const union = schemasOf(doc).EventLine as { discriminator: { mapping: Record<string, string> } };
    for (const field of EventStreamEventSchema.fields) {
      const line = resolveRef(doc, union.discriminator.mapping[field.jsonName] ?? "") as { properties: { data: { $ref: string } } };
      expect(line.properties.data.$ref).toBe(`#/components/schemas/${field.message?.name ?? ""}`);
    }
  });

  it("shares its heartbeat and error lines between both streams", () => {
    const lines = (name: string) => (schemasOf(doc)[name] as { oneOf: { $ref: string }[] }).oneOf.map((branch) => branch.$ref);
    expect(lines("EventLine").slice(-2)).toEqual(lines("StatusLine").slice(-2));
    expect(isDeepStrictEqual(lines("EventLine").slice(-2), ["#/components/schemas/HeartbeatLine", "#/components/schemas/ErrorLine"])).toBe(true);
  });
});
