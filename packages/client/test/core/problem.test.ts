// Each typed error from its real status, against the gateway and its reference Manager: the
// subclass callers branch on, the code (a union generated from the document), the detail, the
// located errors, the request id and the answer, and whether it may be retried.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startListeningGateway } from "../../../../test/helpers/listening-gateway.js";
import type { ListeningGateway } from "../../../../test/helpers/listening-gateway.js";
import {
  ConflictError,
  ConnectionError,
  NotFoundError,
  PreconditionFailedError,
  ProblemError,
  RateLimitedError,
  UnavailableError,
  createClient,
} from "../../src/index.js";
import type { Client, JobInput } from "../../src/index.js";

const JOB: JobInput = { jobId: "errors-1", startDateTime: "2026-12-24T18:00:00Z", description: "first", tags: { suite: "errors" } };

let gateway: ListeningGateway;
let client: Client;

beforeAll(async () => {
  gateway = await startListeningGateway();
  client = createClient({ baseUrl: gateway.url, maxRetries: 0 });
  await client.jobs.create(JOB);
});

afterAll(async () => {
  await gateway.close();
});

/** The error `promise` rejects with. */
async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a failure");
}

describe("a problem answer", () => {
  it("404 is a NotFoundError with code NOT_FOUND, the request id and the answer", async () => {
    const error = await failure(client.jobs.get("no-such-job", { headers: { "x-request-id": "client-404" } }));
    expect(error).toBeInstanceOf(NotFoundError);
    const problem = error as NotFoundError;
    expect(problem).toBeInstanceOf(ProblemError);
    expect([problem.status, problem.code, problem.requestId, problem.response?.status]).toEqual([404, "NOT_FOUND", "client-404", 404]);
    expect(problem.retryable).toBe(false);
  });

  it("409 is a ConflictError: a different job under the same id, ALREADY_EXISTS", async () => {
    const error = await failure(client.jobs.create({ ...JOB, description: "another" }));
    expect(error).toBeInstanceOf(ConflictError);
    expect((error as ConflictError).code).toBe("ALREADY_EXISTS");
  });

  it("412 is a PreconditionFailedError: a stale If-Match, and nothing written", async () => {
    const error = await failure(client.jobs.replace(JOB.jobId, { ...JOB, description: "blind" }, { ifMatch: '"12345"' }));
    expect(error).toBeInstanceOf(PreconditionFailedError);
    expect((error as PreconditionFailedError).code).toBe("ABORTED");
    expect((await client.jobs.get(JOB.jobId)).description).toBe("first");
  });

  it("400 locates each thing wrong: the JSON Pointer into the body", async () => {
    const error = await failure(client.jobs.create({ jobId: "errors-2", startDateTime: "2026-12-24T18:00:00Z", currentHash: "not a number" }));
    expect(error).toBeInstanceOf(ProblemError);
    const problem = error as ProblemError;
    expect([problem.status, problem.code]).toEqual([400, "INVALID_ARGUMENT"]);
    expect(problem.errors.map((item) => item.pointer)).toContain("/currentHash");
  });

  it("a code narrows: the union is the document's", async () => {
    const error = await failure(client.jobs.get("no-such-job"));
    if (!(error instanceof ProblemError)) throw error;
    const code: "NOT_FOUND" | undefined = error.code === "NOT_FOUND" ? error.code : undefined;
    expect(code).toBe("NOT_FOUND");
  });
});

describe("a 429", () => {
  let limited: ListeningGateway;
  beforeAll(async () => {
    limited = await startListeningGateway({ rateLimit: "2/m" });
  });
  afterAll(async () => {
    await limited.close();
  });

  it("is a RateLimitedError, retryable", async () => {
    const limitedClient = createClient({ baseUrl: limited.url, maxRetries: 0 });
    const errors = await Promise.all([1, 2, 3].map(() => limitedClient.jobs.list().all().then(() => undefined, (error: unknown) => error)));
    const error = errors.find((one) => one instanceof RateLimitedError);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect((error as RateLimitedError).retryable).toBe(true);
  });
});

describe("a 503", () => {
  it("from a stopped Manager is an UnavailableError, code UNAVAILABLE, retryable", async () => {
    const stopped = await startListeningGateway();
    try {
      await stopped.manager.close();
      const error = await failure(createClient({ baseUrl: stopped.url, maxRetries: 0 }).jobs.get("any"));
      expect(error).toBeInstanceOf(UnavailableError);
      expect([(error as UnavailableError).code, (error as UnavailableError).retryable]).toEqual(["UNAVAILABLE", true]);
      expect((error as UnavailableError).response?.headers.get("retry-after")).toMatch(/^[0-9]+$/);
    } finally {
      await stopped.close();
    }
  });
});

describe("no answer", () => {
  it("is a ConnectionError", async () => {
    const error = await failure(createClient({ baseUrl: "http://127.0.0.1:1", maxRetries: 0 }).jobs.get("any"));
    expect(error).toBeInstanceOf(ConnectionError);
  });
});
