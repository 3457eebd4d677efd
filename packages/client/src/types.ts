// The API's resources by name, as the document defines them (generated; never restated).
import type { components } from "./gen/openapi.js";

type Schemas = components["schemas"];

export type Job = Schemas["Job"];
export type JobInput = Schemas["JobInput"];
export type JobPatch = Schemas["JobPatch"];
export type JsonPatch = Schemas["JsonPatch"];
export type PartialJob = Schemas["PartialJob"];
export type JobActivity = Schemas["JobActivity"];
export type RunningJob = Schemas["RunningJob"];
export type StartInstance = Schemas["StartInstance"];
export type Node = Schemas["Node"];
export type AwsNodeInput = Schemas["AwsNodeInput"];
export type AwsNode = Schemas["AwsNode"];
export type OciNodeInput = Schemas["OciNodeInput"];
export type OciNode = Schemas["OciNode"];
export type PhysicalNodeUpdate = Schemas["PhysicalNodeUpdate"];
export type PhysicalNodeUpdateInput = Schemas["PhysicalNodeUpdateInput"];
export type CloudHealth = Schemas["CloudHealth"];
export type ProbeStatus = Schemas["ProbeStatus"];
