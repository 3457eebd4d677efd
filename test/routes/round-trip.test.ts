// The seed's promise: updateJob(await jobById(id)) changes nothing. Over HTTP: GET a job with
// every optional field set (launchConfigJson "" included), PUT it back unchanged, GET again.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, JSON_HEADERS } from "../helpers/gateway.js";
import type { TestGateway } from "../helpers/gateway.js";

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw.close();
});

const FULL_JOB = {
  jobId: "tenant/a:b c-ü",
  description: "all of it",
  tags: { env: "prod", team: "media" },
  startDateTime: "2100-01-01T00:00:00.123456789Z",
  managerConfiguration: '{"a":1}',
  services: [
    {
      name: "norsk",
      docker: { containerUrl: "docker.io/norsk/norsk:1.2" },
      restart: "on_failure",
      dependsOn: ["db"],
      configuration: "cfg",
      restartCount: 3,
      restartPeriod: 60,
      command: "run",
      parameters: {
        portMappings: [
          { containerPort: 8080, protocol: "tcp", specific: { port: 80 }, hostAddress: "0.0.0.0", group: "g" },
          { containerPort: 5001, protocol: "udp", range: { minPort: 6000, maxPort: 6010 }, hostAddress: "", group: "" },
          { containerPort: 9000, protocol: "any", ephemeral: {}, hostAddress: "", group: "" },
        ],
        environmentVariables: [{ name: "A", value: "b" }],
        sharedMemorySize: "18446744073709551615",
        cpuSet: [0, 2],
        volumeMounts: [{ volumeName: "v", containerPath: "/data", readOnly: true }],
      },
    },
  ],
  norskMediaVersion: "previous_recommended",
  norskServiceParameters: { portMappings: [], environmentVariables: [], cpuSet: [1], volumeMounts: [] },
  volumes: ["v", "w"],
  state: "active",
  shape: "VM.Standard.E4.Flex",
  architecture: "x86_64",
  subnet: "sn",
  availabilityDomain: "AD-1",
  cloud: "oci",
  autoPlacement: {
    requirements: {
      requiredCapacity: 0.5,
      requiredCores: 4,
      requiredGpuCapacity: 0.25,
      requiredGpuModel: "H100",
      requiredCapabilities: [{ name: "gpu", value: "nvenc" }],
      priorityBand: "bronze",
    },
  },
  extraSecurityGroups: ["sg-a", "sg-b"],
  launchConfigJson: "",
  norskCpuList: [0, 4294967295],
  productTemplate: { name: "tpl", version: "1.2.3" },
  productTemplateParameters: { K: "V" },
  templateLaunchDefaultsJson: '{"cpu":2}',
  terminalState: { failureReason: "restart ceiling exceeded" },
  writeFiles: [{ path: "/etc/x.conf", contents: "a=b\n" }],
};

const URL = `/v1/jobs/${encodeURIComponent(FULL_JOB.jobId)}`;

describe("GET → PUT → GET", () => {
  it("changes nothing, the hash included", async () => {
    const created = await gw.app.inject({ method: "POST", url: "/v1/jobs", headers: JSON_HEADERS, payload: FULL_JOB });
    expect(created.statusCode).toBe(201);

    const first = await gw.app.inject({ method: "GET", url: URL });
    expect(first.statusCode).toBe(200);
    const job = first.json<Record<string, unknown>>();
    expect(job).toEqual({ ...FULL_JOB, currentHash: job.currentHash });
    expect(job.launchConfigJson).toBe("");

    const put = await gw.app.inject({ method: "PUT", url: URL, headers: { ...JSON_HEADERS, "if-match": String(first.headers.etag) }, payload: first.body });
    expect(put.statusCode).toBe(200);
    expect(put.body).toBe(first.body);

    const second = await gw.app.inject({ method: "GET", url: URL });
    expect(second.body).toBe(first.body);
    expect(second.headers.etag).toBe(first.headers.etag);
  });

  it("keeps launchConfigJson absent when it was absent", async () => {
    await gw.app.inject({ method: "POST", url: "/v1/jobs", headers: JSON_HEADERS, payload: { jobId: "bare", startDateTime: "2026-01-01T00:00:00Z" } });
    const first = await gw.app.inject({ method: "GET", url: "/v1/jobs/bare" });
    expect(first.json()).not.toHaveProperty("launchConfigJson");
    await gw.app.inject({ method: "PUT", url: "/v1/jobs/bare", headers: JSON_HEADERS, payload: first.body });
    const second = await gw.app.inject({ method: "GET", url: "/v1/jobs/bare" });
    expect(second.json()).not.toHaveProperty("launchConfigJson");
    expect(second.body).toBe(first.body);
    const stored = (await gw.jobs()).find((j) => j.jobId?.jobId === "bare");
    expect(stored?.launchConfigJson).toBeUndefined();
  });
});
