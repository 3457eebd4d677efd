// The document is usable by the ecosystem's code generators: openapi-typescript turns
// openapi.yaml into types, a small program (test/helpers/client-program.ts) uses them with
// openapi-fetch to create, read, search, patch and delete a job, tsc checks it as strictly as
// this project's own code, and it runs against the started command. Work files go to
// test-results/generated-client/.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROGRAM, writeClientProgram } from "../helpers/client-program.js";
import { startCommand } from "../helpers/command.js";
import type { StartedCommand } from "../helpers/command.js";

const run = promisify(execFile);

/** tsc's report on the program in `dir`: "" when it type-checks. */
async function typeCheck(dir: string): Promise<string> {
  try {
    await run(process.execPath, ["node_modules/typescript/bin/tsc", "-p", join(dir, "tsconfig.json")]);
    return "";
  } catch (error) {
    return String((error as { stdout?: unknown }).stdout ?? error);
  }
}

interface SearchOperation {
  paths: { "/v1/jobs": { get: { responses: { 200: { content: Record<string, { schema: unknown }> } } } } };
  components: { schemas: Record<string, unknown> };
}

interface Outcome {
  created: { status: number; hash: string; tags: Record<string, string>; etag: string; job: Record<string, unknown> };
  read: { status: number; job: Record<string, unknown> };
  found: { status: number; jobs: Record<string, unknown>[] };
  few: { status: number; jobs: Record<string, unknown>[] };
  patched: { status: number; job: Record<string, unknown> };
  deleted: { status: number };
  gone: { status: number; problem?: { status: number; code?: string; requestId: string } };
}

describe("a client generated from openapi.yaml", () => {
  let gateway: StartedCommand;
  let dir: string;
  let types: string;

  beforeAll(async () => {
    // The project's compiler options (strict, noUncheckedIndexedAccess, ...), for these files.
    ({ dir, types } = await writeClientProgram("generated-client", new URL("../../openapi.yaml", import.meta.url)));
    gateway = await startCommand();
  }, 60_000);

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
    expect(await gateway.stop()).toBe(0);
  });

  it("type-checks with the project's strictness, reading a search's jobs with no guard", async () => {
    expect(await typeCheck(dir)).toBe("");
  }, 60_000);

  it("needs a guard on the search's data when NDJSON is documented with a schema of its own (the check can fail)", async () => {
    // What the document said before: NDJSON described by one line's schema, which openapi-fetch
    // adds to the union of the JSON forms that `data` may be.
    const planted = parse(readFileSync("openapi.yaml", "utf8")) as SearchOperation;
    planted.paths["/v1/jobs"].get.responses[200].content["application/x-ndjson"] = { schema: { $ref: "#/components/schemas/Job" } };
    await writeFile(join(dir, "planted.json"), JSON.stringify(planted));
    const work = await writeClientProgram("generated-client", new URL(`file://${process.cwd()}/${dir}/planted.json`));
    try {
      expect(await typeCheck(work.dir)).toMatch(/program\.ts\(\d+,\d+\): error TS2339: Property 'jobs' does not exist/);
    } finally {
      await rm(work.dir, { recursive: true, force: true });
    }
  }, 60_000);

  it("types a search's jobs as possibly partial: reading them as whole Jobs does not type-check", async () => {
    const wholeJobs = "const jobs: Job[] = found.data.jobs;";
    const planted = PROGRAM.replace("const jobs: PartialJob[] = found.data.jobs;", wholeJobs);
    const line = planted.split("\n").indexOf(wholeJobs) + 1;
    expect(line).toBeGreaterThan(0);
    const work = await writeClientProgram("generated-client", new URL("../../openapi.yaml", import.meta.url), planted);
    try {
      const errors = (await typeCheck(work.dir)).split("\n").filter((text) => text.includes("error TS"));
      expect(errors.map((text) => /program\.ts\((\d+),\d+\): error (TS\d+)/.exec(text)?.slice(1))).toEqual([[String(line), "TS2322"]]);
    } finally {
      await rm(work.dir, { recursive: true, force: true });
    }
  }, 60_000);

  it("gives each component of the document a named type", () => {
    const names = Object.keys((parse(readFileSync("openapi.yaml", "utf8")) as SearchOperation).components.schemas);
    expect(names.length).toBeGreaterThan(100);
    for (const name of names) expect(types, name).toMatch(new RegExp(`^ {8}${name}: `, "m"));
    expect(types).toMatch(/^ {8}EventLine: components\["schemas"\]\["NodeRunningLine"\] \| /m);
  });

  it("creates, reads, patches and deletes a job", async () => {
    const { stdout } = await run(process.execPath, ["--import", "tsx", join(dir, "program.ts")], { env: { ...process.env, GATEWAY_URL: gateway.url } });
    const outcome = JSON.parse(stdout) as Outcome;
    expect(outcome.created).toMatchObject({ status: 201, tags: { env: "test" }, etag: `"${outcome.created.hash}"` });
    expect(outcome.created.job).toMatchObject({ jobId: "client-1", startDateTime: "2026-12-24T18:00:00.123456789Z", launchConfigJson: "" });
    expect(outcome.read).toEqual({ status: 200, job: outcome.created.job });
    expect(outcome.found).toEqual({ status: 200, jobs: [outcome.created.job] });
    expect(outcome.few).toEqual({ status: 200, jobs: [{ jobId: "client-1", state: "pre" }] });
    expect(outcome.patched.status).toBe(200);
    expect(outcome.patched.job).toMatchObject({ description: "patched by a generated client", tags: { env: "test", owner: "client" }, launchConfigJson: "" });
    expect(outcome.patched.job.currentHash).not.toBe(outcome.created.hash);
    expect(outcome.deleted.status).toBe(204);
    expect(outcome.gone).toMatchObject({ status: 404, problem: { status: 404, code: "NOT_FOUND" } });
  }, 60_000);
});
