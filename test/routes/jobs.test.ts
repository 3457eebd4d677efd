import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { JSON_HEADERS, START, startTestGateway } from "../helpers/gateway.js";
import type { TestGateway } from "../helpers/gateway.js";

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw.close();
});

async function create(body: Record<string, unknown>) {
  return gw.app.inject({ method: "POST", url: "/v1/jobs", headers: JSON_HEADERS, payload: body });
}

async function removeAll(): Promise<void> {
  for (const job of await gw.jobs()) await gw.connection.manager.deleteJob({ jobId: job.jobId?.jobId ?? "" });
}

beforeEach(removeAll);


describe("POST /v1/jobs", () => {
  it("creates a job: 201, Location, ETag equal to the hash in the body", async () => {
    const res = await create({ jobId: "tenant/a b", startDateTime: START, tags: { env: "prod" } });
    expect(res.statusCode).toBe(201);
    expect(res.headers.location).toBe("/v1/jobs/tenant%2Fa%20b");
    const body = res.json<{ currentHash: string; jobId: string }>();
    expect(res.headers.etag).toBe(`"${body.currentHash}"`);
    expect(body.currentHash).not.toBe("0");
    expect(body.jobId).toBe("tenant/a b");
    const stored = await gw.jobs();
    expect(stored.map((j) => j.jobId?.jobId)).toEqual(["tenant/a b"]);
    expect(stored[0]?.currentHash.toString()).toBe(body.currentHash);
  });

  it("answers a repeated identical create with 200 and the same job (a safe retry)", async () => {
    const first = await create({ jobId: "r", startDateTime: START, description: "d" });
    const again = await create({ jobId: "r", startDateTime: START, description: "d" });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(first.json());
    expect(again.headers.etag).toBe(first.headers.etag);
  });

  it("answers a different job with an existing id with 409 and keeps the stored one", async () => {
    await create({ jobId: "c", startDateTime: START, description: "one" });
    const res = await create({ jobId: "c", startDateTime: START, description: "two" });
    expect(res.statusCode).toBe(409);
    expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(res.json()).toMatchObject({ status: 409, code: "ALREADY_EXISTS" });
    expect((await gw.jobs())[0]?.description).toBe("one");
  });

  it("rejects an empty jobId with 400 naming it", async () => {
    const res = await create({ jobId: "", startDateTime: START });
    expect(res.statusCode).toBe(400);
    expect(res.json<{ errors: { pointer: string }[] }>().errors.map((e) => e.pointer)).toContain("/jobId");
  });
});

describe("GET /v1/jobs/{jobId}", () => {
  it("returns the job with its ETag, and 304 for a matching If-None-Match", async () => {
    const created = await create({ jobId: "g", startDateTime: START });
    const res = await gw.app.inject({ method: "GET", url: "/v1/jobs/g" });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(created.json());
    expect(res.headers.etag).toBe(created.headers.etag);
    const cached = await gw.app.inject({ method: "GET", url: "/v1/jobs/g", headers: { "if-none-match": String(created.headers.etag) } });
    expect(cached.statusCode).toBe(304);
    expect(cached.body).toBe("");
    const stale = await gw.app.inject({ method: "GET", url: "/v1/jobs/g", headers: { "if-none-match": '"1"' } });
    expect(stale.statusCode).toBe(200);
  });

  it("answers 404 as a problem for a job that does not exist", async () => {
    const res = await gw.app.inject({ method: "GET", url: "/v1/jobs/nope" });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ status: 404, code: "NOT_FOUND", instance: "/v1/jobs/nope" });
  });
});

describe("GET /v1/jobs", () => {
  beforeEach(async () => {
    await create({ jobId: "s-1", startDateTime: "2026-01-01T00:00:00Z", tags: { env: "prod" } });
    await create({ jobId: "s-2", startDateTime: "2026-02-01T00:00:00Z", tags: { env: "dev" } });
    await create({ jobId: "s-3", startDateTime: "2026-03-01T00:00:00Z", tags: { env: "prod", owner: "x" } });
  });

  it("lists every job in id order as {jobs: [...]}", async () => {
    const res = await gw.app.inject({ method: "GET", url: "/v1/jobs" });
    expect(res.statusCode).toBe(200);
    expect(res.json<{ jobs: { jobId: string }[] }>().jobs.map((j) => j.jobId)).toEqual(["s-1", "s-2", "s-3"]);
  });

  it.each([
    ["tag=env:prod", ["s-1", "s-3"]],
    ["tag=env:prod&hasTag=owner", ["s-3"]],
    ["idNot=s-2", ["s-1", "s-3"]],
    ["idMatch=%5Es-%5B12%5D", ["s-1", "s-2"]],
    ["tagNot=env:prod", ["s-2"]],
    ["tagMatch=env:%5Ed", ["s-2"]],
    ["startAfter=2026-01-15T00:00:00Z", ["s-2", "s-3"]],
    ["startAtOrBefore=2026-02-01T00:00:00Z", ["s-1", "s-2"]],
    ["startWithin=2026-01-15T00:00:00Z/2026-02-15T00:00:00Z", ["s-2"]],
    ["startAt=2026-03-01T01:00:00%2B01:00", ["s-3"]],
    ["limit=2", ["s-1", "s-2"]],
  ])("filters with %s", async (query, ids) => {
    const res = await gw.app.inject({ method: "GET", url: `/v1/jobs?${query}` });
    expect(res.statusCode).toBe(200);
    expect(res.json<{ jobs: { jobId: string }[] }>().jobs.map((j) => j.jobId)).toEqual(ids);
  });

  it("streams NDJSON when asked, one job per line", async () => {
    const res = await gw.app.inject({ method: "GET", url: "/v1/jobs?tag=env:prod", headers: { accept: "application/x-ndjson" } });
    expect(res.headers["content-type"]).toBe("application/x-ndjson");
    const lines = res.body.trimEnd().split("\n").map((line) => JSON.parse(line) as { jobId: string });
    expect(lines.map((j) => j.jobId)).toEqual(["s-1", "s-3"]);
  });

  it.each([
    ["idMatch=(", "INVALID_ARGUMENT"],
    ["idMatch=(a)%5C1", "INVALID_ARGUMENT"],
  ])("answers the Manager's refusal of %s with 400", async (query, code) => {
    const res = await gw.app.inject({ method: "GET", url: `/v1/jobs?${query}` });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code });
  });

  it.each([
    [
      "idMatch=s-&idMatch=(a)%5C1",
      "id_filter.re: invalid regular expression (RE2 syntax: no backreferences or lookaround): error parsing regexp: invalid escape sequence: `\\1`",
      "idMatch",
    ],
    [
      "tagMatch=env:p(%3F%3Drod)",
      "tag_filter.re: invalid regular expression (RE2 syntax: no backreferences or lookaround): error parsing regexp: invalid or unsupported Perl syntax: `(?=`",
      "tagMatch",
    ],
    [
      `tagMatch=env:${"a".repeat(1001)}`,
      "tag_filter.re: regular expression is longer than 1000 characters",
      "tagMatch",
    ],
    ["startWithin=2026-12-25T00:00:00Z/2026-12-24T00:00:00Z", "date_filter.within: end_date is before start_date", "startWithin"],
  ])("answers the Manager's refusal of a filter (%s) with a 400 naming the parameter, never the proto field", async (query, managerSays, parameter) => {
    const message = managerSays.slice(managerSays.indexOf(": ") + 2);
    const res = await gw.app.inject({ method: "GET", url: `/v1/jobs?${query}`, headers: { "x-request-id": "r-1" } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      type: "about:blank",
      title: "Bad Request",
      status: 400,
      detail: `${parameter}: ${message}`,
      instance: `/v1/jobs?${query}`,
      code: "INVALID_ARGUMENT",
      requestId: "r-1",
      errors: [{ parameter, message }],
    });
  });

  it.each(["startAt=yesterday", "limit=0", "limit=abc", "tag=novalue", "colour=red", "startWithin=2026-01-01T00:00:00Z"])(
    "rejects the query %s with 400 naming the parameter",
    async (query) => {
      const res = await gw.app.inject({ method: "GET", url: `/v1/jobs?${query}` });
      expect(res.statusCode).toBe(400);
      const name = query.split("=")[0];
      expect(res.json<{ errors: { parameter?: string }[] }>().errors.map((e) => e.parameter)).toContain(name);
    },
  );
});

describe("PUT /v1/jobs/{jobId}", () => {
  it("replaces the job and answers with the new hash and ETag", async () => {
    const created = await create({ jobId: "p", startDateTime: START, description: "old" });
    const res = await gw.app.inject({
      method: "PUT",
      url: "/v1/jobs/p",
      headers: { ...JSON_HEADERS, "if-match": String(created.headers.etag) },
      payload: { jobId: "p", startDateTime: START, description: "new" },
    });
    expect(res.statusCode).toBe(200);
    const body = res.json<{ description: string; currentHash: string }>();
    expect(body.description).toBe("new");
    expect(res.headers.etag).toBe(`"${body.currentHash}"`);
    expect(res.headers.etag).not.toBe(created.headers.etag);
    expect((await gw.jobs())[0]?.description).toBe("new");
  });

  it("answers 412 for a stale If-Match and changes nothing", async () => {
    await create({ jobId: "p", startDateTime: START, description: "old" });
    const res = await gw.app.inject({
      method: "PUT",
      url: "/v1/jobs/p",
      headers: { ...JSON_HEADERS, "if-match": '"12345"' },
      payload: { jobId: "p", startDateTime: START, description: "new" },
    });
    expect(res.statusCode).toBe(412);
    expect((await gw.jobs())[0]?.description).toBe("old");
  });

  it("treats a stale currentHash in the body as the same precondition (412)", async () => {
    await create({ jobId: "p", startDateTime: START });
    const res = await gw.app.inject({ method: "PUT", url: "/v1/jobs/p", headers: JSON_HEADERS, payload: { jobId: "p", startDateTime: START, currentHash: "77" } });
    expect(res.statusCode).toBe(412);
  });

  it("rejects a currentHash that contradicts If-Match with 400", async () => {
    const created = await create({ jobId: "p", startDateTime: START });
    const res = await gw.app.inject({
      method: "PUT",
      url: "/v1/jobs/p",
      headers: { ...JSON_HEADERS, "if-match": String(created.headers.etag) },
      payload: { jobId: "p", startDateTime: START, currentHash: "77" },
    });
    expect(res.statusCode).toBe(400);
  });

  it("answers 404 for a job that does not exist, 412 when If-Match was given", async () => {
    const plain = await gw.app.inject({ method: "PUT", url: "/v1/jobs/none", headers: JSON_HEADERS, payload: { jobId: "none", startDateTime: START } });
    expect(plain.statusCode).toBe(404);
    const conditional = await gw.app.inject({
      method: "PUT",
      url: "/v1/jobs/none",
      headers: { ...JSON_HEADERS, "if-match": "*" },
      payload: { jobId: "none", startDateTime: START },
    });
    expect(conditional.statusCode).toBe(412);
  });

  it("rejects a body whose jobId differs from the path", async () => {
    await create({ jobId: "p", startDateTime: START });
    const res = await gw.app.inject({ method: "PUT", url: "/v1/jobs/p", headers: JSON_HEADERS, payload: { jobId: "q", startDateTime: START } });
    expect(res.statusCode).toBe(400);
  });
});

describe("PATCH /v1/jobs/{jobId}", () => {
  const PATCH_HEADERS = { "content-type": "application/merge-patch+json" };

  it("merges the patch and keeps every field it does not touch", async () => {
    await create({ jobId: "m", startDateTime: START, description: "d", tags: { a: "1", b: "2" }, volumes: ["v"], launchConfigJson: "" });
    const res = await gw.app.inject({ method: "PATCH", url: "/v1/jobs/m", headers: PATCH_HEADERS, payload: { tags: { a: null, c: "3" }, shape: "big" } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ description: "d", tags: { b: "2", c: "3" }, volumes: ["v"], launchConfigJson: "", shape: "big" });
    const stored = (await gw.jobs())[0];
    expect(stored?.tags).toEqual({ b: "2", c: "3" });
    expect(stored?.launchConfigJson).toBe("");
  });

  it("honours If-Match: 412 when stale, 200 when current", async () => {
    const created = await create({ jobId: "m", startDateTime: START });
    const stale = await gw.app.inject({ method: "PATCH", url: "/v1/jobs/m", headers: { ...PATCH_HEADERS, "if-match": '"1"' }, payload: { shape: "x" } });
    expect(stale.statusCode).toBe(412);
    const fresh = await gw.app.inject({
      method: "PATCH",
      url: "/v1/jobs/m",
      headers: { ...PATCH_HEADERS, "if-match": String(created.headers.etag) },
      payload: { shape: "x" },
    });
    expect(fresh.statusCode).toBe(200);
  });

  it("applies every one of 20 concurrent patches of one job: all 200, all 20 tags stored, each answer its own version", async () => {
    await create({ jobId: "race", startDateTime: START });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        gw.app.inject({ method: "PATCH", url: "/v1/jobs/race", headers: PATCH_HEADERS, payload: { tags: { [`k${i}`]: String(i) } } }),
      ),
    );
    expect(results.map((r) => r.statusCode)).toEqual(Array<number>(20).fill(200));
    const expected = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, String(i)]));
    const stored = (await gw.jobs())[0];
    expect(stored?.tags).toEqual(expected);
    // Patches of one job run one after the other: each answer is a distinct version, the
    // last of which is the stored one.
    const etags = results.map((r) => String(r.headers.etag));
    expect(new Set(etags).size).toBe(20);
    expect(etags).toContain(`"${String(stored?.currentHash)}"`);
  });

  it("refuses to remove startDateTime, change jobId or patch currentHash", async () => {
    await create({ jobId: "m", startDateTime: START });
    for (const payload of [{ startDateTime: null }, { jobId: "other" }, { currentHash: "1" }]) {
      const res = await gw.app.inject({ method: "PATCH", url: "/v1/jobs/m", headers: PATCH_HEADERS, payload });
      expect(res.statusCode).toBe(400);
    }
  });

  it("answers 404 for a missing job", async () => {
    const res = await gw.app.inject({ method: "PATCH", url: "/v1/jobs/none", headers: PATCH_HEADERS, payload: { shape: "x" } });
    expect(res.statusCode).toBe(404);
  });
});

describe("DELETE /v1/jobs/{jobId} and POST /v1/jobs/{jobId}/complete", () => {
  it("deletes: 204, then 404", async () => {
    await create({ jobId: "d", startDateTime: START });
    expect((await gw.app.inject({ method: "DELETE", url: "/v1/jobs/d" })).statusCode).toBe(204);
    expect(await gw.jobs()).toEqual([]);
    expect((await gw.app.inject({ method: "DELETE", url: "/v1/jobs/d" })).statusCode).toBe(404);
  });

  it("enforces If-Match on delete", async () => {
    const created = await create({ jobId: "d", startDateTime: START });
    expect((await gw.app.inject({ method: "DELETE", url: "/v1/jobs/d", headers: { "if-match": '"5"' } })).statusCode).toBe(412);
    expect(await gw.jobs()).toHaveLength(1);
    expect((await gw.app.inject({ method: "DELETE", url: "/v1/jobs/d", headers: { "if-match": String(created.headers.etag) } })).statusCode).toBe(204);
  });

  it("completes a job: 204 and state post; 404 when absent", async () => {
    await create({ jobId: "k", startDateTime: START });
    expect((await gw.app.inject({ method: "POST", url: "/v1/jobs/k/complete" })).statusCode).toBe(204);
    expect((await gw.app.inject({ method: "GET", url: "/v1/jobs/k" })).json()).toMatchObject({ state: "post" });
    expect((await gw.app.inject({ method: "POST", url: "/v1/jobs/none/complete" })).statusCode).toBe(404);
  });
});

describe("job instances", () => {
  it("starts, lists and stops an instance", async () => {
    await create({ jobId: "i", startDateTime: START });
    const started = await gw.app.inject({ method: "POST", url: "/v1/jobs/i/instances", headers: JSON_HEADERS, payload: { role: "primary", nodeId: "n-1" } });
    expect(started.statusCode).toBe(201);
    expect(started.headers.location).toBe("/v1/jobs/i/instances/primary");
    expect(started.json()).toEqual({ jobKey: { jobId: "i", role: "primary" }, nodeId: "n-1" });
    const listed = await gw.app.inject({ method: "GET", url: "/v1/jobs/i/instances" });
    expect(listed.json()).toEqual({ instances: [{ jobKey: { jobId: "i", role: "primary" }, nodeId: "n-1" }] });
    const stopped = await gw.app.inject({ method: "DELETE", url: "/v1/jobs/i/instances/primary?nodeId=n-1" });
    expect(stopped.statusCode).toBe(204);
    expect((await gw.app.inject({ method: "GET", url: "/v1/jobs/i/instances" })).json()).toEqual({ instances: [] });
  });

  it("answers 404 for a missing job or instance", async () => {
    expect((await gw.app.inject({ method: "GET", url: "/v1/jobs/none/instances" })).statusCode).toBe(404);
    expect((await gw.app.inject({ method: "POST", url: "/v1/jobs/none/instances", headers: JSON_HEADERS, payload: { role: "r", nodeId: "n" } })).statusCode).toBe(404);
    await create({ jobId: "i", startDateTime: START });
    expect((await gw.app.inject({ method: "DELETE", url: "/v1/jobs/i/instances/r?nodeId=n" })).statusCode).toBe(404);
  });

  it("answers 400 for starting a role that already runs (FAILED_PRECONDITION)", async () => {
    await create({ jobId: "i", startDateTime: START });
    const body = { role: "primary", nodeId: "n-1" };
    await gw.app.inject({ method: "POST", url: "/v1/jobs/i/instances", headers: JSON_HEADERS, payload: body });
    const again = await gw.app.inject({ method: "POST", url: "/v1/jobs/i/instances", headers: JSON_HEADERS, payload: body });
    expect(again.statusCode).toBe(400);
    expect(again.json()).toMatchObject({ code: "FAILED_PRECONDITION" });
  });
});

describe("reads under load", () => {
  it("serves a burst of reads without a failure (no cancellation storm on the shared connection)", async () => {
    await create({ jobId: "hot", startDateTime: START });
    const statuses = new Map<number, number>();
    for (let round = 0; round < 40; round++) {
      const answers = await Promise.all(Array.from({ length: 100 }, () => gw.app.inject({ method: "GET", url: "/v1/jobs/hot" })));
      for (const answer of answers) statuses.set(answer.statusCode, (statuses.get(answer.statusCode) ?? 0) + 1);
    }
    expect(Object.fromEntries(statuses)).toEqual({ 200: 4000 });
  });
});

describe("request ids and readiness", () => {
  it("echoes a given X-Request-Id and generates one otherwise", async () => {
    const given = await gw.app.inject({ method: "GET", url: "/healthz", headers: { "x-request-id": "abc-123" } });
    expect(given.headers["x-request-id"]).toBe("abc-123");
    const made = await gw.app.inject({ method: "GET", url: "/healthz" });
    expect(made.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("is ready while the Manager serves", async () => {
    const res = await gw.app.inject({ method: "GET", url: "/readyz" });
    expect(res.statusCode).toBe(200);
  });
});
