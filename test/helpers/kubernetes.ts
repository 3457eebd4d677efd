// Reads deploy/kubernetes as `kubectl apply -k` would see it: the kustomization, the objects of
// each resource file (parsed as YAML 1.1, like Kubernetes' own parser: `0440` is octal), and
// the Secrets its secretGenerator makes from files. Judges objects against the Kubernetes API
// schemas twice: kubernetes-models' validators (types, formats, required fields, enums; they
// accept unknown fields, as the OpenAPI schemas do) and TypeScript's excess-property check
// against kubernetes-types (unknown and misspelt fields, as `kubectl apply`'s strict field
// validation refuses them).
import { readFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2";
import { Deployment, StatefulSet } from "kubernetes-models/apps/v1";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import { Ingress, NetworkPolicy } from "kubernetes-models/networking.k8s.io/v1";
import { ServiceMonitor } from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1";
import { ConfigMap, Namespace, Secret, Service } from "kubernetes-models/v1";
import type { Container, PodSpec } from "kubernetes-types/core/v1.js";
import ts from "typescript";
import { parseAllDocuments } from "yaml";

export const KUBERNETES_DIR = "deploy/kubernetes";

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

export interface SecretGenerator {
  readonly name: string;
  readonly type: string;
  /** key → file, relative to the kustomization. */
  readonly files: Readonly<Record<string, string>>;
}

/** A kustomize replacement: one field's value copied into others. */
export interface Replacement {
  readonly source: { readonly kind: string; readonly name: string; readonly fieldPath: string };
  readonly targets: readonly {
    readonly select: { readonly kind: string; readonly name: string };
    readonly fieldPaths: readonly string[];
    readonly options?: { readonly delimiter?: string; readonly index?: number };
  }[];
}

export interface Kustomization {
  readonly namespace: string;
  readonly replacements?: readonly Replacement[];
  readonly resources: readonly string[];
  readonly images: readonly { name: string; newTag: string }[];
  readonly secretGenerator: readonly SecretGenerator[];
}

export function readKustomization(): Kustomization {
  const raw = parseYaml(join(KUBERNETES_DIR, "kustomization.yaml"))[0] as Omit<Kustomization, "secretGenerator"> & {
    secretGenerator: { name: string; type: string; files: string[] }[];
  };
  const secretGenerator = raw.secretGenerator.map((generator) => ({
    ...generator,
    files: Object.fromEntries(generator.files.map((entry) => entry.split("=", 2) as [string, string])),
  }));
  return { ...raw, secretGenerator };
}

/** The objects of the kustomization's resources, in order. */
export function readObjects(kustomization: Kustomization): KubeObject[] {
  return kustomization.resources.flatMap((file) => parseYaml(join(KUBERNETES_DIR, file)) as KubeObject[]);
}

function parseYaml(path: string): unknown[] {
  return parseAllDocuments(readFileSync(path, "utf8"), { version: "1.1" }).map((document) => {
    if (document.errors.length > 0) throw new Error(`${path}: ${document.errors.map((e) => e.message).join("; ")}`);
    return document.toJS() as unknown;
  });
}

/** The Secret a generator makes, with the content of its files (read from `folder`). */
export function generatedSecret(generator: SecretGenerator, folder: string): KubeObject {
  const data = Object.fromEntries(Object.entries(generator.files).map(([key, file]) => [key, readFileSync(join(folder, file)).toString("base64")]));
  return { apiVersion: "v1", kind: "Secret", metadata: { name: generator.name }, type: generator.type, data };
}

/**
 * Where a file a container is given (`path`, under the mount of a Secret volume) comes from:
 * the file of the secretGenerator's entry for that Secret and key, under `folder` (which stands
 * for deploy/kubernetes).
 */
export function secretSource(kustomization: Kustomization, pod: PodSpec, container: Container, path: string, folder: string): string {
  const mount = container.volumeMounts?.find((m) => m.mountPath === dirname(path));
  const volume = pod.volumes?.find((v) => v.name === mount?.name);
  const generator = kustomization.secretGenerator.find((g) => g.name === volume?.secret?.secretName);
  const file = generator?.files[basename(path)];
  if (file === undefined) throw new Error(`${path} is not a file of a generated Secret`);
  return join(folder, file);
}

export function find(objects: readonly KubeObject[], kind: string, name: string): KubeObject {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (found === undefined) throw new Error(`no ${kind} ${name}`);
  return found;
}

const MODELS: Record<string, { new (data: never): { validate(): void } }> = {
  "v1/Namespace": Namespace,
  "v1/ConfigMap": ConfigMap,
  "v1/Secret": Secret,
  "v1/Service": Service,
  "apps/v1/Deployment": Deployment,
  "apps/v1/StatefulSet": StatefulSet,
  "policy/v1/PodDisruptionBudget": PodDisruptionBudget,
  "autoscaling/v2/HorizontalPodAutoscaler": HorizontalPodAutoscaler,
  "networking.k8s.io/v1/Ingress": Ingress,
  "networking.k8s.io/v1/NetworkPolicy": NetworkPolicy,
  // The Prometheus operator's CRD, from the schema that operator publishes (its CRD's
  // openAPIV3Schema, as @kubernetes-models/prometheus-operator generates its models from it).
  "monitoring.coreos.com/v1/ServiceMonitor": ServiceMonitor,
};

/** kubernetes-models' verdict on each object: [] when it is valid, else one line per object. */
export function schemaErrors(objects: readonly KubeObject[]): string[] {
  return objects.flatMap((object) => {
    const Model = MODELS[`${object.apiVersion}/${object.kind}`];
    if (Model === undefined) return [`${object.apiVersion} ${object.kind}: no schema known to this test`];
    try {
      new Model(object as never).validate();
      return [];
    } catch (error) {
      return [`${object.kind} ${object.metadata.name}: ${error instanceof Error ? error.message : String(error)}`];
    }
  });
}

/** The types of custom resources, which kubernetes-types does not have: module and interface. */
const CUSTOM_TYPES: Readonly<Record<string, string>> = {
  "monitoring.coreos.com/v1/ServiceMonitor": '"@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1").IServiceMonitor',
};

/** The TypeScript type of an object: kubernetes-types' (v1 is the core group), or a custom resource's. */
function typeOf(object: KubeObject): string {
  const custom = CUSTOM_TYPES[`${object.apiVersion}/${object.kind}`];
  if (custom !== undefined) return `import(${custom}`;
  const module = `kubernetes-types/${object.apiVersion.includes("/") ? object.apiVersion.replace(/\.k8s\.io\//, "/") : `core/${object.apiVersion}`}`;
  return `import(${JSON.stringify(module)}).${object.kind}`;
}

/**
 * TypeScript's errors for each object written as a literal of its kubernetes-types type: a
 * field the type does not have, or a value of the wrong type. [] when there are none.
 */
export function typeErrors(objects: readonly KubeObject[]): string[] {
  const root = resolve(".");
  const file = join(root, "test", "helpers", "__kubernetes_objects__.ts");
  const source = objects
    .map((object, index) => `export const o${String(index)}: ${typeOf(object)} = ${JSON.stringify(object, null, 1)};`)
    .join("\n");
  const options: ts.CompilerOptions = { strict: true, noEmit: true, skipLibCheck: true, types: [], lib: ["lib.es2022.d.ts"], module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, target: ts.ScriptTarget.ES2022 };
  const base = ts.createCompilerHost(options);
  const host: ts.CompilerHost = {
    ...base,
    getSourceFile: (name, version, ...rest) => (name === file ? ts.createSourceFile(name, source, version) : base.getSourceFile(name, version, ...rest)),
    fileExists: (name) => name === file || base.fileExists(name),
    readFile: (name) => (name === file ? source : base.readFile(name)),
  };
  const program = ts.createProgram([file], options, host);
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const where = diagnostic.file !== undefined && diagnostic.start !== undefined ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line : -1;
    const object = objects[Number(/^export const o(\d+)/.exec(source.split("\n").slice(0, where + 1).reverse().find((line) => line.startsWith("export const o")) ?? "")?.[1] ?? -1)];
    return `${object === undefined ? "?" : `${object.kind} ${object.metadata.name}`}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, " ")}`;
  });
}
