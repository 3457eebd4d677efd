import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createJob, gatewayTo, startTestGateway } from "../helpers/gateway.js";
import type { TestGateway } from "../helpers/gateway.js";
import { JOB_FIELDS } from "../../src/operations/job-fields.js";

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw.close();
});

async function removeAll(): Promise<void> {
  for (const job of await gw.jobs()) await gw.connection.manager.deleteJob({ jobId: job.jobId?.jobId ?? "" });
}

beforeEach(removeAll);

interface Page {
  jobs: { jobId: string; state?: string; tags?: Record<string, string> }[];
  nextPageToken?: string;
}

const ids = (count: number) => Array.from({ length: count }, (_, i) => `p-${String(i).padStart(2, "0")}`);

async function get(url: string, headers: Record<string, string> = {}) {
  return gw.app.inject({ method: "GET", url, headers });
}

/** The parameters a 400 names. */
function named(res: { json: () => unknown }): string[] {
  return (res.json() as { errors: { parameter: string }[] }).errors.map((e) => e.parameter);
}

describe("GET /v1/jobs with pageSize", () => {
  it("walks 25 jobs with pageSize=10 in three pages, each job once and in id order, following Link", async () => {
    for (const id of ids(25)) await createJob(gw.app, id);
    const seen: string[] = [];
    const sizes: number[] = [];
    let url: string | undefined = "/v1/jobs?pageSize=10";
    while (url !== undefined) {
      const res = await get(url);
      expect(res.statusCode).toBe(200);
      const page = res.json<Page>();
      sizes.push(page.jobs.length);
      seen.push(...page.jobs.map((j) => j.jobId));
      const link = res.headers.link as string | undefined;
      if (page.nextPageToken === undefined) {
        expect(link).toBeUndefined();
        url = undefined;
      } else {
        expect(link).toBe(`</v1/jobs?pageSize=10&pageToken=${page.nextPageToken}>; rel="next"`);
        url = /^<([^>]*)>; rel="next"$/.exec(link ?? "")?.[1];
      }
    }
    expect(sizes).toEqual([10, 10, 5]);
    expect(seen).toEqual(ids(25));
  });

  it("gives no nextPageToken when the last page is exactly full", async () => {
    for (const id of ids(10)) await createJob(gw.app, id);
    const res = await get("/v1/jobs?pageSize=10");
    expect(res.json<Page>().jobs).toHaveLength(10);
    expect(res.json<Page>().nextPageToken).toBeUndefined();
    expect(res.headers.link).toBeUndefined();
  });

  it("answers as before without pageSize: the whole list, no token", async () => {
    for (const id of ids(3)) await createJob(gw.app, id);
    const res = await get("/v1/jobs");
    expect(Object.keys(res.json<Page>())).toEqual(["jobs"]);
    expect(res.json<Page>().jobs).toHaveLength(3);
  });

  it("takes a token on another gateway (nothing is kept between pages)", async () => {
    for (const id of ids(5)) await createJob(gw.app, id);
    const page1 = (await get("/v1/jobs?pageSize=2")).json<Page>();
    const other = await gatewayTo(gw.manager.address);
    try {
      const res = await other.app.inject({ method: "GET", url: `/v1/jobs?pageSize=2&pageToken=${page1.nextPageToken ?? ""}` });
      expect(res.json<Page>().jobs.map((j) => j.jobId)).toEqual(["p-02", "p-03"]);
    } finally {
      await other.close();
    }
  });

  it("goes on after the position when the last job of a page was deleted in between", async () => {
    for (const id of ids(6)) await createJob(gw.app, id);
    const page1 = (await get("/v1/jobs?pageSize=3")).json<Page>();
    await gw.connection.manager.deleteJob({ jobId: "p-02" });
    const page2 = (await get(`/v1/jobs?pageSize=3&pageToken=${page1.nextPageToken ?? ""}`)).json<Page>();
    expect(page2.jobs.map((j) => j.jobId)).toEqual(["p-03", "p-04", "p-05"]);
  });

  it("orders positions as the Manager does, by code point: an id past U+FFFF follows U+FFFD", async () => {
    // UTF-16 order puts U+10000 (a surrogate pair, 0xD800...) before U+FFFD; the Manager does not.
    await createJob(gw.app, "x\u{FFFD}");
    await createJob(gw.app, "x\u{10000}");
    const page1 = (await get("/v1/jobs?pageSize=1")).json<Page>();
    expect(page1.jobs.map((j) => j.jobId)).toEqual(["x\u{FFFD}"]);
    const page2 = (await get(`/v1/jobs?pageSize=1&pageToken=${page1.nextPageToken ?? ""}`)).json<Page>();
    expect(page2.jobs.map((j) => j.jobId)).toEqual(["x\u{10000}"]);
    expect(page2.nextPageToken).toBeUndefined();
  });

  it("refuses a token made for other filters with a 400 naming pageToken", async () => {
    for (const id of ids(4)) await createJob(gw.app, id, { tags: { env: "prod" } });
    const page1 = (await get("/v1/jobs?pageSize=2&tag=env:prod")).json<Page>();
    const token = page1.nextPageToken ?? "";
    for (const query of [`pageSize=2&pageToken=${token}`, `pageSize=2&tag=env:dev&pageToken=${token}`, `pageSize=2&tag=env:prod&state=pre&pageToken=${token}`]) {
      const res = await get(`/v1/jobs?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(named(res)).toEqual(["pageToken"]);
    }
    // The same filters in another order, and another page size, are the same list.
    const again = await get(`/v1/jobs?tag=env:prod&pageSize=3&pageToken=${token}`);
    expect(again.json<Page>().jobs.map((j) => j.jobId)).toEqual(["p-02", "p-03"]);
  });

  it.each([
    ["a forged token", "pageSize=2&pageToken=bm90LWEtdG9rZW4", "pageToken"],
    ["a token of bad base64url", "pageSize=2&pageToken=a%2Bb", "pageToken"],
    ["a token too long", `pageSize=2&pageToken=${"A".repeat(2049)}`, "pageToken"],
    ["a token without pageSize", "pageToken=AQ", "pageToken"],
    ["pageSize 0", "pageSize=0", "pageSize"],
    ["pageSize over 1000", "pageSize=1001", "pageSize"],
    ["pageSize twice", "pageSize=1&pageSize=2", "pageSize"],
    ["pageSize with limit", "pageSize=2&limit=3", "limit"],
  ])("refuses %s with a 400 naming it", async (_name, query, parameter) => {
    const res = await get(`/v1/jobs?${query}`);
    expect(res.statusCode).toBe(400);
    expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(named(res)).toContain(parameter);
  });

  it("refuses pageSize with NDJSON: NDJSON streams the whole list", async () => {
    const res = await get("/v1/jobs?pageSize=2", { accept: "application/x-ndjson" });
    expect(res.statusCode).toBe(400);
    expect(named(res)).toEqual(["pageSize"]);
  });
});

describe("GET /v1/jobs with state", () => {
  beforeEach(async () => {
    for (const id of ["st-1", "st-2", "st-3"]) await createJob(gw.app, id);
    await gw.app.inject({ method: "POST", url: "/v1/jobs/st-2/complete" });
  });

  it.each([
    ["state=pre", ["st-1", "st-3"]],
    ["state=post", ["st-2"]],
    ["state=active", []],
    ["state=active&state=post", ["st-2"]],
    ["state=pre&idNot=st-1", ["st-3"]],
    ["state=pre&limit=1", ["st-1"]],
  ])("keeps the jobs in a state: %s", async (query, expected) => {
    const res = await get(`/v1/jobs?${query}`);
    expect(res.statusCode).toBe(200);
    expect(res.json<Page>().jobs.map((j) => j.jobId)).toEqual(expected);
    const ndjson = await get(`/v1/jobs?${query}`, { accept: "application/x-ndjson" });
    const lines = ndjson.body.split("\n").filter((line) => line !== "");
    expect(lines.map((line) => (JSON.parse(line) as { jobId: string }).jobId)).toEqual(expected);
  });

  it("pages through the jobs of a state, the dropped ones not counted", async () => {
    for (const id of ["st-4", "st-5"]) await createJob(gw.app, id);
    const page1 = (await get("/v1/jobs?state=pre&pageSize=2")).json<Page>();
    expect(page1.jobs.map((j) => j.jobId)).toEqual(["st-1", "st-3"]);
    const page2 = (await get(`/v1/jobs?state=pre&pageSize=2&pageToken=${page1.nextPageToken ?? ""}`)).json<Page>();
    expect(page2.jobs.map((j) => j.jobId)).toEqual(["st-4", "st-5"]);
    expect(page2.nextPageToken).toBeUndefined();
  });

  it("refuses an unknown state with a 400 naming state", async () => {
    const res = await get("/v1/jobs?state=running");
    expect(res.statusCode).toBe(400);
    expect(named(res)).toContain("state");
  });
});

describe("fields", () => {
  beforeEach(async () => {
    await createJob(gw.app, "f-1", { tags: { env: "prod" }, description: "one" });
    await createJob(gw.app, "f-2", { tags: { env: "dev" } });
  });

  it("sends only the fields asked for, and jobId, in a search (JSON and NDJSON)", async () => {
    const res = await get("/v1/jobs?fields=state,tags");
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      jobs: [
        { jobId: "f-1", tags: { env: "prod" }, state: "pre" },
        { jobId: "f-2", tags: { env: "dev" }, state: "pre" },
      ],
    });
    const ndjson = await get("/v1/jobs?fields=description", { accept: "application/x-ndjson" });
    expect(ndjson.body).toBe('{"jobId":"f-1","description":"one"}\n{"jobId":"f-2","description":""}\n');
  });

  it("leaves out a field the job omits (an optional field that is unset)", async () => {
    const res = await get("/v1/jobs?fields=managerConfiguration&id=f-1");
    expect(res.json()).toEqual({ jobs: [{ jobId: "f-1" }] });
  });

  it("sends a partial job read with the job's own ETag", async () => {
    const full = await get("/v1/jobs/f-1");
    const res = await get("/v1/jobs/f-1?fields=jobId,description");
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ jobId: "f-1", description: "one" });
    expect(res.headers.etag).toBe(full.headers.etag);
  });

  it.each([
    ["/v1/jobs?fields=state,colour"],
    ["/v1/jobs/f-1?fields=colour"],
    ["/v1/jobs?fields=state,"],
    ["/v1/jobs?fields=services.name"],
  ])("refuses an unknown field with a 400 naming fields: %s", async (url) => {
    const res = await get(url);
    expect(res.statusCode).toBe(400);
    expect(named(res)).toEqual(["fields"]);
  });

  it("answers, with every field named, the whole job byte for byte (int64 strings, nanoseconds, \"\" kept)", async () => {
    const rich = {
      startDateTime: "2026-12-24T18:00:00.123456789Z",
      launchConfigJson: "",
      norskCpuList: [0, 4294967295],
      services: [{ name: "norsk", restartCount: 2147483647 }],
      productTemplateParameters: { K: "V" },
    };
    await createJob(gw.app, "f-rich", rich);
    const all = JOB_FIELDS.join(",");
    const whole = await get("/v1/jobs/f-rich");
    expect(whole.json()).toMatchObject({ ...rich, currentHash: expect.stringMatching(/^-?[0-9]+$/) as unknown });
    expect((await get(`/v1/jobs/f-rich?fields=${all}`)).body).toBe(whole.body);
    expect((await get(`/v1/jobs?id=f-rich&fields=${all}`)).body).toBe(`{"jobs":[${whole.body}]}`);
  });

  it("names the unknown field in the problem", async () => {
    const res = await get("/v1/jobs?fields=state,colour");
    expect(JSON.stringify(res.json())).toContain('\\"colour\\"');
  });
});
