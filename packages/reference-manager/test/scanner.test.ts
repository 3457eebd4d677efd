// The scan worker (src/scanner.ts): a job search with a regular expression runs on a
// worker thread, in arrival order; a scan whose call ends is dropped, a running one by ending
// its worker, and the scans after it still run.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { create, toBinary } from "@bufbuild/protobuf";
import { JobSchema, JobSearchRequestSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { Code, GrpcError } from "norsk-manager-contract/grpc/index.js";
import { Scanner } from "../src/scanner.js";
import type { ScanTask } from "../src/scan.js";
import { simpleJob } from "./harness.js";

const idMatch = (pattern: string, ids: readonly string[]): ScanTask => ({
  request: toBinary(JobSearchRequestSchema, create(JobSearchRequestSchema, { jobFilter: [{ jobFilter: { case: "idFilter", value: { comparison: { case: "re", value: pattern } } } }] })),
  ids,
  jobs: undefined,
});

/** Takes RE2 tens of seconds: a program of 2103 instructions over 140 000 characters. */
const SLOW = idMatch("(?:a?){700}a{700}c", [`${"a".repeat(699)}c`.repeat(200)]);

// One scanner for the file: each worker start costs seconds under the tests' TypeScript loader.
let scanner: Scanner;
beforeAll(() => {
  scanner = new Scanner();
});
afterAll(async () => {
  await scanner.close();
});

const live = (): AbortSignal => new AbortController().signal;

async function rejection(promise: Promise<unknown>): Promise<GrpcError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof GrpcError) return error;
    throw error;
  }
  throw new Error("expected a GrpcError");
}

describe("Scanner", () => {
  it("answers the indexes of the matching candidates", async () => {
    expect(await scanner.scan(idMatch("^s-[0-9]+$", ["s-1", "t-2", "s-x", "s-30"]), live())).toEqual([0, 3]);
  });

  it("tests tag filters against the encoded jobs", async () => {
    const jobs = [simpleJob("a", { tags: { env: "prod" } }), simpleJob("b", { tags: { env: "dev" } }), simpleJob("c")];
    const request = create(JobSearchRequestSchema, { jobFilter: [{ jobFilter: { case: "tagFilter", value: { tagName: "env", comparison: { case: "re", value: "^pr" } } } }] });
    const task: ScanTask = { request: toBinary(JobSearchRequestSchema, request), ids: ["a", "b", "c"], jobs: jobs.map((job) => toBinary(JobSchema, job)) };
    expect(await scanner.scan(task, live())).toEqual([0]);
  });

  it("fails with the filters' INVALID_ARGUMENT for a pattern RE2 cannot run", async () => {
    const error = await rejection(scanner.scan(idMatch("(a)\\1", ["a"]), live()));
    expect([Code[error.code], error.details]).toEqual([
      "INVALID_ARGUMENT",
      "id_filter.re: invalid regular expression (RE2 syntax: no backreferences or lookaround): error parsing regexp: invalid escape sequence: `\\1`",
    ]);
  });

  it("runs scans one at a time, in arrival order", async () => {
    const order: number[] = [];
    const scans = [0, 1, 2].map((n) => scanner.scan(idMatch(`^${n}$`, ["0", "1", "2"]), live()).then((matched) => order.push(n) && matched));
    expect(await Promise.all(scans)).toEqual([[0], [1], [2]]);
    expect(order).toEqual([0, 1, 2]);
  });

  it("stops a running scan whose call ends, and runs the next on a new worker", async () => {
    const call = new AbortController();
    const slow = scanner.scan(SLOW, call.signal);
    const next = scanner.scan(idMatch("b", ["a", "b"]), live());
    setTimeout(() => {
      call.abort();
    }, 200);
    const error = await rejection(slow);
    expect([Code[error.code], error.details]).toEqual(["CANCELLED", "the search was cancelled"]);
    expect(await next).toEqual([1]);
  }, 15_000);

  it("drops a waiting scan whose call ends; the others run", async () => {
    const waiting = new AbortController();
    const first = scanner.scan(idMatch("a", ["a"]), live());
    const dropped = scanner.scan(idMatch("a", ["a"]), waiting.signal);
    const last = scanner.scan(idMatch("c", ["c"]), live());
    waiting.abort();
    expect(Code[(await rejection(dropped)).code]).toBe("CANCELLED");
    expect(await first).toEqual([0]);
    expect(await last).toEqual([0]);
  });

  it("refuses a scan whose call has already ended", async () => {
    const ended = new AbortController();
    ended.abort();
    expect(Code[(await rejection(scanner.scan(idMatch("a", ["a"]), ended.signal))).code]).toBe("CANCELLED");
  });

  it("fails what is running or waiting with UNAVAILABLE when closed, and refuses new scans", async () => {
    const scanner = new Scanner();
    const running = rejection(scanner.scan(SLOW, live()));
    const waiting = rejection(scanner.scan(idMatch("a", ["a"]), live()));
    await new Promise((resolve) => setTimeout(resolve, 100));
    await scanner.close();
    const errors = await Promise.all([running, waiting, rejection(scanner.scan(idMatch("a", ["a"]), live()))]);
    expect(errors.map((e) => [Code[e.code], e.details])).toEqual([
      ["UNAVAILABLE", "the manager is shutting down"],
      ["UNAVAILABLE", "the manager is shutting down"],
      ["UNAVAILABLE", "the manager is shutting down"],
    ]);
  }, 15_000);
});
