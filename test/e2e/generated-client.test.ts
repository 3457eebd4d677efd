// The document is usable by the ecosystem's code generators: openapi-typescript turns
// openapi.yaml into types, a small program uses them with openapi-fetch to create, read, patch
// and delete a job, tsc checks it as strictly as this project's own code, and it runs against
// the started command. Work files go to test-results/generated-client/ (inside the repository,
// so that the program finds openapi-fetch and the project's tsconfig).
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import openapiTS, { astToString } from "openapi-typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCommand } from "../helpers/command.js";
import type { StartedCommand } from "../helpers/command.js";

const run = promisify(execFile);

// What a client author would write. The annotations are the point: if the generated types
// say something else (a number for an int64, an optional field the gateway always sends, a
// wrong error type), tsc fails.
const PROGRAM = `
import createClient from "openapi-fetch";
import type { components, paths } from "./api.js";

type Job = components["schemas"]["Job"];
type Problem = components["schemas"]["Problem"];

const baseUrl = process.env.GATEWAY_URL;
if (baseUrl === undefined) throw new Error("GATEWAY_URL is not set");
const client = createClient<paths>({ baseUrl });
const path = { jobId: "client-1" };

const created = await client.POST("/v1/jobs", {
  body: { jobId: "client-1", startDateTime: "2026-12-24T18:00:00.123456789Z", tags: { env: "test" }, launchConfigJson: "" },
});
if (created.data === undefined) throw new Error(\`create: \${String(created.response.status)}\`);
const job: Job = created.data;
const hash: string = job.currentHash;
const tags: Record<string, string> = job.tags;
const etag = created.response.headers.get("etag") ?? "";

const read = await client.GET("/v1/jobs/{jobId}", { params: { path } });
if (read.data === undefined) throw new Error(\`read: \${String(read.response.status)}\`);

const patched = await client.PATCH("/v1/jobs/{jobId}", {
  params: { path, header: { "If-Match": etag } },
  body: { description: "patched by a generated client", tags: { owner: "client" } },
});
if (patched.data === undefined) throw new Error(\`patch: \${String(patched.response.status)}\`);

const deleted = await client.DELETE("/v1/jobs/{jobId}", { params: { path, header: { "If-Match": patched.response.headers.get("etag") ?? "" } } });
if (deleted.error !== undefined) throw new Error(\`delete: \${deleted.error.detail}\`);

const gone = await client.GET("/v1/jobs/{jobId}", { params: { path } });
const problem: Problem | undefined = gone.error;

console.log(JSON.stringify({
  created: { status: created.response.status, hash, tags, etag, job },
  read: { status: read.response.status, job: read.data },
  patched: { status: patched.response.status, job: patched.data },
  deleted: { status: deleted.response.status },
  gone: { status: gone.response.status, problem },
}));
`;

interface Outcome {
  created: { status: number; hash: string; tags: Record<string, string>; etag: string; job: Record<string, unknown> };
  read: { status: number; job: Record<string, unknown> };
  patched: { status: number; job: Record<string, unknown> };
  deleted: { status: number };
  gone: { status: number; problem?: { status: number; code?: string; requestId: string } };
}

describe("a client generated from openapi.yaml", () => {
  let gateway: StartedCommand;
  let dir: string;

  beforeAll(async () => {
    await mkdir("test-results/generated-client", { recursive: true });
    dir = await mkdtemp("test-results/generated-client/run-");
    const types = astToString(await openapiTS(new URL("../../openapi.yaml", import.meta.url)));
    await writeFile(join(dir, "api.d.ts"), types);
    await writeFile(join(dir, "program.ts"), PROGRAM);
    // The project's compiler options (strict, noUncheckedIndexedAccess, ...), for these two files.
    const tsconfig = { extends: relative(dir, "tsconfig.json"), include: ["program.ts", "api.d.ts"] };
    await writeFile(join(dir, "tsconfig.json"), JSON.stringify(tsconfig, null, 2));
    gateway = await startCommand();
  }, 60_000);

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
    expect(await gateway.stop()).toBe(0);
  });

  it("type-checks with the project's strictness", async () => {
    const tsc = run(process.execPath, ["node_modules/typescript/bin/tsc", "-p", join(dir, "tsconfig.json")]);
    await expect(tsc.catch((error: unknown) => Promise.reject(new Error(String((error as { stdout?: unknown }).stdout ?? error))))).resolves.toBeDefined();
  }, 60_000);

  it("creates, reads, patches and deletes a job", async () => {
    const { stdout } = await run(process.execPath, ["--import", "tsx", join(dir, "program.ts")], { env: { ...process.env, GATEWAY_URL: gateway.url } });
    const outcome = JSON.parse(stdout) as Outcome;
    expect(outcome.created).toMatchObject({ status: 201, tags: { env: "test" }, etag: `"${outcome.created.hash}"` });
    expect(outcome.created.job).toMatchObject({ jobId: "client-1", startDateTime: "2026-12-24T18:00:00.123456789Z", launchConfigJson: "" });
    expect(outcome.read).toEqual({ status: 200, job: outcome.created.job });
    expect(outcome.patched.status).toBe(200);
    expect(outcome.patched.job).toMatchObject({ description: "patched by a generated client", tags: { env: "test", owner: "client" }, launchConfigJson: "" });
    expect(outcome.patched.job.currentHash).not.toBe(outcome.created.hash);
    expect(outcome.deleted.status).toBe(204);
    expect(outcome.gone).toMatchObject({ status: 404, problem: { status: 404, code: "NOT_FOUND" } });
  }, 60_000);
});
