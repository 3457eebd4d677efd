// The Dockerfile, checked outside a container (no container engine runs in CI): its stages are
// read from the file, and the steps of the gateway target are run as it says — the one tarball
// `npm pack` makes, installed with the RUN line's own `npm install` flags and without a
// compiler (as on the slim image it is installed on), started with the image's ENTRYPOINT, CMD
// and ENV, answered on /healthz and /readyz, and judged healthy by the image's own HEALTHCHECK
// command. The reference-manager target installs better-sqlite3, whose source build takes a
// minute or more here (test/e2e/package-reference-manager.test.ts installs its tarball so): its
// command and HEALTHCHECK run on this checkout's build of the reference Manager's package.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { get as httpGet } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SETTINGS } from "../../src/config.js";
import { IN_MEMORY, startManager } from "norsk-reference-manager";
import type { RunningManager } from "norsk-reference-manager";
import { startProcess } from "../helpers/command.js";
import { durationMs, imageConfig, readDockerfile, stage } from "../helpers/dockerfile.js";
import type { ImageConfig, Stage } from "../helpers/dockerfile.js";
import { installPacked, pack, withoutCompiler } from "../helpers/packed.js";
import type { PackageName } from "../helpers/packed.js";

const STAGES = readDockerfile();
const GATEWAY = imageConfig(STAGES, "gateway");
const REFERENCE_MANAGER = imageConfig(STAGES, "reference-manager");
const TARGETS = { gateway: GATEWAY, "reference-manager": REFERENCE_MANAGER };

/** The `npm install` of a stage's RUN line: its flags, and the tarballs it installs. */
function npmInstall(from: Stage): { flags: string[]; tarballs: string[] } {
  const run = from.instructions.find((i) => i.keyword === "RUN" && i.args.includes("npm install"));
  const words = (run?.args ?? "").split(/\s+/);
  const rest = words.slice(words.indexOf("install") + 1);
  const end = rest.findIndex((word) => !word.startsWith("--"));
  const tarballs = rest.slice(end, rest.findIndex((word, at) => at >= end && !word.endsWith(".tgz")));
  return { flags: rest.slice(0, end), tarballs };
}

/** "/tmp/norsk-manager-gateway.tgz" → the package it is the tarball of. */
function packageOf(tarball: string): PackageName {
  const name = /([^/]+)\.tgz$/.exec(tarball)?.[1];
  if (name !== "norsk-manager-gateway" && name !== "norsk-reference-manager") throw new Error(`${tarball} is not a tarball this checkout packs`);
  return name;
}

/** The last stage is what `docker build` builds without --target. */
const DEFAULT_TARGET = STAGES.at(-1)?.name;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const address = server.address();
  await new Promise<void>((done) => server.close(() => { done(); }));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

/** The environment an image's process sees: the image's ENV, and what `docker run -e` adds. */
function imageEnv(config: ImageConfig, extra: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: tmpdir(), ...config.env, ...extra };
}

/** Runs a HEALTHCHECK's exec form here (`node` being this Node), within its --timeout; resolves with the exit code. */
async function runHealthcheck(config: ImageConfig, env: NodeJS.ProcessEnv, cwd: string, replace: (arg: string) => string = (a) => a): Promise<number> {
  const [program, ...args] = config.healthcheck?.command ?? [];
  expect(program).toBe("node");
  const timeout = durationMs(config.healthcheck?.options.timeout ?? "30s");
  return new Promise((done) => {
    execFile(process.execPath, args.map(replace), { env, cwd, timeout }, (error) => {
      done(error === null ? 0 : typeof error.code === "number" ? error.code : -1);
    });
  });
}

let folder: string;
let manager: RunningManager;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "gateway-image-"));
  const { flags, tarballs } = npmInstall(stage(STAGES, "install-gateway"));
  const packed = await Promise.all(tarballs.map(async (tarball) => (await pack(folder, packageOf(tarball))).tarball));
  await installPacked(folder, packed, flags, { env: await withoutCompiler(join(folder, "bin")) });
  manager = await startManager({ port: 0, dataDir: IN_MEMORY });
}, 120_000);

afterAll(async () => {
  await manager.close();
  await rm(folder, { recursive: true, force: true });
});

describe("the Dockerfile's images", () => {
  it("are built on the slim Node 24 image, run as the unprivileged user node, and the gateway is the default target", () => {
    expect(DEFAULT_TARGET).toBe("gateway");
    for (const config of Object.values(TARGETS)) {
      expect(config.base).toBe("node:24-bookworm-slim");
      expect(config.user).toBe("node");
      expect(config.healthcheck?.command.length).toBeGreaterThan(0);
      expect(config.entrypoint[0]).toBe("node");
    }
  });

  it("build from the one tarball npm pack makes of each program, installed alone with --omit=dev, the gateway's on the slim image (no compiler)", () => {
    const build = stage(STAGES, "build").instructions.filter((i) => i.keyword === "RUN").map((i) => i.args).join(" && ");
    expect(build).toMatch(/npm ci\b/);
    expect(build).toMatch(/npm run build && .*npm pack /);
    const gateway = npmInstall(stage(STAGES, "install-gateway"));
    const referenceManager = npmInstall(stage(STAGES, "install-reference-manager"));
    for (const install of [gateway, referenceManager]) expect(install.flags).toContain("--omit=dev");
    expect(gateway.tarballs.map(packageOf)).toEqual(["norsk-manager-gateway"]);
    expect(referenceManager.tarballs.map(packageOf)).toEqual(["norsk-reference-manager"]);
    expect(stage(STAGES, "install-gateway").from).toBe("node:24-bookworm-slim");
    // better-sqlite3 may need python3, make and g++, which only the full image has.
    expect(stage(STAGES, "install-reference-manager").from).toBe("node:24-bookworm");
  });

  it("copy into the runtime images only the installed /app of an install stage", () => {
    for (const [target, install] of [["gateway", "install-gateway"], ["reference-manager", "install-reference-manager"]] as const) {
      const copies = ["runtime", target].flatMap((name) => stage(STAGES, name).instructions).filter((i) => i.keyword === "COPY");
      expect(copies.map((c) => c.args)).toEqual([`--from=${install} /app /app`]);
    }
  });

  it("send no more than the build's sources as the build context", () => {
    const ignore = readFileSync(".dockerignore", "utf8").split("\n").filter((line) => line !== "" && !line.startsWith("#"));
    expect(ignore[0]).toBe("*");
    const included = ignore.slice(1).map((line) => line.replace(/^!/, ""));
    const copied = stage(STAGES, "build").instructions.filter((i) => i.keyword === "COPY").flatMap((i) => i.args.split(/\s+/).slice(0, -1));
    expect(new Set(included)).toEqual(new Set(copied));
    for (const kept of ["node_modules", "dist", "data", ".git", "test"]) expect(included).not.toContain(kept);
  });

  it("set only gateway settings in the gateway's ENV, listen on all interfaces, and EXPOSE the PORT", () => {
    const known = new Set(SETTINGS.map((s) => s.env));
    for (const name of Object.keys(GATEWAY.env)) if (name !== "NODE_ENV") expect(known, name).toContain(name);
    expect(GATEWAY.env.HOST).toBe("0.0.0.0");
    expect(GATEWAY.expose).toEqual([GATEWAY.env.PORT]);
  });

  it("run one gateway process per CPU the container may use (WORKERS=auto)", () => {
    expect(GATEWAY.env.WORKERS).toBe("auto");
  });
});

/** GET `url` with `host` as its Host header (which fetch cannot set); resolves with the status. */
async function statusOf(url: string, host: string): Promise<number> {
  return new Promise((done, fail) => {
    httpGet(url, { headers: { host } }, (response) => {
      response.resume();
      done(response.statusCode ?? 0);
    }).on("error", fail);
  });
}

describe("the gateway target, run as the image runs it", () => {
  it("serves /healthz and /readyz in front of a Manager, its HEALTHCHECK passes, and SIGTERM ends it with 0", async () => {
    const port = await freePort();
    // As `docker run -e`: the Manager, a port of this machine, and the narrowest list of names
    // the HEALTHCHECK works with (the Kubernetes ConfigMap's holds localhost too).
    const env = imageEnv(GATEWAY, { PORT: String(port), MANAGER_ADDRESS: manager.address, ALLOWED_HOSTS: "localhost", AUTH: "none" });
    const app = resolve(folder);
    const argv = [...GATEWAY.entrypoint, ...GATEWAY.cmd].map((arg, index) => (index === 0 ? process.execPath : arg.replace(/^\/app\//, `${app}/`)));
    expect(GATEWAY.workdir).toBe("/app");
    const gateway = await startProcess(argv, { env, cwd: app });
    try {
      expect(gateway.url).toBe(`http://127.0.0.1:${String(port)}`);
      expect(await statusOf(`${gateway.url}/healthz`, "localhost")).toBe(200);
      expect(await statusOf(`${gateway.url}/readyz`, "localhost")).toBe(200);
      expect(await statusOf(`${gateway.url}/healthz`, "127.0.0.1")).toBe(421);
      expect(await runHealthcheck(GATEWAY, env, app)).toBe(0);
    } finally {
      expect(await gateway.stop()).toBe(0);
    }
    // Nothing serves: the same check now fails.
    expect(await runHealthcheck(GATEWAY, env, app)).toBe(1);
  }, 60_000);

  it("its HEALTHCHECK speaks HTTPS when TLS_CERT is set, and fails on any answer but 200", async () => {
    const tls = await mkdtemp(join(tmpdir(), "healthcheck-tls-"));
    await promisify(execFile)("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1", "-subj", "/CN=gateway.example", "-keyout", join(tls, "key.pem"), "-out", join(tls, "cert.pem")]);
    let status = 200;
    const server = createHttpsServer({ cert: readFileSync(join(tls, "cert.pem")), key: readFileSync(join(tls, "key.pem")) }, (request, response) => {
      response.writeHead(request.url === "/healthz" && request.headers.host === "localhost" ? status : 404).end();
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    const { port } = server.address() as AddressInfo;
    try {
      const env = imageEnv(GATEWAY, { PORT: String(port), TLS_CERT: join(tls, "cert.pem") });
      expect(await runHealthcheck(GATEWAY, env, tls)).toBe(0);
      status = 503;
      expect(await runHealthcheck(GATEWAY, env, tls)).toBe(1);
    } finally {
      await new Promise((done) => server.close(done));
      await rm(tls, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("the reference-manager target's command", () => {
  it("listens where it EXPOSEs, keeps its data on the VOLUME, and its HEALTHCHECK asks the port it listens on", () => {
    const cmd = REFERENCE_MANAGER.cmd;
    const flag = (name: string): string | undefined => cmd[cmd.indexOf(name) + 1];
    expect(flag("--host")).toBe("0.0.0.0");
    expect(REFERENCE_MANAGER.expose).toEqual([flag("--port")]);
    expect(REFERENCE_MANAGER.volumes).toEqual([flag("--data-dir")]);
    expect(REFERENCE_MANAGER.healthcheck?.command.join(" ")).toContain(`'127.0.0.1:${flag("--port") ?? ""}'`);
  });

  it("serves gRPC health, its HEALTHCHECK passes, and SIGTERM ends it with 0 (on this checkout's build)", async () => {
    const port = String(await freePort());
    const data = await mkdtemp(join(tmpdir(), "manager-image-"));
    const checkout = resolve(".");
    const replace = (arg: string): string => arg.replace(/^\/app\/node_modules\/norsk-reference-manager\//, `${checkout}/packages/reference-manager/`).replace(/^\/data$/, data).replace(/^6790$/, port).replace("127.0.0.1:6790", `127.0.0.1:${port}`);
    const env = imageEnv(REFERENCE_MANAGER, {});
    const argv = [...REFERENCE_MANAGER.entrypoint, ...REFERENCE_MANAGER.cmd].map((arg, index) => (index === 0 ? process.execPath : replace(arg)));
    const referenceManager = await startProcess(argv, { env, cwd: checkout, listening: /listening on (\S+)/ });
    try {
      expect(referenceManager.url).toBe(`0.0.0.0:${port}`);
      expect(await runHealthcheck(REFERENCE_MANAGER, env, checkout, replace)).toBe(0);
    } finally {
      expect(await referenceManager.stop()).toBe(0);
      await rm(data, { recursive: true, force: true });
    }
    expect(await runHealthcheck(REFERENCE_MANAGER, env, checkout, replace)).toBe(1);
  }, 60_000);
});
