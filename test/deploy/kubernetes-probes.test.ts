// The gateway Deployment's settings and probes, run: the built gateway started with the
// ConfigMap's environment (the Manager's address and the port are this test's), probed as the
// kubelet probes it (path, port and headers read from the Deployment), while the Manager is up
// and after it is gone. The TLS variables of the Deployment are left out until the settings they
// name exist (test/deploy/kubernetes.test.ts, AWAITING).
import { get } from "node:http";
import { createServer } from "node:net";
import type { HTTPGetAction, PodSpec, Probe } from "kubernetes-types/core/v1.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IN_MEMORY, startManager } from "../../src/manager/index.js";
import type { RunningManager } from "../../src/manager/index.js";
import { startProcess } from "../helpers/command.js";
import type { StartedCommand } from "../helpers/command.js";
import { find, readKustomization, readObjects } from "../helpers/kubernetes.js";

const KUSTOMIZATION = readKustomization();
const OBJECTS = readObjects(KUSTOMIZATION);
const CONFIG = (find(OBJECTS, "ConfigMap", "norsk-manager-gateway") as unknown as { data: Record<string, string> }).data;
const POD = (find(OBJECTS, "Deployment", "norsk-manager-gateway") as unknown as { spec: { template: { spec: PodSpec } } }).spec.template.spec;
const CONTAINER = POD.containers[0];

let manager: RunningManager;
let managerClosed: Promise<void> | undefined;
let gateway: StartedCommand;
let port: number;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const address = server.address();
  await new Promise<void>((done) => server.close(() => { done(); }));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

/** What the kubelet does for an httpGet probe: GET the path on the pod's port, with the probe's headers. */
async function probe(which: Probe | undefined, host?: string): Promise<number> {
  const action = which?.httpGet as HTTPGetAction;
  const named = CONTAINER?.ports?.find((p) => p.name === action.port);
  expect(named?.containerPort).toBe(Number(CONFIG.PORT));
  const headers = Object.fromEntries((action.httpHeaders ?? []).map((h) => [h.name.toLowerCase(), h.value]));
  return new Promise((done, fail) => {
    get({ host: "127.0.0.1", port, path: action.path, headers: host === undefined ? headers : { ...headers, host } }, (response) => {
      response.resume();
      done(response.statusCode ?? 0);
    }).on("error", fail);
  });
}

beforeAll(async () => {
  manager = await startManager({ port: 0, dataDir: IN_MEMORY });
  port = await freePort();
  const env = { PATH: process.env.PATH, ...CONFIG, PORT: String(port), MANAGER_ADDRESS: manager.address };
  gateway = await startProcess([process.execPath, "dist/src/main.js"], { env });
});

afterAll(async () => {
  expect(await gateway.stop()).toBe(0);
  await (managerClosed ??= manager.close());
});

describe("the gateway Deployment, probed as the kubelet probes it", () => {
  it("starts with the ConfigMap's settings, listening on all interfaces", () => {
    expect(gateway.lines.some((line) => line.includes(`listening on http://127.0.0.1:${String(port)}`))).toBe(true);
  });

  it("is started, live and ready while the Manager answers", async () => {
    expect(await probe(CONTAINER?.startupProbe)).toBe(200);
    expect(await probe(CONTAINER?.livenessProbe)).toBe(200);
    expect(await probe(CONTAINER?.readinessProbe)).toBe(200);
  });

  it("answers under its Service's names, and refuses a name ALLOWED_HOSTS does not list", async () => {
    expect(await probe(CONTAINER?.livenessProbe, `norsk-manager-gateway.${KUSTOMIZATION.namespace}.svc`)).toBe(200);
    expect(await probe(CONTAINER?.livenessProbe, "norsk-manager-gateway:80")).toBe(200);
    expect(await probe(CONTAINER?.livenessProbe, "evil.example")).toBe(421);
  });

  it("leaves the Service's endpoints when the Manager is gone, and is not restarted for it", async () => {
    await (managerClosed = manager.close());
    expect(await probe(CONTAINER?.readinessProbe)).toBe(503);
    expect(await probe(CONTAINER?.livenessProbe)).toBe(200);
  });
});
