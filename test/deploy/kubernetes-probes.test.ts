// The manifests, run: the reference Manager started with the StatefulSet's args, and the built
// gateway with the ConfigMap's and the Deployment's environment, each reading its TLS files
// where the generated Secrets would put them (the example certificates of
// deploy/kubernetes/tls/make-example-certs.sh), so that they speak mutual TLS as they would in
// the cluster, and taking the API key deploy/make-api-key.sh made in the Secret's file. Then the
// gateway is probed as the kubelet probes it (path, port and headers read from the Deployment),
// called with and without the key, while the Manager is up and after it is gone. What differs, and why:
// ports are free ones of this machine; the Manager is dialled at 127.0.0.1, with
// MANAGER_SERVER_NAME set to the Service's name (which does not resolve here), so that its
// certificate is still checked for that name.
import { execFile } from "node:child_process";
import { get } from "node:http";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { Container, HTTPGetAction, PodSpec, Probe } from "kubernetes-types/core/v1.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startProcess } from "../helpers/command.js";
import type { StartedCommand } from "../helpers/command.js";
import { KUBERNETES_DIR, find, readKustomization, readObjects, secretSource } from "../helpers/kubernetes.js";

const KUSTOMIZATION = readKustomization();
const OBJECTS = readObjects(KUSTOMIZATION);
const CONFIG = (find(OBJECTS, "ConfigMap", "norsk-manager-gateway") as unknown as { data: Record<string, string> }).data;
const podOf = (kind: string, name: string): PodSpec => (find(OBJECTS, kind, name) as unknown as { spec: { template: { spec: PodSpec } } }).spec.template.spec;
const GATEWAY_POD = podOf("Deployment", "norsk-manager-gateway");
const MANAGER_POD = podOf("StatefulSet", "norsk-reference-manager");
const GATEWAY = GATEWAY_POD.containers[0] as Container;
const MANAGER = MANAGER_POD.containers[0] as Container;

let folder: string;
let manager: StartedCommand;
let managerStopped: Promise<number | null> | undefined;
let gateway: StartedCommand;
let port: number;
/** What deploy/make-api-key.sh printed. */
let apiKey: string;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const address = server.address();
  await new Promise<void>((done) => server.close(() => { done(); }));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

/** A path the container is given: its Secret's file, if it is one; the data volume's stand-in for /data. */
function local(pod: PodSpec, container: Container, value: string): string {
  if (value === "/data") return join(folder, "data");
  return value.startsWith("/etc/") ? secretSource(KUSTOMIZATION, pod, container, value, folder) : value;
}

/** What the kubelet does for an httpGet probe: GET the path on the pod's port, with the probe's headers. */
async function probe(which: Probe | undefined, host?: string): Promise<number> {
  const action = which?.httpGet as HTTPGetAction;
  expect(GATEWAY.ports?.find((p) => p.name === action.port)?.containerPort).toBe(Number(CONFIG.PORT));
  const headers = Object.fromEntries((action.httpHeaders ?? []).map((h) => [h.name.toLowerCase(), h.value]));
  return statusOf(action.path ?? "/", host === undefined ? headers : { ...headers, host });
}

/** GET `path` on the gateway's port with `headers` (Host among them, which fetch cannot set). */
async function statusOf(path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((done, fail) => {
    get({ host: "127.0.0.1", port, path, headers }, (response) => {
      response.resume();
      done(response.statusCode ?? 0);
    }).on("error", fail);
  });
}

async function startManager(): Promise<StartedCommand> {
  const managerPort = String(await freePort());
  const args = (MANAGER.args ?? []).map((arg) => (arg === String(MANAGER.ports?.[0]?.containerPort) ? managerPort : local(MANAGER_POD, MANAGER, arg)));
  return startProcess([process.execPath, "packages/reference-manager/dist/main.js", ...args], { listening: /listening on (\S+)/ });
}

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "kubernetes-run-"));
  await mkdir(join(folder, "tls"));
  await mkdir(join(folder, "data"));
  await mkdir(join(folder, "api-keys"));
  await promisify(execFile)(join(KUBERNETES_DIR, "tls", "make-example-certs.sh"), [join(folder, "tls")]);
  apiKey = (await promisify(execFile)("deploy/make-api-key.sh", [join(folder, "api-keys")])).stdout.trim();
  manager = await startManager();
  port = await freePort();
  const [serviceName, servicePort] = (CONFIG.MANAGER_ADDRESS ?? "").split(":");
  const managerPort = manager.url.split(":").at(-1) ?? "";
  expect(servicePort).toBe(String(MANAGER.ports?.[0]?.containerPort));
  const fromDeployment = Object.fromEntries((GATEWAY.env ?? []).map((e) => [e.name, local(GATEWAY_POD, GATEWAY, e.value ?? "")]));
  const env = { PATH: process.env.PATH, ...CONFIG, ...fromDeployment, PORT: String(port), METRICS_PORT: String(await freePort()), MANAGER_ADDRESS: `127.0.0.1:${managerPort}`, MANAGER_SERVER_NAME: serviceName };
  gateway = await startProcess([process.execPath, "dist/src/main.js"], { env });
}, 60_000);

afterAll(async () => {
  expect(await gateway.stop()).toBe(0);
  expect(await (managerStopped ??= manager.stop())).toBe(0);
  await rm(folder, { recursive: true, force: true });
});

describe("the manifests, run with the example certificates", () => {
  it("start the gateway with the ConfigMap's settings, listening on all interfaces, in front of the Manager over mutual TLS", () => {
    expect(gateway.lines.some((line) => line.includes(`listening on http://127.0.0.1:${String(port)}`))).toBe(true);
    expect(GATEWAY.env?.map((e) => e.name)).toEqual(["MANAGER_CA", "MANAGER_CERT", "MANAGER_KEY", "API_KEYS_FILE"]);
  });

  it("the gateway answers a caller with the key deploy/make-api-key.sh printed, and no caller without it", async () => {
    const asClient = { host: "norsk-manager-gateway" };
    expect(await statusOf("/v1/jobs", { ...asClient, "x-api-key": apiKey })).toBe(200);
    expect(await statusOf("/v1/jobs", asClient)).toBe(401);
    expect(await statusOf("/v1/jobs", { ...asClient, "x-api-key": `${apiKey.slice(0, -1)}${apiKey.endsWith("0") ? "1" : "0"}` })).toBe(401);
  });

  it("the gateway is started, live and ready while the Manager answers", async () => {
    expect(await probe(GATEWAY.startupProbe)).toBe(200);
    expect(await probe(GATEWAY.livenessProbe)).toBe(200);
    expect(await probe(GATEWAY.readinessProbe)).toBe(200);
  });

  it("the gateway answers under its Service's names, and refuses a name ALLOWED_HOSTS does not list", async () => {
    expect(await probe(GATEWAY.livenessProbe, `norsk-manager-gateway.${KUSTOMIZATION.namespace}.svc`)).toBe(200);
    expect(await probe(GATEWAY.livenessProbe, "norsk-manager-gateway:80")).toBe(200);
    expect(await probe(GATEWAY.livenessProbe, "evil.example")).toBe(421);
  });

  it("the gateway leaves the Service's endpoints when the Manager is gone, and is not restarted for it", async () => {
    expect(await (managerStopped = manager.stop())).toBe(0);
    expect(await probe(GATEWAY.readinessProbe)).toBe(503);
    expect(await probe(GATEWAY.livenessProbe)).toBe(200);
  });
});
