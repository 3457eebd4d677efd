// deploy/make-api-key.sh, the one command before `compose up` or `kubectl apply -k`: run in a
// folder of the test's own (a copy of the script, so that its default folder is not deploy/),
// its file is read by the gateway's own ApiKeys, and the built command, started as compose
// starts the image (HOST=0.0.0.0 from the Dockerfile, compose's environment, the secret's path
// replaced by the written file), lets in the printed key and nobody else.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { copyFile, mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ApiKeys } from "../../src/auth/api-keys.js";
import { SCOPES } from "../../src/auth/scopes.js";
import { startCommand } from "../helpers/command.js";
import type { StartedCommand } from "../helpers/command.js";
import { imageConfig, readDockerfile } from "../helpers/dockerfile.js";

const run = promisify(execFile);
const SCRIPT = "deploy/make-api-key.sh";

interface Compose {
  services: { gateway: { environment: Record<string, string>; secrets: { source: string; target: string }[] } };
  secrets: Record<string, { file: string }>;
}
const COMPOSE = parse(readFileSync("deploy/compose.yaml", "utf8")) as Compose;

let folder: string;
/** The copy of the script, in `folder`. */
let script: string;
/** What the script printed on standard output, and on standard error, run without arguments. */
let printed: { stdout: string; stderr: string };
let key: string;
let gateway: StartedCommand;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "make-api-key-"));
  script = join(folder, "make-api-key.sh");
  await copyFile(SCRIPT, script);
  printed = await run(script, [], { cwd: tmpdir() });
  key = printed.stdout.trim();
  const compose = { ...COMPOSE.services.gateway.environment };
  // The embedded Manager stands in for compose's reference-manager service.
  delete compose.MANAGER_ADDRESS;
  const env = { ...compose, HOST: imageConfig(readDockerfile(), "gateway").env.HOST, API_KEYS_FILE: join(folder, "api-keys.json") };
  gateway = await startCommand([], { env });
}, 30_000);

afterAll(async () => {
  await gateway.stop();
  await rm(folder, { recursive: true, force: true });
});

/** GET `path` of the gateway with `headers`, as Host localhost (which compose's ALLOWED_HOSTS lists). */
async function status(path: string, headers: Record<string, string> = {}): Promise<number> {
  const url = gateway.url.replace("127.0.0.1", "localhost");
  return (await fetch(`${url}${path}`, { headers })).status;
}

describe("deploy/make-api-key.sh", () => {
  it("prints one random key of 256 bits on standard output, and on standard error what it wrote", async () => {
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(printed.stdout).toBe(`${key}\n`);
    expect(printed.stderr).toContain(join(folder, "api-keys.json"));
    expect(printed.stderr).not.toContain(key);
    const again = join(await mkdtemp(join(tmpdir(), "make-api-key-again-")), "x");
    await run("mkdir", [again]);
    expect((await run(SCRIPT, [again])).stdout.trim()).not.toBe(key);
    await rm(join(again, ".."), { recursive: true, force: true });
  });

  it("writes, beside itself by default, the key's SHA-256 (never the key) with every scope, as the gateway reads it", async () => {
    const text = await readFile(join(folder, "api-keys.json"), "utf8");
    expect(text).not.toContain(key);
    expect(JSON.parse(text)).toEqual([{ name: "admin", sha256: createHash("sha256").update(key).digest("hex"), scopes: Object.keys(SCOPES) }]);
    const keys = new ApiKeys(join(folder, "api-keys.json"));
    expect(keys.find(key)).toMatchObject({ name: "admin", scopes: new Set(Object.keys(SCOPES)) });
    // Readable by the container's user, whoever owns it on this machine: compose bind-mounts it as it is.
    expect((await stat(join(folder, "api-keys.json"))).mode & 0o004).toBe(0o004);
  });

  it("names the key and narrows its scopes as KEY_NAME and KEY_SCOPES say", async () => {
    const other = await mkdtemp(join(tmpdir(), "make-api-key-named-"));
    try {
      const { stdout } = await run(SCRIPT, [other], { env: { ...process.env, KEY_NAME: "ci", KEY_SCOPES: "jobs:read events:read" } });
      expect(new ApiKeys(join(other, "api-keys.json")).find(stdout.trim())).toMatchObject({ name: "ci", scopes: new Set(["jobs:read", "events:read"]) });
      await rm(join(other, "api-keys.json"));
      // A name that would break the JSON it is written into.
      await expect(run(SCRIPT, [other], { env: { ...process.env, KEY_NAME: 'a", "sha256": "0' } })).rejects.toMatchObject({ code: 2 });
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });

  it("never replaces an existing file, whose keys would stop working", async () => {
    const before = await readFile(join(folder, "api-keys.json"), "utf8");
    await expect(run(script, [])).rejects.toMatchObject({ code: 1, stdout: "", stderr: expect.stringContaining("exists") as unknown });
    expect(await readFile(join(folder, "api-keys.json"), "utf8")).toBe(before);
  });

  it("writes the file compose's secret reads: deploy/api-keys.json, which git ignores, at the gateway's API_KEYS_FILE", async () => {
    const [secret] = COMPOSE.services.gateway.secrets;
    expect(COMPOSE.services.gateway.secrets).toHaveLength(1);
    // Relative to deploy/compose.yaml: the script's own folder, where it writes by default.
    expect(COMPOSE.secrets[secret?.source ?? ""]?.file).toBe("./api-keys.json");
    expect(COMPOSE.services.gateway.environment.API_KEYS_FILE).toBe(`/run/secrets/${secret?.target ?? ""}`);
    expect(COMPOSE.services.gateway.environment.AUTH).toBeUndefined();
    expect((await run("git", ["check-ignore", "deploy/api-keys.json"])).stdout.trim()).toBe("deploy/api-keys.json");
  });
});

describe("the gateway as compose runs it, with the file deploy/make-api-key.sh wrote", () => {
  it("starts on all interfaces, as the image's HOST says, without AUTH=none: the keys are its authentication", () => {
    expect(imageConfig(readDockerfile(), "gateway").env.HOST).toBe("0.0.0.0");
    expect(COMPOSE.services.gateway.environment.AUTH).toBeUndefined();
    expect(gateway.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it("answers the printed key 200, and no key, or the key one character off, 401", async () => {
    expect(await status("/v1/jobs", { "x-api-key": key })).toBe(200);
    expect(await status("/v1/jobs")).toBe(401);
    expect(await status("/v1/jobs", { "x-api-key": `${key.slice(0, -1)}${key.endsWith("0") ? "1" : "0"}` })).toBe(401);
    expect(await status("/healthz")).toBe(200);
  });
});
