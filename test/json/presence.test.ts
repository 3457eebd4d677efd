import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { ServiceParametersSchema, ServiceSchema } from "norsk-manager-contract/gen/norsk/api/common_pb.js";
import { JobRequirementsSchema, JobSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { jobFromJson, jobToJson } from "../../src/json/job.js";
import { messageFromJson, messageToJson } from "../../src/json/mirror.js";
import { jobBody } from "./helpers.js";

const REQUIRED = [
  "jobId",
  "description",
  "tags",
  "startDateTime",
  "currentHash",
  "services",
  "norskMediaVersion",
  "state",
  "shape",
  "architecture",
  "subnet",
  "availabilityDomain",
  "cloud",
];

describe("Job output presence: what the SDK interface marks required is always there", () => {
  it("emits exactly the required fields for an empty Job, with zero values for jobId and startDateTime", () => {
    const json = jobToJson(create(JobSchema));
    expect(Object.keys(json)).toEqual(REQUIRED);
    expect(json.jobId).toBe("");
    expect(json.startDateTime).toBe("1970-01-01T00:00:00Z");
    expect(json.currentHash).toBe("0");
    expect(json.tags).toEqual({});
    expect(json.services).toEqual([]);
  });

  it("omits the optional implicit-presence fields when empty, emits them when not", () => {
    const empty = jobToJson(jobFromJson(jobBody({ managerConfiguration: "", volumes: [], extraSecurityGroups: [], norskCpuList: [], writeFiles: [], productTemplateParameters: {} })));
    expect(Object.keys(empty)).toEqual(REQUIRED);
    const full = jobToJson(jobFromJson(jobBody({ managerConfiguration: "{}", volumes: ["v"], norskCpuList: [0], productTemplateParameters: { k: "" } })));
    expect(full).toMatchObject({ managerConfiguration: "{}", volumes: ["v"], norskCpuList: [0], productTemplateParameters: { k: "" } });
  });

  it("keeps launchConfigJson \"\" (set but empty) apart from absent, and templateLaunchDefaultsJson likewise", () => {
    const set = jobFromJson(jobBody({ launchConfigJson: "", templateLaunchDefaultsJson: "" }));
    expect(set.launchConfigJson).toBe("");
    expect(jobToJson(set)).toMatchObject({ launchConfigJson: "", templateLaunchDefaultsJson: "" });
    const absent = jobFromJson(jobBody());
    expect(absent.launchConfigJson).toBeUndefined();
    expect(jobToJson(absent)).not.toHaveProperty("launchConfigJson");
    expect(jobToJson(absent)).not.toHaveProperty("templateLaunchDefaultsJson");
  });

  it("emits set sub-messages even when all their fields are zero, and omits unset ones", () => {
    const json = jobToJson(jobFromJson(jobBody({ autoPlacement: {}, terminalState: {}, productTemplate: {} })));
    expect(json.autoPlacement).toEqual({});
    expect(json.terminalState).toEqual({ failureReason: "" });
    expect(json.productTemplate).toEqual({ name: "", version: "" });
    expect(jobToJson(jobFromJson(jobBody()))).not.toHaveProperty("autoPlacement");
  });

  it("reads a Job with only jobId and startDateTime, everything else the proto3 zero value", () => {
    const job = jobFromJson(jobBody());
    const expected = create(JobSchema, {
      jobId: { jobId: "j-1" },
      startDateTime: { seconds: 1764669600n, nanos: 0 },
    });
    expect(job).toEqual(expected);
  });
});

describe("nested messages: every scalar, repeated and map field, zero values included", () => {
  it("emits all scalars of an empty Service, and omits its unset sub-messages and oneof", () => {
    expect(messageToJson(ServiceSchema, create(ServiceSchema))).toStrictEqual({
      name: "",
      restart: "never",
      dependsOn: [],
      configuration: "",
      restartCount: 0,
      restartPeriod: 0,
      command: "",
    });
  });

  it("emits a flattened wrapper when set, even to its zero value, and omits it when unset", () => {
    const set = create(ServiceParametersSchema, { sharedMemorySize: { value: 0n } });
    expect(messageToJson(ServiceParametersSchema, set).sharedMemorySize).toBe("0");
    expect(messageToJson(ServiceParametersSchema, create(ServiceParametersSchema))).not.toHaveProperty("sharedMemorySize");
    const requirements = messageFromJson(JobRequirementsSchema, { requiredGpuModel: "", requiredCores: 0 });
    expect(requirements.requiredGpuModel?.value).toBe("");
    expect(requirements.requiredCores?.value).toBe(0);
    expect(messageToJson(JobRequirementsSchema, requirements)).toMatchObject({ requiredGpuModel: "", requiredCores: 0 });
  });

  it("flattens ContainerUrl to its url inside docker", () => {
    const service = messageFromJson(ServiceSchema, { docker: { containerUrl: "img:1" } });
    expect(service.container.case).toBe("docker");
    expect(service.container.value?.containerUrl?.url).toBe("img:1");
    expect(messageToJson(ServiceSchema, service).docker).toEqual({ containerUrl: "img:1" });
    expect(messageToJson(ServiceSchema, messageFromJson(ServiceSchema, { docker: {} })).docker).toEqual({});
  });
});

describe("null on input means absent", () => {
  it("reads every nullable property set to null as if it were not there", () => {
    const names = Object.keys(jobToJson(jobFromJson(jobBody({ launchConfigJson: "", autoPlacement: {}, volumes: ["v"] }))));
    const nulls = Object.fromEntries([...names, "templateLaunchDefaultsJson", "terminalState", "norskServiceParameters"].map((n) => [n, null]));
    const job = jobFromJson({ ...nulls, jobId: "j-1", startDateTime: "2025-12-02T10:00:00Z" });
    expect(job).toEqual(jobFromJson(jobBody()));
  });

  it("reads a null oneof member as unset, so another member may be set", () => {
    const service = messageFromJson(ServiceParametersSchema, { portMappings: [{ ephemeral: null, range: { minPort: 1, maxPort: 2 } }] });
    expect(service.portMappings[0]?.hostPort.case).toBe("range");
  });
});
