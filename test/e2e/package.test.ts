// The packed artifact, as an operator installs it: `npm pack` gives one tarball of the gateway,
// its dist/ and the contract it imports bundled in, which installs alone into an empty folder
// with `npm install --omit=dev` (no compiler, no reference Manager, no SQLite, no
// OpenTelemetry) and runs as `norsk-manager-gateway` in front of a Manager. Packages come from
// npm's cache, filled by the `npm ci` that installed this checkout.
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
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
import { copiesOf, filesEndingWith, installPacked, pack, withoutCompiler } from "../helpers/packed.js";
import type { Packed } from "../helpers/packed.js";
import { TRACING_PACKAGES } from "../../src/gateway.js";

const run = promisify(execFile);

let folder: string;
let manager: RunningManager;
let bin: string;
let packed: Packed;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "gateway-pack-"));
  packed = await pack(folder);
  await installPacked(folder, [packed.tarball], ["--omit=dev"], { env: await withoutCompiler(join(folder, "bin")) });
  bin = join(folder, "node_modules", "norsk-manager-gateway", "dist", "src", "main.js");
  manager = await startManager({ port: 0, dataDir: IN_MEMORY });
}, 180_000);

afterAll(async () => {
  await manager.close();
  await rm(folder, { recursive: true, force: true });
});

describe("the packed gateway", () => {
  it("holds the build and the README, and neither sources nor tests", () => {
    const own = packed.files.filter((path) => !path.startsWith("node_modules/"));
    expect(own).toContain("dist/src/main.js");
    expect(own.filter((path) => path.includes("manager/") || path.includes("/gen/"))).toEqual([]);
    expect(own).toContain("README.md");
    expect(own.filter((path) => /^(src|test|bench|scripts)\//.test(path) || path.endsWith(".ts"))).toEqual([]);
  });

  it("bundles the contract's build and proto, and none of the contract's dependencies, which the gateway's own are", () => {
    expect(packed.bundled).toEqual(["norsk-manager-contract"]);
    const bundled = packed.files.filter((path) => path.startsWith("node_modules/"));
    expect(bundled).toContain("node_modules/norsk-manager-contract/dist/grpc/index.js");
    expect(bundled).toContain("node_modules/norsk-manager-contract/proto/norsk/api/manager.proto");
    expect(bundled.filter((path) => !/^node_modules\/norsk-manager-contract\/(package\.json$|dist\/|proto\/)/.test(path))).toEqual([]);
    // The contract's dependencies are peers, installed once as the gateway's: one copy of
    // @bufbuild/protobuf for the gateway and the contract's generated code alike.
    const contract = JSON.parse(readFileSync("packages/contract/package.json", "utf8")) as { dependencies?: object; peerDependencies: Record<string, string> };
    const gateway = JSON.parse(readFileSync("package.json", "utf8")) as { dependencies: Record<string, string> };
    expect(contract.dependencies).toBeUndefined();
    for (const [name, range] of Object.entries(contract.peerDependencies)) expect(gateway.dependencies[name], name).toBe(range);
  });

  it("installs alone, without a compiler: no dev dependencies, reference Manager, SQLite, OpenTelemetry or native module, and links its command", async () => {
    // prom-client's peer @opentelemetry/api is the one OpenTelemetry package a gateway installs.
    for (const absent of ["typescript", "norsk-reference-manager", "better-sqlite3", "re2js", "@opentelemetry/sdk-trace-base", "@opentelemetry/exporter-trace-otlp-http"]) {
      expect(existsSync(join(folder, "node_modules", absent)), absent).toBe(false);
    }
    expect(await filesEndingWith(join(folder, "node_modules"), ".node")).toEqual([]);
    expect(await copiesOf(folder, "norsk-manager-contract")).toEqual(["norsk-manager-gateway/node_modules/norsk-manager-contract"]);
    expect(await copiesOf(folder, "@bufbuild/protobuf")).toEqual(["@bufbuild/protobuf"]);
    expect(existsSync(join(folder, "node_modules", ".bin", "norsk-manager-gateway"))).toBe(true);
    const manifest = JSON.parse(await readFile(join(folder, "node_modules", "norsk-manager-gateway", "package.json"), "utf8")) as { bin: Record<string, string> };
    expect(manifest.bin["norsk-manager-gateway"]).toBe("dist/src/main.js");
  });

  it("serves jobs in front of a Manager, started as its linked command", async () => {
    const gateway = await startCommand(["--manager", manager.address], { entry: join(folder, "node_modules", ".bin", "norsk-manager-gateway") });
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
