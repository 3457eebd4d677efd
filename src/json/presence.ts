// Which message types are flattened, and where output presence departs from the general rule.
// Everything the mirror knows about particular types is in this file; mirror.ts is generic.
//
// General output rule (docs/architecture.md, "JSON rules", inside nested messages): scalar, enum,
// repeated and map fields are always emitted, zero values included; sub-messages, flattened
// wrappers, proto3
// `optional` scalars and oneof members are emitted only when set.

/**
 * Wrapper messages that only give a scalar a type: in JSON they are their one field's value.
 * Unset → property omitted; set → the scalar, even "" or 0 (the wrapper's presence is kept).
 */
export const FLATTENED_WRAPPERS: ReadonlySet<string> = new Set([
  "norsk.api.common.JobId",
  "norsk.api.common.NodeId",
  "norsk.api.common.OptionalInt",
  "norsk.api.common.OptionalInt64",
  "norsk.api.common.OptionalString",
  "norsk.api.common.OptionalFloat",
  "norsk.api.common.ContainerUrl",
]);

/**
 * - "required": always emitted; an unset message field is emitted as its type's zero value
 *   ("" for a flattened JobId, "1970-01-01T00:00:00Z" for a Timestamp).
 * - "omitEmpty": omitted when it holds the zero value: "", 0, [], {} or unset.
 */
export type PresenceOverride = "required" | "omitEmpty";

/**
 * The SDK's `Job` interface (docs/architecture.md, "The job, as the SDK sees it") marks some fields
 * optional and some required, unlike the nested types, which have no optional markers. Keys are
 * JSON names.
 */
const JOB: Readonly<Record<string, PresenceOverride>> = {
  // Required in the interface but message-typed on the wire, so "unset" must still print: as
  // "" and 1970-01-01T00:00:00Z, which read back as set (to the zero value; vector "an enum
  // number..." pins the epoch as a set Timestamp). The only place where protobuf → JSON →
  // protobuf is not the identity; a job always has both.
  jobId: "required",
  startDateTime: "required",
  // Optional in the interface with an implicit-presence wire type: absent ⇔ empty.
  managerConfiguration: "omitEmpty",
  volumes: "omitEmpty",
  extraSecurityGroups: "omitEmpty",
  norskCpuList: "omitEmpty",
  writeFiles: "omitEmpty",
  productTemplateParameters: "omitEmpty",
  // norskServiceParameters, autoPlacement, productTemplate, terminalState (sub-messages) and
  // launchConfigJson, templateLaunchDefaultsJson (proto3 optional) follow the general rule.
};

export const PRESENCE_OVERRIDES: ReadonlyMap<string, Readonly<Record<string, PresenceOverride>>> = new Map([
  ["norsk.api.manager.Job", JOB],
]);
