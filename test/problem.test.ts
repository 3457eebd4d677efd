import { describe, expect, it } from "vitest";
import { status as Code } from "@grpc/grpc-js";
import { GrpcError } from "../src/grpc/errors.js";
import { ProblemError, toProblem } from "../src/problem.js";

const request = { id: "req-1", url: "/v1/jobs/a?x=1" };

describe("toProblem", () => {
  it.each([
    [new GrpcError(Code.NOT_FOUND, "job a not found"), 404, "NOT_FOUND", "job a not found"],
    [new GrpcError(Code.ALREADY_EXISTS, "exists"), 409, "ALREADY_EXISTS", "exists"],
    [new GrpcError(Code.INVALID_ARGUMENT, "id_filter.re: bad"), 400, "INVALID_ARGUMENT", "id_filter.re: bad"],
    [new GrpcError(Code.FAILED_PRECONDITION, "job is complete"), 400, "FAILED_PRECONDITION", "job is complete"],
    [new GrpcError(Code.ABORTED, "hash moved"), 409, "ABORTED", "hash moved"],
    [new ProblemError(412, "precondition failed", undefined, "ABORTED"), 412, "ABORTED", "precondition failed"],
  ])("answers %s with its status, code and message", (error, status, code, detail) => {
    const problem = toProblem(error, request);
    expect(problem).toMatchObject({ type: "about:blank", status, code, detail, instance: "/v1/jobs/a?x=1", requestId: "req-1" });
    expect(problem.title.length).toBeGreaterThan(0);
  });

  it.each([
    [new GrpcError(Code.INTERNAL, "panic at /srv/manager/store.go:12 (10.0.0.7:6790)"), 500, "INTERNAL"],
    [new GrpcError(Code.UNAVAILABLE, "connect ECONNREFUSED 127.0.0.1:6790"), 503, "UNAVAILABLE"],
    [new GrpcError(Code.DEADLINE_EXCEEDED, "Deadline exceeded after 10.001s,LB pick: 0.001s"), 504, "DEADLINE_EXCEEDED"],
    [new GrpcError(Code.UNKNOWN, "TypeError: x is undefined at /srv/a.js:1"), 500, "UNKNOWN"],
  ])("keeps the internals of %s out of a 5xx", (error, status, code) => {
    const problem = toProblem(error, request);
    expect(problem.status).toBe(status);
    expect(problem.code).toBe(code);
    expect(problem.detail).not.toMatch(/127\.0\.0\.1|10\.0\.0\.7|\/srv\/|ECONNREFUSED|TypeError|LB pick/);
  });

  it("answers an unknown thrown value as a bare 500", () => {
    const problem = toProblem(new Error("secret: /etc/passwd"), request);
    expect(problem.status).toBe(500);
    expect(problem.detail).not.toContain("secret");
    expect(problem.code).toBeUndefined();
  });

  it("keeps validation items and omits an empty list", () => {
    const withItems = toProblem(new ProblemError(400, "bad", [{ pointer: "/jobId", message: "is required" }]), request);
    expect(withItems.errors).toEqual([{ pointer: "/jobId", message: "is required" }]);
    expect(toProblem(new ProblemError(400, "bad", []), request)).not.toHaveProperty("errors");
  });
});
