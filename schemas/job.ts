// The job resource: norsk.api.manager.Job as the SDK's `Job` interface in JSON
// (docs/architecture.md, "The job, as the SDK sees it" and "JSON rules"). `Job` is what the gateway
// returns: `required` lists exactly the always-emitted fields.
// JobInput and JobPatch are derived from it (variants.ts), so each field is described once.
import { Type } from "@sinclair/typebox";
import type { Static, TOptional } from "@sinclair/typebox";
import { Double, Float, IdOf, Int64String, MapOf, StringMap, Timestamp, Uint32, doc, named } from "./common.js";
import { Cloud, JobState, NorskVersion, PriorityBand } from "./enums.js";
import { ServiceJson, ServiceParametersJson } from "./service.js";
import { InputOf, PatchOf } from "./variants.js";

const closed = { additionalProperties: false } as const;

const CapabilityRequirement = named(
  Type.Object(
    {
      name: Type.String({ description: "Capability name.", examples: ["gpu"] }),
      value: Type.String({ description: "Required value of the capability.", examples: ["nvenc"] }),
    },
    { ...closed, description: "One capability a node must offer.", examples: [{ name: "gpu", value: "nvenc" }] },
  ),
  "CapabilityRequirement",
);

const JobRequirements = named(
  Type.Object(
    {
      requiredCapacity: doc(Double, "Share of a node's capacity the job needs.", 0.5),
      requiredCores: Type.Optional(doc(Uint32, "CPU cores the job needs (omitted when unset).", 4)),
      requiredGpuCapacity: Type.Optional(doc(Float, "Share of a GPU the job needs (omitted when unset).", 0.25)),
      requiredGpuModel: Type.Optional(Type.String({ description: "GPU model the job needs (omitted when unset).", examples: ["H100"] })),
      requiredCapabilities: Type.Array(CapabilityRequirement, { description: "Capabilities the node must offer.", examples: [[{ name: "gpu", value: "nvenc" }]] }),
      priorityBand: doc(PriorityBand, "Scheduling priority.", "gold"),
    },
    {
      ...closed,
      description: "What the AutoManager must find on a node to place the job there.",
      examples: [{ requiredCapacity: 0.5, requiredCapabilities: [], priorityBand: "gold" }],
    },
  ),
  "JobRequirements",
);

const AutoPlacement = named(
  Type.Object(
    { requirements: Type.Optional(doc(JobRequirements, "Placement requirements (omitted when unset).")) },
    { ...closed, description: "Present iff the AutoManager should place the job.", examples: [{}] },
  ),
  "AutoPlacement",
);

const ProductTemplateRef = named(
  Type.Object(
    {
      name: Type.String({ description: "Template name.", examples: ["tpl"] }),
      version: Type.String({ description: "Template version.", examples: ["1.2.3"] }),
    },
    { ...closed, description: "Reference to a product-template stack; opaque to the Manager.", examples: [{ name: "tpl", version: "1.2.3" }] },
  ),
  "ProductTemplateRef",
);

const TerminalState = named(
  Type.Object(
    { failureReason: Type.String({ description: "Why the job failed for good.", examples: ["restart ceiling exceeded"] }) },
    { ...closed, description: "Durable terminal-failed verdict.", examples: [{ failureReason: "restart ceiling exceeded" }] },
  ),
  "TerminalState",
);

const WriteFile = named(
  Type.Object(
    {
      path: Type.String({ description: "Absolute path on the worker.", examples: ["/etc/x.conf"] }),
      contents: Type.String({ description: "File contents.", examples: ["a=b\n"] }),
    },
    { ...closed, description: "A file the worker writes before starting the job.", examples: [{ path: "/etc/x.conf", contents: "a=b\n" }] },
  ),
  "WriteFile",
);

const str = (description: string, example: string) => Type.String({ description, examples: [example] });

export const JobJson = named(
  Type.Object(
    {
      jobId: str("The job's id.", "tenant-a/live-1"),
      description: str("Free text describing the job.", "Saturday match, camera 1"),
      tags: doc(StringMap, "Tags of the job (name → value).", { env: "prod" }),
      startDateTime: doc(Timestamp, "When the job should be started. 1970-01-01T00:00:00Z when unset.", "2025-12-02T10:00:00Z"),
      currentHash: doc(Int64String, "The Manager's hash of the job (int64 on the wire); the ETag. Ignored as input when \"0\".", "-4620693217682128896"),
      managerConfiguration: Type.Optional(str("JSON passed to and stored by the Manager (omitted when empty).", '{"a":1}')),
      services: Type.Array(ServiceJson, { description: "Additional services run as part of the job.", examples: [[]] }),
      norskMediaVersion: doc(NorskVersion, "Norsk Media release channel of the job.", "recommended"),
      norskServiceParameters: Type.Optional(doc(ServiceParametersJson, "Parameters for the Norsk Media container (omitted when unset).")),
      volumes: Type.Optional(Type.Array(Type.String(), { description: "Volumes of the job (omitted when empty).", examples: [["media"]] })),
      state: doc(JobState, "State of the job.", "pre"),
      shape: str("Instance shape.", "VM.Standard.E4.Flex"),
      architecture: str("CPU architecture of the node, such as x86_64 or aarch_64.", "x86_64"),
      subnet: str("Subnet the node is placed in.", "subnet-1"),
      availabilityDomain: str("Availability domain (OCI) or zone.", "AD-1"),
      cloud: doc(Cloud, "The cloud the job runs in.", "aws"),
      autoPlacement: Type.Optional(doc(AutoPlacement, "Present iff the AutoManager should place the job.")),
      extraSecurityGroups: Type.Optional(
        Type.Array(Type.String(), {
          description:
            "Labels resolved to ids by the Manager; the wire shape is repeated string, so absent and empty are indistinguishable (omitted when empty).",
          examples: [["sg-a"]],
        }),
      ),
      launchConfigJson: Type.Optional(
        str(
          "Opaque JSON owned by the host daemon; stored and forwarded, never interpreted. Absent ⇔ unset on the wire; \"\" is present-but-empty and is kept.",
          '{"cpu":2}',
        ),
      ),
      norskCpuList: Type.Optional(Type.Array(Uint32, { description: "CPUs reserved for Norsk (omitted when empty).", examples: [[0, 1]] })),
      productTemplate: Type.Optional(
        doc(ProductTemplateRef, "If set, the worker launches the product-template stack; else the legacy services/volumes path."),
      ),
      productTemplateParameters: Type.Optional(
        MapOf(Type.String(), "Resolved env-var overrides; a map on the wire, absent and empty indistinguishable (omitted when empty).", { K: "V" }),
      ),
      templateLaunchDefaultsJson: Type.Optional(
        str("Second-tier launch defaults; same ownership and round-trip rules as launchConfigJson.", '{"cpu":2}'),
      ),
      terminalState: Type.Optional(
        doc(TerminalState, "Durable terminal-failed verdict: present ⇒ the job has fully failed and must not be re-placed."),
      ),
      writeFiles: Type.Optional(Type.Array(WriteFile, { description: "Files the worker writes before starting the job (omitted when empty).", examples: [[]] })),
    },
    {
      ...closed,
      description: "A job of the Norsk Manager, as the SDK's Job interface in JSON.",
      examples: [
        {
          jobId: "j-min",
          description: "",
          tags: {},
          startDateTime: "2025-12-02T10:00:00Z",
          currentHash: "0",
          services: [],
          norskMediaVersion: "recommended",
          state: "pre",
          shape: "",
          architecture: "",
          subnet: "",
          availabilityDomain: "",
          cloud: "aws",
        },
      ],
    },
  ),
  "Job",
);

export type JobJson = Static<typeof JobJson>;

export const JobInputJson = InputOf(JobJson, {
  name: "JobInput",
  description:
    "A job to create or replace. Only jobId and startDateTime are required; other fields default to their zero value, " +
    "null means absent, unknown properties are rejected. currentHash, when not \"0\", is a precondition on replace.",
  required: ["jobId", "startDateTime"],
  stricter: { jobId: IdOf("The job's id.", "tenant-a/live-1") },
});
export type JobInputJson = Static<typeof JobInputJson>;

export const JobPatchJson = PatchOf(JobJson, {
  name: "JobPatch",
  description: "A JSON Merge Patch (RFC 7396) of a job: null removes a property or a map key; arrays are replaced whole.",
});
export type JobPatchJson = Static<typeof JobPatchJson>;

/** The most operations a JSON Patch may hold (src/json/json-patch.ts reads it too). */
export const MAX_JSON_PATCH_OPERATIONS = 1000;

export const JsonPatchJson = named(
  Type.Array(
    Type.Object(
      {
        op: Type.Unsafe<string>({ type: "string", enum: ["add", "remove", "replace", "move", "copy", "test"], description: "The operation." }),
        path: Type.String({ description: "A JSON Pointer (RFC 6901: ~1 for /, ~0 for ~, - for the end of an array) into the job's JSON.", examples: ["/services/0/restartCount"] }),
        from: Type.Optional(Type.String({ description: "move and copy: the JSON Pointer of the value taken.", examples: ["/tags/env"] })),
        value: Type.Optional(Type.Unknown({ description: "add, replace and test: the value." })),
      },
      { description: "One operation (RFC 6902 §4); other members are ignored." },
    ),
    {
      maxItems: MAX_JSON_PATCH_OPERATIONS,
      description:
        "A JSON Patch (RFC 6902) of a job: operations applied in order, all or nothing, to the job's JSON as GET answers it. " +
        "Unlike a merge patch it can change one element of an array (/services/0/restartCount).",
      examples: [[{ op: "replace", path: "/description", value: "Christmas Eve stream" }]],
    },
  ),
  "JsonPatch",
);

export const ActiveJobKeyJson = named(
  Type.Object(
    {
      jobId: Type.Optional(str("The job's id (omitted when unset).", "tenant-a/live-1")),
      role: str("The role of this instance of the job.", "primary"),
    },
    { ...closed, description: "Which instance of which job.", examples: [{ jobId: "tenant-a/live-1", role: "primary" }] },
  ),
  "ActiveJobKey",
);

export const RunningJobJson = named(
  Type.Object(
    {
      jobKey: Type.Optional(doc(ActiveJobKeyJson, "The job and role (omitted when unset).")),
      nodeId: Type.Optional(str("The node the instance runs on (omitted when unset).", "node-1")),
    },
    {
      ...closed,
      description: "A running instance of a job.",
      examples: [{ jobKey: { jobId: "tenant-a/live-1", role: "primary" }, nodeId: "node-1" }],
    },
  ),
  "RunningJob",
);
export type RunningJobJson = Static<typeof RunningJobJson>;

export const InstancesJson = named(
  Type.Object(
    { instances: Type.Array(RunningJobJson, { description: "The running instances of the job.", examples: [[]] }) },
    { ...closed, description: "The instances of a job (CurrentJob.instances).", examples: [{ instances: [] }] },
  ),
  "Instances",
);
export type InstancesJson = Static<typeof InstancesJson>;

export const CurrentJobJson = named(
  Type.Object(
    {
      job: Type.Optional(doc(JobJson, "The job (omitted when unset).")),
      instances: Type.Array(RunningJobJson, { description: "The running instances of the job.", examples: [[]] }),
    },
    { ...closed, description: "A job with its running instances, as JobSearch streams them." },
  ),
  "CurrentJob",
);
export type CurrentJobJson = Static<typeof CurrentJobJson>;

export const JobListJson = named(
  Type.Object(
    {
      jobs: Type.Array(JobJson, { description: "The jobs found, in job id order.", examples: [[]] }),
      nextPageToken: Type.Optional(
        Type.String({
          description: "With pageSize: the pageToken of the next page, absent on the last page (also in the Link rel=\"next\" header).",
          examples: ["AQ"],
        }),
      ),
    },
    { ...closed, description: "The result of a job search.", examples: [{ jobs: [] }] },
  ),
  "JobList",
);
export type JobListJson = Static<typeof JobListJson>;

/**
 * A job as a read with `fields=` answers it (docs/guide/jobs.md, "A few fields"): Job's
 * properties, each described as there, none required but jobId. Derived from JobJson, so a
 * field added to the job is a field of the partial job too.
 */
export const PartialJobJson = named(
  Type.Object(
    {
      ...Object.fromEntries(Object.entries(JobJson.properties).map(([name, schema]) => [name, Type.Optional(schema)])),
      jobId: JobJson.properties.jobId,
    } as { [K in keyof typeof JobJson.properties]: TOptional<(typeof JobJson.properties)[K]> } & { jobId: typeof JobJson.properties.jobId },
    {
      ...closed,
      description:
        "A job as a read with `fields` answers it: the fields asked for that the job has, and jobId, no others. Any field " +
        "of Job may be absent, even one Job requires.",
      examples: [{ jobId: "j-min", state: "pre" }],
    },
  ),
  "PartialJob",
);
export type PartialJobJson = Static<typeof PartialJobJson>;

/** A job search's answer with `fields=`: JobList with partial jobs. */
export const PartialJobListJson = named(
  Type.Object(
    {
      jobs: Type.Array(PartialJobJson, { description: "The jobs found, in job id order, each with the fields asked for.", examples: [[]] }),
      nextPageToken: JobListJson.properties.nextPageToken,
    },
    { ...closed, description: "The result of a job search with `fields`: the jobs are partial.", examples: [{ jobs: [{ jobId: "j-min", state: "pre" }] }] },
  ),
  "PartialJobList",
);

export const JobIdParams = Type.Object(
  {
    jobId: IdOf("The job's id.", "encoder-1"),
  },
  { additionalProperties: false },
);
