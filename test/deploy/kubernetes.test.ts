// deploy/kubernetes, checked without a cluster: every object against the Kubernetes API schemas
// (test/helpers/kubernetes.ts), and how the objects refer to each other, to the images the
// Dockerfile builds and to the gateway's settings. test/deploy/kubernetes-probes.test.ts runs the
// gateway with the ConfigMap's settings and probes it as the kubelet would.
import { execFile } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { promisify } from "node:util";
import type { Container, PodSpec, Probe } from "kubernetes-types/core/v1.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SETTINGS } from "../../src/config.js";
import { imageConfig, readDockerfile } from "../helpers/dockerfile.js";
import { KUBERNETES_DIR, find, generatedSecret, readKustomization, readObjects, schemaErrors, typeErrors } from "../helpers/kubernetes.js";
import type { KubeObject } from "../helpers/kubernetes.js";

const run = promisify(execFile);
const MAKE_API_KEY = "deploy/make-api-key.sh";

const KUSTOMIZATION = readKustomization();
const OBJECTS = readObjects(KUSTOMIZATION);
const STAGES = readDockerfile();
const GATEWAY = "norsk-manager-gateway";
const MANAGER = "norsk-reference-manager";

interface Workload extends KubeObject {
  spec: { replicas: number; selector: { matchLabels: Record<string, string> }; template: { metadata: { labels: Record<string, string> }; spec: PodSpec } };
}
const DEPLOYMENT = find(OBJECTS, "Deployment", GATEWAY) as Workload;
const STATEFULSET = find(OBJECTS, "StatefulSet", MANAGER) as Workload;
const CONFIG = (find(OBJECTS, "ConfigMap", GATEWAY) as KubeObject & { data: Record<string, string> }).data;
const gatewayContainer = (): Container => only(DEPLOYMENT.spec.template.spec.containers);
const managerContainer = (): Container => only(STATEFULSET.spec.template.spec.containers);

function only<T>(items: readonly T[] | undefined): T {
  expect(items?.length).toBe(1);
  return (items ?? [])[0] as T;
}

/** An object's spec, as the shape a test reads of it. */
function spec(kind: string, name: string): unknown {
  const object: KubeObject & { spec?: unknown } = find(OBJECTS, kind, name);
  if (object.spec === undefined) throw new Error(`${kind} ${name} has no spec`);
  return object.spec;
}

const KNOWN_ENV = new Set(SETTINGS.map((s) => s.env));
let managerHelp: string;
/** Stands for deploy/kubernetes: its tls/ and api-keys/ hold what make-example-certs.sh and make-api-key.sh write. */
let kustomizationCopy: string;

beforeAll(async () => {
  ({ stdout: managerHelp } = await run(process.execPath, ["packages/reference-manager/dist/main.js", "--help"]));
  kustomizationCopy = await mkdtemp(join(tmpdir(), "kubernetes-tls-"));
  await mkdir(join(kustomizationCopy, "tls"));
  await mkdir(join(kustomizationCopy, "api-keys"));
  await run(join(KUBERNETES_DIR, "tls", "make-example-certs.sh"), [join(kustomizationCopy, "tls")]);
  await run(MAKE_API_KEY, [join(kustomizationCopy, "api-keys")]);
});

afterAll(async () => {
  await rm(kustomizationCopy, { recursive: true, force: true });
});

describe("deploy/kubernetes: the objects", () => {
  it("are the kustomization's resources, every manifest in the folder", () => {
    const manifests = readdirSync(KUBERNETES_DIR).filter((file) => file.endsWith(".yaml") && file !== "kustomization.yaml");
    expect([...KUSTOMIZATION.resources].sort()).toEqual(manifests.sort());
    expect(find(OBJECTS, "Namespace", KUSTOMIZATION.namespace).metadata.name).toBe("norsk");
  });

  it("are valid under the Kubernetes API schemas, the generated Secrets included", () => {
    const secrets = KUSTOMIZATION.secretGenerator.map((generator) => generatedSecret(generator, kustomizationCopy));
    expect(schemaErrors([...OBJECTS, ...secrets])).toEqual([]);
  });

  it("have no field the API does not know, and the check finds a misspelt one and a wrong type", () => {
    const planted = structuredClone([DEPLOYMENT, find(OBJECTS, "Service", GATEWAY)]) as [Workload, KubeObject & { spec: Record<string, unknown> }];
    planted[0].metadata.name = "planted-typo";
    (planted[0].spec as unknown as Record<string, unknown>).replica = 3;
    planted[1].metadata.name = "planted-type";
    planted[1].spec.ports = [{ port: "eighty" }];
    expect(typeErrors([...OBJECTS, ...planted])).toEqual([
      expect.stringMatching(/^Deployment planted-typo: .*'"replica"' does not exist in type 'DeploymentSpec'/),
      expect.stringMatching(/^Service planted-type: Type 'string' is not assignable to type 'number'/),
    ]);
  }, 30_000);
});

describe("deploy/kubernetes: the gateway's replicas", () => {
  it("are selected by their Service, PodDisruptionBudget and autoscaler, whose names and labels match", () => {
    const labels = DEPLOYMENT.spec.template.metadata.labels;
    expect(labels).toMatchObject(DEPLOYMENT.spec.selector.matchLabels);
    expect(labels).toMatchObject((spec("Service", GATEWAY) as { selector: Record<string, string> }).selector);
    expect(labels).toMatchObject((spec("PodDisruptionBudget", GATEWAY) as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels);
    expect((spec("HorizontalPodAutoscaler", GATEWAY) as { scaleTargetRef: unknown }).scaleTargetRef).toEqual({ apiVersion: "apps/v1", kind: "Deployment", name: GATEWAY });
  });

  it("are several, and a disruption or a rolling update takes none of them below the rest", () => {
    const hpa = (spec("HorizontalPodAutoscaler", GATEWAY) as { minReplicas: number; maxReplicas: number });
    expect(DEPLOYMENT.spec.replicas).toBe(hpa.minReplicas);
    expect(hpa.minReplicas).toBeGreaterThanOrEqual(2);
    expect(hpa.maxReplicas).toBeGreaterThan(hpa.minReplicas);
    expect((spec("PodDisruptionBudget", GATEWAY) as { maxUnavailable: number }).maxUnavailable).toBeLessThan(hpa.minReplicas);
    expect(DEPLOYMENT.spec).toMatchObject({ strategy: { rollingUpdate: { maxUnavailable: 0 } } });
    // The autoscaler's utilisation is measured against the CPU request.
    expect(gatewayContainer().resources?.requests?.cpu).toBeDefined();
  });

  it("have two whole CPUs, requested as much as the limit, and run a worker on each (WORKERS auto)", () => {
    const { requests, limits } = gatewayContainer().resources ?? {};
    expect(requests).toEqual({ cpu: "2", memory: "1Gi" });
    expect(limits).toEqual(requests);
    expect(CONFIG.WORKERS).toBe("auto");
    // Workers share the metrics port by its number (src/config.ts): it must not be 0.
    expect(Number(CONFIG.METRICS_PORT)).toBeGreaterThan(0);
  });

  it("are served on the image's port, which the Service targets by name", () => {
    const [port] = gatewayContainer().ports ?? [];
    expect(port).toMatchObject({ name: "http", containerPort: Number(CONFIG.PORT) });
    expect(imageConfig(STAGES, "gateway").expose).toEqual([CONFIG.PORT]);
    expect(only((spec("Service", GATEWAY) as { ports: { targetPort: string }[] }).ports).targetPort).toBe("http");
  });

  it("are probed for readiness on /readyz and for liveness on /healthz, as Host localhost, which ALLOWED_HOSTS lists", () => {
    const container = gatewayContainer();
    const get = (probe: Probe | undefined): unknown => probe?.httpGet;
    const asLocalhost = { port: "http", httpHeaders: [{ name: "Host", value: "localhost" }] };
    expect(get(container.readinessProbe)).toEqual({ path: "/readyz", ...asLocalhost });
    expect(get(container.livenessProbe)).toEqual({ path: "/healthz", ...asLocalhost });
    expect(get(container.startupProbe)).toEqual({ path: "/healthz", ...asLocalhost });
    expect(CONFIG.ALLOWED_HOSTS?.split(",")).toContain("localhost");
  });

  it("accept the names of their Service in its namespace", () => {
    const allowed = CONFIG.ALLOWED_HOSTS?.split(",") ?? [];
    for (const name of [GATEWAY, `${GATEWAY}.${KUSTOMIZATION.namespace}.svc`, `${GATEWAY}.${KUSTOMIZATION.namespace}.svc.cluster.local`]) expect(allowed).toContain(name);
  });

  it("are configured with gateway settings only", () => {
    const names = [...Object.keys(CONFIG), ...(gatewayContainer().env ?? []).map((e) => e.name)];
    expect(names.filter((name) => !KNOWN_ENV.has(name))).toEqual([]);
    expect(CONFIG.HOST).toBe("0.0.0.0");
    expect(gatewayContainer().envFrom).toEqual([{ configMapRef: { name: GATEWAY } }]);
  });

  it("are given the time to finish a shutdown: preStop, then SHUTDOWN_TIMEOUT_MS, then the process's own 5 s", () => {
    const preStop = gatewayContainer().lifecycle?.preStop?.exec?.command ?? [];
    expect(preStop.slice(0, 1)).toEqual(["sleep"]);
    // src/main.ts exits on its own at most 5 s after --shutdown-timeout.
    const needed = Number(preStop[1]) + Number(CONFIG.SHUTDOWN_TIMEOUT_MS) / 1000 + 5;
    expect(DEPLOYMENT.spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(needed);
  });
});

describe("deploy/kubernetes: both workloads", () => {
  it.each([["gateway", () => DEPLOYMENT, "gateway"], ["reference Manager", () => STATEFULSET, "reference-manager"]] as const)("the %s runs its image as the non-root user node, read-only, with no privileges", (_, workload, target) => {
    const pod = workload().spec.template.spec;
    expect(imageConfig(STAGES, target).user).toBe("node");
    // uid and gid 1000: the node images' user "node".
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000, fsGroup: 1000, seccompProfile: { type: "RuntimeDefault" } });
    expect(pod.automountServiceAccountToken).toBe(false);
    const container = only(pod.containers);
    expect(container.securityContext).toEqual({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ["ALL"] } });
    expect(KUSTOMIZATION.images.map((i) => i.name)).toContain(container.image);
    expect(container.resources?.limits?.memory).toBeDefined();
  });

  it.each([["gateway", gatewayContainer, () => DEPLOYMENT, 4], ["reference Manager", managerContainer, () => STATEFULSET, 3]] as const)("the %s reads each file it is given from a mounted Secret that the kustomization generates with that key", (_, container, workload, count) => {
    const paths = [...(container().env ?? []).map((e) => e.value ?? ""), ...(container().args ?? [])].filter((value) => value.startsWith("/etc/"));
    expect(paths.length).toBe(count);
    for (const path of paths) {
      const mount = container().volumeMounts?.find((m) => m.mountPath === dirname(path));
      expect(mount, path).toMatchObject({ readOnly: true });
      const volume = workload().spec.template.spec.volumes?.find((v) => v.name === mount?.name);
      expect(volume?.secret?.defaultMode).toBe(0o440);
      const generator = KUSTOMIZATION.secretGenerator.find((g) => g.name === volume?.secret?.secretName);
      expect(Object.keys(generator?.files ?? {}), path).toContain(basename(path));
      // The TLS material in Secrets of the TLS type; the API keys' digests in an Opaque one.
      expect(generator?.type, path).toBe(path.endsWith("/api-keys.json") ? "Opaque" : "kubernetes.io/tls");
    }
  });
});

describe("deploy/kubernetes: who may call the gateway", () => {
  const env = (name: string): string | undefined => gatewayContainer().env?.find((e) => e.name === name)?.value;

  it("the gateway takes the API keys of the mounted Secret (API_KEYS_FILE) and is never told AUTH=none", () => {
    const file = env("API_KEYS_FILE") ?? "";
    const mount = gatewayContainer().volumeMounts?.find((m) => m.mountPath === dirname(file));
    const volume = DEPLOYMENT.spec.template.spec.volumes?.find((v) => v.name === mount?.name);
    expect(volume?.secret?.secretName).toBe(`${GATEWAY}-api-keys`);
    expect(CONFIG.AUTH).toBeUndefined();
    expect(env("AUTH")).toBeUndefined();
    expect(Object.keys(CONFIG).filter((name) => name.startsWith("API_KEYS") || name.startsWith("AUTH_"))).toEqual([]);
  });

  it("the API keys' Secret is made from the file deploy/make-api-key.sh writes in api-keys/, which git ignores", async () => {
    const generator = KUSTOMIZATION.secretGenerator.find((g) => g.name === `${GATEWAY}-api-keys`);
    expect(generator?.files).toEqual({ "api-keys.json": "api-keys/api-keys.json" });
    const { stdout } = await run("git", ["check-ignore", join(KUBERNETES_DIR, "api-keys", "api-keys.json")]);
    expect(stdout.trim()).toBe(join(KUBERNETES_DIR, "api-keys", "api-keys.json"));
  });

  it("says how to make the key, before `kubectl apply -k`, in the kustomization's own comment", () => {
    const text = readFileSync(join(KUBERNETES_DIR, "kustomization.yaml"), "utf8");
    const make = text.indexOf(`${MAKE_API_KEY} ${KUBERNETES_DIR}/api-keys`);
    expect(make).toBeGreaterThan(-1);
    expect(make).toBeLessThan(text.indexOf("kubectl apply -k deploy/kubernetes"));
  });
});

describe("deploy/kubernetes: the reference Manager", () => {
  it("is one replica, reached by the gateways at its Service's name and port", () => {
    expect(STATEFULSET.spec.replicas).toBe(1);
    const service = (spec("Service", MANAGER) as { selector: Record<string, string>; ports: { port: number; targetPort: string }[] });
    expect(STATEFULSET.spec.template.metadata.labels).toMatchObject(service.selector);
    expect(STATEFULSET.spec.template.metadata.labels).toMatchObject(STATEFULSET.spec.selector.matchLabels);
    const port = only(service.ports);
    expect(CONFIG.MANAGER_ADDRESS).toBe(`${MANAGER}:${String(port.port)}`);
    expect(only(managerContainer().ports)).toMatchObject({ name: port.targetPort, containerPort: port.port });
    expect(managerContainer().readinessProbe?.tcpSocket?.port).toBe(port.targetPort);
  });

  it("runs the image's CMD, listening on its container port, with its data on the volume claim", () => {
    const args = managerContainer().args ?? [];
    const cmd = imageConfig(STAGES, "reference-manager").cmd;
    expect(args.slice(0, cmd.length)).toEqual(cmd);
    expect(Number(args[args.indexOf("--port") + 1])).toBe(only(managerContainer().ports).containerPort);
    const claims = (STATEFULSET.spec as unknown as { volumeClaimTemplates: { metadata: { name: string } }[] }).volumeClaimTemplates;
    const data = managerContainer().volumeMounts?.find((m) => m.name === only(claims).metadata.name);
    expect(data?.mountPath).toBe(args[args.indexOf("--data-dir") + 1]);
  });

  it("is given only flags the reference Manager takes", () => {
    const flags = (managerContainer().args ?? []).filter((arg) => arg.startsWith("--"));
    expect(flags.filter((flag) => !managerHelp.includes(`${flag} `))).toEqual([]);
  });
});

describe("deploy/kubernetes/tls/make-example-certs.sh", () => {
  it("writes, with deploy/make-api-key.sh, every file the secretGenerator reads", () => {
    for (const file of KUSTOMIZATION.secretGenerator.flatMap((g) => Object.values(g.files))) expect(existsSync(join(kustomizationCopy, file)), file).toBe(true);
  });

  it("signs a server certificate for the name the gateways dial, and a client certificate for the gateways, with one CA", async () => {
    const tls = join(kustomizationCopy, "tls");
    const host = (CONFIG.MANAGER_ADDRESS ?? "").split(":")[0] ?? "";
    const verify = (purpose: string, cert: string, extra: string[] = []): Promise<unknown> =>
      run("openssl", ["verify", "-CAfile", join(tls, "ca.crt"), "-purpose", purpose, ...extra, join(tls, cert)]);
    await verify("sslserver", "manager.crt", ["-verify_hostname", host]);
    await verify("sslserver", "manager.crt", ["-verify_hostname", `${host}.${KUSTOMIZATION.namespace}.svc`]);
    await verify("sslclient", "gateway.crt");
    await expect(verify("sslserver", "manager.crt", ["-verify_hostname", "evil.example"])).rejects.toThrow();
    await expect(verify("sslserver", "gateway.crt")).rejects.toThrow();
  });
});

describe("deploy/kubernetes: the Ingress, and who reaches the Manager", () => {
  const ingress = spec("Ingress", GATEWAY) as { rules: { host: string; http: { paths: { backend: { service: { name: string; port: { name: string } } } }[] } }[] };
  const policy = spec("NetworkPolicy", MANAGER) as {
    podSelector: { matchLabels: Record<string, string> };
    policyTypes: string[];
    ingress: { from: { podSelector?: { matchLabels: Record<string, string> }; namespaceSelector?: unknown; ipBlock?: unknown }[]; ports: { port: string; protocol: string }[] }[];
  };

  it("routes the Ingress's one host to the gateway's Service, on its port", () => {
    const service = spec("Service", GATEWAY) as { ports: { name: string }[] };
    expect(ingress.rules).toHaveLength(1);
    const backend = ingress.rules[0]?.http.paths[0]?.backend.service;
    expect(backend?.name).toBe(GATEWAY);
    expect(service.ports.map((port) => port.name)).toContain(backend?.port.name);
  });

  it("appends the Ingress's host to ALLOWED_HOSTS by a replacement, so that the host is written once", () => {
    const host = ingress.rules[0]?.host ?? "";
    // Said once: the ConfigMap does not repeat it.
    expect(CONFIG.ALLOWED_HOSTS?.split(",")).not.toContain(host);
    const replacement = KUSTOMIZATION.replacements?.find((r) => r.source.kind === "Ingress" && r.source.name === GATEWAY);
    expect(replacement?.source.fieldPath).toBe("spec.rules.0.host");
    const target = replacement?.targets.find((t) => t.select.kind === "ConfigMap" && t.select.name === GATEWAY);
    expect(target?.fieldPaths).toEqual(["data.ALLOWED_HOSTS"]);
    expect(target?.options?.delimiter).toBe(",");
    // An index past the list's end appends: the names already listed all stay.
    expect(target?.options?.index).toBeGreaterThanOrEqual(CONFIG.ALLOWED_HOSTS?.split(",").length ?? 0);
  });

  it("admits to the Manager's pods only the gateway's pods, on the Manager's gRPC port", () => {
    expect(policy.podSelector.matchLabels).toEqual(STATEFULSET.spec.template.metadata.labels);
    expect(policy.policyTypes).toEqual(["Ingress"]);
    expect(policy.ingress).toHaveLength(1);
    const [rule] = policy.ingress;
    expect(rule?.from).toEqual([{ podSelector: { matchLabels: DEPLOYMENT.spec.template.metadata.labels } }]);
    expect(rule?.ports).toEqual([{ protocol: "TCP", port: "grpc" }]);
    expect(managerContainer().ports?.map((port) => port.name)).toContain("grpc");
  });
});

describe("deploy/kubernetes: Prometheus", () => {
  const monitor = spec("ServiceMonitor", GATEWAY) as { selector: { matchLabels: Record<string, string> }; endpoints: { port: string; path: string }[] };
  const metricsService = find(OBJECTS, "Service", `${GATEWAY}-metrics`) as KubeObject & {
    spec: { selector: Record<string, string>; ports: { name: string; port: number; targetPort: number }[] };
  };

  it("scrapes /metrics on the gateway's metrics port (METRICS_PORT), through a Service of its own", () => {
    const labels = metricsService.metadata.labels ?? {};
    expect(Object.entries(monitor.selector.matchLabels).every(([key, value]) => labels[key] === value)).toBe(true);
    // The API's Service is not selected: the Ingress in front of it never serves /metrics.
    const apiLabels = find(OBJECTS, "Service", GATEWAY).metadata.labels ?? {};
    expect(Object.entries(monitor.selector.matchLabels).every(([key, value]) => apiLabels[key] === value)).toBe(false);
    expect(monitor.endpoints).toEqual([expect.objectContaining({ port: "metrics", path: "/metrics" })]);
    const port = metricsService.spec.ports.find((p) => p.name === "metrics");
    expect(port?.targetPort).toBe(Number(CONFIG.METRICS_PORT));
    expect(metricsService.spec.selector).toEqual(DEPLOYMENT.spec.template.metadata.labels);
  });
});
