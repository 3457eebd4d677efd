import type { TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { describe, expect, it } from "vitest";
import { ProblemJson, componentOf } from "../../schemas/common.js";
import { CurrentJobJson, InstancesJson, JobJson, JobInputJson, JobListJson, JobPatchJson, RunningJobJson } from "../../schemas/job.js";
import { JobSearchQuery } from "../../schemas/search.js";
import { EnvironmentVariableJson, PortMappingJson, ServiceJson, ServiceParametersJson, VolumeMountJson } from "../../schemas/service.js";
import { properties } from "../helpers/schema-walk.js";

const NAMED: Record<string, TSchema> = {
  Job: JobJson,
  JobInput: JobInputJson,
  JobPatch: JobPatchJson,
  JobList: JobListJson,
  Instances: InstancesJson,
  CurrentJob: CurrentJobJson,
  RunningJob: RunningJobJson,
  Service: ServiceJson,
  ServiceParameters: ServiceParametersJson,
  PortMapping: PortMappingJson,
  EnvironmentVariable: EnvironmentVariableJson,
  VolumeMount: VolumeMountJson,
  Problem: ProblemJson,
};

/**
 * Parameters that carry no example on purpose: Swagger UI's "Try it out" sends every example,
 * and a page size, a page token or a field list sent unasked would change the answer.
 */
const WITHOUT_EXAMPLES = new Set(["/pageSize", "/pageToken", "/fields"]);

describe("schemas are documented and named", () => {
  it.each(Object.entries(NAMED))("%s is the component of its name, with a description", (name, schema) => {
    expect(componentOf(schema)).toEqual({ name, schema });
    expect(typeof schema.description).toBe("string");
  });

  it("JobSearchQuery has its name as a stable $id and a description", () => {
    expect(JobSearchQuery.$id).toBe("JobSearchQuery");
    expect(typeof JobSearchQuery.description).toBe("string");
  });

  it.each(Object.entries({ ...NAMED, JobSearchQuery }))("every property of %s has a description and an example that fits", (_name, schema) => {
    const list = properties(schema, "");
    expect(list.length).toBeGreaterThan(0);
    for (const [path, property] of list) {
      expect(property.description, `${path}: description`).toEqual(expect.any(String));
      if (WITHOUT_EXAMPLES.has(path)) {
        expect(property.examples, `${path}: examples`).toBeUndefined();
        continue;
      }
      expect(property.examples, `${path}: examples`).toEqual(expect.any(Array));
      for (const example of property.examples as unknown[]) {
        expect(Value.Check({ ...property, $id: undefined }, example), `${path}: example ${JSON.stringify(example)}`).toBe(true);
      }
    }
  });

  it("gives Job's properties the wording of docs/architecture.md, on the job as the SDK sees it", () => {
    expect(JobJson.properties.launchConfigJson.description).toContain('"" is present-but-empty');
    expect(JobJson.properties.terminalState.description).toContain("must not be re-placed");
    expect(JobJson.properties.currentHash.description).toContain("int64 on the wire");
  });
});
