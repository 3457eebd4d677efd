// The deploying guide (docs/operations/deploying.md) is executable where it can be: the block marked as run by
// this test is run by bash, line for line, with three declared substitutions (a folder of the
// test's own for /tmp, a Manager it starts for manager.example.com:6790, port 0) and npm's
// install scripts off, so that `npm pack` does not rebuild dist/ under the other tests. The
// commands that need a container engine or a cluster are checked for naming what exists.
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IN_MEMORY, startManager } from "norsk-reference-manager";
import type { RunningManager } from "norsk-reference-manager";
import { readDockerfile } from "../helpers/dockerfile.js";

const SECTION = readFileSync("docs/operations/deploying.md", "utf8");
const VERSION = (JSON.parse(readFileSync("package.json", "utf8")) as { version: string }).version;

/** The ```sh blocks of the guide; `marked` ones follow <!-- run by test/deploy/readme.test.ts -->. */
function blocks(): { marked: boolean; lines: string[] }[] {
  return [...SECTION.matchAll(/(<!-- run by test\/deploy\/readme\.test\.ts -->\n)?```sh\n([\s\S]*?)```/g)].map((m) => ({
    marked: m[1] !== undefined,
    lines: (m[2] ?? "").trimEnd().split("\n"),
  }));
}

let folder: string;
let manager: RunningManager;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), "readme-deploy-"));
  manager = await startManager({ port: 0, dataDir: IN_MEMORY });
});

afterAll(async () => {
  await manager.close();
  await rm(folder, { recursive: true, force: true });
});

describe("docs/operations/deploying.md", () => {
  it("has one block run by this test, which packs, installs and starts the gateway from its one tarball of this version", () => {
    const run = blocks().filter((b) => b.marked);
    expect(run.length).toBe(1);
    const [pack, , install, start] = run[0]?.lines ?? [];
    expect(pack).toMatch(/^npm pack /);
    expect(install).toBe(`npm install --omit=dev /tmp/norsk-manager-gateway-${VERSION}.tgz`);
    expect(start).toMatch(/^\.\/node_modules\/\.bin\/norsk-manager-gateway --manager manager\.example\.com:6790$/);
  });

  it("its commands, run by bash, serve a gateway that is ready in front of the Manager", async () => {
    const lines = blocks().find((b) => b.marked)?.lines ?? [];
    const script = ["set -e", ...lines]
      .join("\n")
      .replaceAll("/tmp", folder)
      .replace("manager.example.com:6790", `${manager.address} --port 0`);
    const env = { ...process.env, npm_config_ignore_scripts: "true", npm_config_prefer_offline: "true", npm_config_audit: "false", npm_config_fund: "false" };
    // Its own process group, so that the gateway (bash's child) is stopped with it.
    const shell = spawn("bash", ["-c", script], { env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    const exited = new Promise((resolve) => shell.once("exit", resolve));
    const output: string[] = [];
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const onLine = (line: string): void => {
          output.push(line);
          const match = /listening on (http:\/\/[^\s]+)/.exec(line);
          if (match?.[1] !== undefined) resolve(match[1]);
        };
        createInterface({ input: shell.stdout }).on("line", onLine);
        createInterface({ input: shell.stderr }).on("line", onLine);
        shell.once("exit", (code) => { reject(new Error(`exited with ${String(code)}:\n${output.join("\n")}`)); });
      });
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
      for (const absent of ["norsk-reference-manager", "better-sqlite3"]) expect(existsSync(join(folder, "norsk-gateway", "node_modules", absent)), absent).toBe(false);
    } finally {
      if (shell.exitCode === null && shell.pid !== undefined) process.kill(-shell.pid, "SIGTERM");
      await exited;
    }
  }, 90_000);

  it("names the Dockerfile's targets and the deploy files as they are", () => {
    const commands = blocks().filter((b) => !b.marked).flatMap((b) => b.lines).join("\n");
    const targets = readDockerfile().map((s) => s.name);
    for (const [, target] of commands.matchAll(/--target (\S+)/g)) expect(targets).toContain(target);
    expect(commands).toContain("--target gateway");
    expect(commands).toContain("--target reference-manager");
    // A path in the repository, but for the file deploy/make-api-key.sh writes (git-ignored), mounted as `file:target:ro`.
    for (const [, path = ""] of commands.matchAll(/(deploy\/[^\s:"]+)/g)) expect(existsSync(path) || path === "deploy/api-keys.json", path).toBe(true);
    // The key is made before the gateway that needs it is started.
    const order = (text: string): number => commands.indexOf(text);
    expect(order("deploy/make-api-key.sh\ndocker compose")).toBeGreaterThan(-1);
    expect(order("deploy/make-api-key.sh deploy/kubernetes/api-keys\nkubectl apply -k")).toBeGreaterThan(-1);
    expect(existsSync("deploy/kubernetes/kustomization.yaml")).toBe(true);
    expect(commands).toContain("kubectl apply -k deploy/kubernetes");
  });
});
