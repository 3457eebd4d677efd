// The packed artifact, as an operator installs it: `npm pack` gives a tarball of the gateway with
// dist/, which installs beside the contract's tarball into an empty folder with `npm install
// --omit=dev` (no compiler, no reference Manager, no SQLite, no OpenTelemetry) and runs as
// `norsk-manager-gateway` in front of a Manager. Packages come from npm's cache, filled by the
// `npm ci` that installed this checkout.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IN_MEMORY, startManager } from "norsk-reference-manager";
import type { RunningManager } from "norsk-reference-manager";
import { makeCertificates } from "../helpers/certificates.js";
import type { Certificates } from "../helpers/certificates.js";
import { startCommand } from "../helpers/command.js";
import { installPacked, pack } from "../helpers/packed.js";
import { TRACING_PACKAGES } from "../../src/gateway.js";

const run = promisify(execFile);

let folder: string;
let manager: RunningManager;
let bin: string;
let packed: readonly string[];

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "gateway-pack-"));
  const gateway = await pack(folder);
  const contract = await pack(folder, "norsk-manager-contract");
  packed = gateway.files;
  await installPacked(folder, [contract.tarball, gateway.tarball], ["--omit=dev"]);
  bin = join(folder, "node_modules", "norsk-manager-gateway", "dist", "src", "main.js");
  manager = await startManager({ port: 0, dataDir: IN_MEMORY });
}, 180_000);

afterAll(async () => {
  await manager.close();
  await rm(folder, { recursive: true, force: true });
});

describe("the packed gateway", () => {
  it("holds the build and the README, and neither sources nor tests", () => {
    expect(packed).toContain("dist/src/main.js");
    expect(packed.filter((path) => path.includes("manager/") || path.includes("/gen/"))).toEqual([]);
    expect(packed).toContain("README.md");
    expect(packed.filter((path) => /^(src|test|bench|scripts)\//.test(path) || path.endsWith(".ts"))).toEqual([]);
  });

  it("installs without dev dependencies, the reference Manager, SQLite or OpenTelemetry, and links its command", async () => {
    // prom-client's peer @opentelemetry/api is the one OpenTelemetry package a gateway installs.
    for (const absent of ["typescript", "norsk-reference-manager", "better-sqlite3", "re2js", "@opentelemetry/sdk-trace-base", "@opentelemetry/exporter-trace-otlp-http"]) {
      expect(existsSync(join(folder, "node_modules", absent)), absent).toBe(false);
    }
    expect(existsSync(join(folder, "node_modules", ".bin", "norsk-manager-gateway"))).toBe(true);
    const manifest = JSON.parse(await readFile(join(folder, "node_modules", "norsk-manager-gateway", "package.json"), "utf8")) as { bin: Record<string, string> };
    expect(manifest.bin["norsk-manager-gateway"]).toBe("dist/src/main.js");
  });

  it("serves jobs in front of a Manager", async () => {
    const gateway = await startCommand(["--manager", manager.address], { entry: bin });
    try {
      expect((await fetch(`${gateway.url}/readyz`)).status).toBe(200);
      const created = await fetch(`${gateway.url}/v1/jobs`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jobId: "packed-1", startDateTime: "2026-12-24T18:00:00.123456789Z" }),
      });
      expect(created.status).toBe(201);
      const read = await fetch(`${gateway.url}/v1/jobs/packed-1`);
      expect(await read.json()).toMatchObject({ jobId: "packed-1", startDateTime: "2026-12-24T18:00:00.123456789Z" });
    } finally {
      expect(await gateway.stop()).toBe(0);
    }
  });

  it("serves over HTTPS in front of a Manager that requires mutual TLS (--manager-ca, --manager-cert, --manager-key)", async () => {
    const certs: Certificates = makeCertificates(["manager.test", "localhost"]);
    const served = { cert: certs.read(certs.server.cert), key: certs.read(certs.server.key) };
    const mtls = await startManager({ port: 0, dataDir: IN_MEMORY, tls: { ...served, clientCa: certs.read(certs.ca.cert) } });
    const args = ["--manager", mtls.address, "--manager-ca", certs.ca.cert, "--manager-cert", certs.client.cert, "--manager-key", certs.client.key, "--manager-server-name", "manager.test"];
    const gateway = await startCommand([...args, "--tls-cert", certs.server.cert, "--tls-key", certs.server.key], { entry: bin });
    try {
      const { stdout } = await run("curl", ["-sS", "--http2", "--cacert", certs.ca.cert, "-w", " %{http_version} %{http_code}", `${gateway.url.replace("127.0.0.1", "localhost")}/readyz`]);
      expect(stdout).toBe('{"status":"ready"} 2 200');
    } finally {
      expect(await gateway.stop()).toBe(0);
      await mtls.close();
      certs.remove();
    }
  });

  it("without the reference Manager's package, refuses to start the embedded Manager with one line saying what to do", async () => {
    const failed = await run(process.execPath, [bin, "--port", "0"], { cwd: folder }).then(
      () => undefined,
      (error: unknown) => error as { code: number; stderr: string },
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr.trim()).toBe(
      "norsk-manager-gateway: the embedded reference Manager is the package norsk-reference-manager, which is not installed: install it beside the gateway, or give a Manager's address with --manager host:port",
    );
  });

  it("without OpenTelemetry, refuses --otlp-endpoint (exit 2) with one line naming the packages to install", async () => {
    const failed = await run(process.execPath, [bin, "--manager", manager.address, "--otlp-endpoint", "http://127.0.0.1:4318"], { cwd: folder }).then(
      () => undefined,
      (error: unknown) => error as { code: number; stderr: string },
    );
    expect(failed?.code).toBe(2);
    expect(failed?.stderr.trim()).toBe(
      `norsk-manager-gateway: --otlp-endpoint needs OpenTelemetry, which is not installed: install it beside the gateway (npm install ${TRACING_PACKAGES.join(" ")})`,
    );
  });

  it("names as optional peers exactly the OpenTelemetry packages it asks for, and the reference Manager", async () => {
    const manifest = JSON.parse(await readFile(join(folder, "node_modules", "norsk-manager-gateway", "package.json"), "utf8")) as {
      peerDependencies: Record<string, string>;
      peerDependenciesMeta: Record<string, { optional?: boolean }>;
    };
    expect(Object.keys(manifest.peerDependencies).sort()).toEqual([...TRACING_PACKAGES, "norsk-reference-manager"].sort());
    for (const name of Object.keys(manifest.peerDependencies)) expect(manifest.peerDependenciesMeta[name]?.optional, name).toBe(true);
  });
});
