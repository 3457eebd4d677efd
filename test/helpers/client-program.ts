// A client program as its author would write it against openapi.yaml: openapi-typescript's
// types and openapi-fetch. test/e2e/generated-client.test.ts type-checks and runs it; `npm run
// bench:docs` times its type-check. The annotations are the point: if the generated types say
// something else (a number for an int64, an optional field the gateway always sends, a wrong
// error type, a search body that needs a guard, a partial job typed as whole), tsc fails.
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import openapiTS, { astToString } from "openapi-typescript";

export const PROGRAM = `
import createClient from "openapi-fetch";
import type { components, paths } from "./api.js";

type Job = components["schemas"]["Job"];
type PartialJob = components["schemas"]["PartialJob"];
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

const found = await client.GET("/v1/jobs", { params: { query: { id: ["client-1"] } } });
if (found.data === undefined) throw new Error(\`search: \${String(found.response.status)}\`);
// A search may be partial (fields=), so its jobs are PartialJobs: every Job is one, so no guard.
const jobs: PartialJob[] = found.data.jobs;

const few = await client.GET("/v1/jobs", { params: { query: { id: ["client-1"], fields: "state" } } });
if (few.data === undefined) throw new Error(\`fields: \${String(few.response.status)}\`);
const fewJobs: PartialJob[] = few.data.jobs;

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
  found: { status: found.response.status, jobs },
  few: { status: few.response.status, jobs: fewJobs },
  patched: { status: patched.response.status, job: patched.data },
  deleted: { status: deleted.response.status },
  gone: { status: gone.response.status, problem },
}));
`;

export interface ClientWorkDir {
  readonly dir: string;
  /** The generated types, as written to api.d.ts. */
  readonly types: string;
}

/**
 * A fresh directory under test-results/<name>/ (inside the repository, so that the program
 * finds openapi-fetch and the project's tsconfig) holding api.d.ts generated from `document`,
 * program.ts and a tsconfig.json that extends the project's compiler options.
 */
export async function writeClientProgram(name: string, document: URL, program: string = PROGRAM): Promise<ClientWorkDir> {
  await mkdir(`test-results/${name}`, { recursive: true });
  const dir = await mkdtemp(`test-results/${name}/run-`);
  const types = astToString(await openapiTS(document));
  await writeFile(join(dir, "api.d.ts"), types);
  await writeFile(join(dir, "program.ts"), program);
  const tsconfig = { extends: relative(dir, "tsconfig.json"), include: ["program.ts", "api.d.ts"] };
  await writeFile(join(dir, "tsconfig.json"), JSON.stringify(tsconfig, null, 2));
  return { dir, types };
}
