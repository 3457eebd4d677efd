// The built command: --help, refusing a bad setting with exit code 2 and one line, its start-up
// line, and a clean shutdown on SIGTERM and SIGINT with the data kept.
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { startCommand } from "../helpers/command.js";

const run = promisify(execFile);

/** What the build says of itself: this package's version, the checkout's commit (the global setup built dist/ here), this Node. */
async function expectedBuild(): Promise<string> {
  const { version } = JSON.parse(await readFile("package.json", "utf8")) as { version: string };
  const { stdout } = await run("git", ["rev-parse", "HEAD"]);
  return `${version} (commit ${stdout.trim().slice(0, 12)}, Node ${process.version})`;
}

async function exitOf(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ["dist/src/main.js", ...args], { env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe("norsk-manager-gateway command", () => {
  it("prints its settings with --help and exits 0", async () => {
    const { code, stdout } = await exitOf(["--help"]);
    expect(code).toBe(0);
    for (const setting of ["--port", "--host", "--manager", "--data-dir", "--request-timeout", "--log-level"]) expect(stdout).toContain(setting);
  });

  it("prints its version, the commit it was built from and the Node version with --version, and exits 0", async () => {
    const { code, stdout, stderr } = await exitOf(["--version"]);
    expect(code).toBe(0);
    expect(stderr).toBe("");
    expect(stdout).toBe(`norsk-manager-gateway ${await expectedBuild()}\n`);
  });

  it.each([
    [["--port", "eighty"], {}, "--port"],
    [["--request-timeout", "-5"], {}, "--request-timeout"],
    [["--log-level", "chatty"], {}, "--log-level"],
    [["--frobnicate"], {}, "frobnicate"],
    [[], { PORT: "99999" }, "PORT"],
    [[], { MANAGER_ADDRESS: "no port here" }, "MANAGER_ADDRESS"],
    // Found when the file is opened, at start-up, before any request could go unaudited.
    [["--audit-log", "/nonexistent-directory/audit.log"], {}, "--audit-log"],
  ])("refuses %j %j with exit code 2 and one line naming %s", async (args, env, name) => {
    const { code, stderr, stdout } = await exitOf(args, env);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    const lines = stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(name);
  });

  it("refuses to serve a non-loopback --host without authentication: exit 2, one line naming --auth-issuer, --api-keys and --auth none", async () => {
    const { code, stderr, stdout } = await exitOf(["--host", "0.0.0.0", "--port", "0"]);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    const lines = stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    for (const named of ["--host 0.0.0.0", "--auth-issuer", "--api-keys", "--auth none"]) expect(lines[0]).toContain(named);
  });

  it("serves a non-loopback --host with --auth none", async () => {
    const gateway = await startCommand(["--host", "0.0.0.0", "--auth", "none"]);
    try {
      const port = new URL(gateway.url).port;
      const response = await fetch(`http://127.0.0.1:${port}/v1/jobs`);
      expect(response.status).toBe(200);
    } finally {
      await gateway.stop();
    }
  });

  it("logs one start-up line with the version, commit and Node version, the URL, the Manager and the docs", async () => {
    const gateway = await startCommand();
    try {
      const line = gateway.lines.find((l) => l.includes("listening on")) ?? "";
      expect(line).toContain(gateway.url);
      expect(line).toContain("Manager: embedded");
      expect(line).toContain(`${gateway.url}/docs`);
      expect(line).toContain(`norsk-manager-gateway ${await expectedBuild()} listening on`);
      expect(gateway.lines.filter((l) => l.includes("listening"))).toHaveLength(1);
    } finally {
      expect(await gateway.stop()).toBe(0);
    }
  });

  it("limits each client with --rate-limit and --rate-limit-key, over real connections", async () => {
    const gateway = await startCommand(["--rate-limit", "2/m", "--rate-limit-key", "authorization"]);
    try {
      const statusOf = async (headers: Record<string, string>): Promise<[number, string | null]> => {
        const response = await fetch(`${gateway.url}/v1/jobs/none`, { headers });
        await response.arrayBuffer();
        return [response.status, response.headers.get("ratelimit-remaining")];
      };
      const alice = { authorization: "Bearer alice" };
      expect(await statusOf(alice)).toEqual([404, "1"]);
      expect(await statusOf(alice)).toEqual([404, "0"]);
      expect(await statusOf(alice)).toEqual([429, "0"]);
      expect(await statusOf({ authorization: "Bearer bob" })).toEqual([404, "1"]);
      expect(await statusOf({})).toEqual([404, "1"]);
      expect((await fetch(`${gateway.url}/healthz`, { headers: alice })).status).toBe(200);
    } finally {
      expect(await gateway.stop()).toBe(0);
    }
  });

  it.each(["SIGTERM", "SIGINT"] as const)("closes cleanly on %s and keeps what it stored", async (signal) => {
    const gateway = await startCommand();
    const created = await fetch(`${gateway.url}/v1/jobs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jobId: "kept", startDateTime: "2026-01-01T00:00:00Z" }),
    });
    expect(created.status).toBe(201);
    const exited = new Promise<number | null>((resolve) => gateway.child.once("exit", (code) => { resolve(code); }));
    gateway.child.kill(signal);
    expect(await exited).toBe(0);
    expect(gateway.lines.some((l) => l.includes("shutting down"))).toBe(true);
    await gateway.stop();
  });
});
