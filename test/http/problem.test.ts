import { describe, expect, it } from "vitest";
import { Metadata, status as Code } from "@grpc/grpc-js";
import { GrpcError } from "norsk-manager-contract/grpc/errors.js";
import { MAX_LISTED_ISSUES, MirrorError } from "../../src/json/errors.js";
import {
  PROBLEM_CONTENT_TYPE,
  ProblemError,
  aborted,
  alreadyExists,
  deadlineExceeded,
  invalidArgument,
  notFound,
  notFoundAs,
  preconditionFailed,
  problem,
  resourceExhausted,
  toProblem,
  unavailable,
  unsupportedMediaType,
} from "../../src/http/problem.js";

const request = { id: "req-1", url: "/v1/jobs/a?x=1" };
/** The gateway's own 500 for `request`, which says nothing of its cause. */
const GATEWAY_500 = {
  type: "about:blank",
  title: "Internal Server Error",
  status: 500,
  detail: "internal error; the request id identifies it in the gateway's log",
  instance: "/v1/jobs/a?x=1",
  requestId: "req-1",
};

describe("toProblem", () => {
  it("lists MAX_LISTED_ISSUES errors at most, whoever made the list, and counts the rest with the maker's own", () => {
    const items = Array.from({ length: 250 }, (_, i) => ({ pointer: `/${i}`, message: "is wrong" }));
    const answer = toProblem(invalidArgument("bad", { errors: items, errorsNotListed: 7 }), request);
    expect(answer.errors).toEqual(items.slice(0, MAX_LISTED_ISSUES));
    expect(answer.errorsNotListed).toBe(250 - MAX_LISTED_ISSUES + 7);
    const mirror = toProblem(new MirrorError(items, 3), request);
    expect(mirror.errors).toHaveLength(MAX_LISTED_ISSUES);
    expect(mirror.errorsNotListed).toBe(250 - MAX_LISTED_ISSUES + 3);
    expect(toProblem(invalidArgument("bad", { errors: items.slice(0, 2) }), request)).not.toHaveProperty("errorsNotListed");
  });

  it.each([
    [new GrpcError(Code.NOT_FOUND, "job a not found"), 404, "NOT_FOUND", "job a not found"],
    [new GrpcError(Code.ALREADY_EXISTS, "exists"), 409, "ALREADY_EXISTS", "exists"],
    [new GrpcError(Code.INVALID_ARGUMENT, "id_filter.re: bad"), 400, "INVALID_ARGUMENT", "id_filter.re: bad"],
    [new GrpcError(Code.FAILED_PRECONDITION, "job is complete"), 400, "FAILED_PRECONDITION", "job is complete"],
    [new GrpcError(Code.ABORTED, "hash moved"), 409, "ABORTED", "hash moved"],
    [preconditionFailed("precondition failed"), 412, "ABORTED", "precondition failed"],
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
    const withItems = toProblem(invalidArgument("bad", { errors: [{ pointer: "/jobId", message: "is required" }] }), request);
    expect(withItems.errors).toEqual([{ pointer: "/jobId", message: "is required" }]);
    expect(toProblem(invalidArgument("bad", { errors: [] }), request)).not.toHaveProperty("errors");
  });

  it.each([17, 99])("answers the gRPC status %i, which has no name, as UNKNOWN: a 500", (code) => {
    // As grpc-js delivers it: a ServiceError carrying the number the Manager sent.
    const serviceError = Object.assign(new Error("from a newer Manager"), { code, details: "from a newer Manager", metadata: new Metadata() });
    expect(toProblem(GrpcError.from(serviceError), request)).toEqual({ ...GATEWAY_500, code: "UNKNOWN" });
  });

  it("answers an error whose status is not an error status (a Manager's OK) as a 500", () => {
    expect(toProblem(new GrpcError(Code.OK, "fine?"), request)).toMatchObject({ status: 500, title: "Internal Server Error" });
  });

  it("words fastify's client errors itself, never quoting the request", () => {
    const error = Object.assign(new Error("Unsupported Media Type: text/<script>"), { statusCode: 415, code: "FST_ERR_CTP_INVALID_MEDIA_TYPE" });
    expect(toProblem(error, request)).toEqual({
      type: "about:blank",
      title: "Unsupported Media Type",
      status: 415,
      detail: "the request body's media type is not supported",
      instance: "/v1/jobs/a?x=1",
      requestId: "req-1",
      errors: [{ header: "content-type", message: "is not a media type this gateway reads" }],
    });
    const unknown = Object.assign(new Error("'/v1/<script>' is odd"), { statusCode: 400, code: "FST_ERR_SOMETHING_NEW" });
    expect(toProblem(unknown, request)).toMatchObject({ status: 400, detail: "the request cannot be served" });
  });
});

describe("toProblem, for fastify's own errors", () => {
  const fastifyError = (statusCode: number, code: string): Error => Object.assign(new Error(`${code}: /v1/<script>`), { statusCode, code });

  it.each([
    [413, "FST_ERR_CTP_BODY_TOO_LARGE", "the request body is too large", undefined],
    [400, "FST_ERR_CTP_INVALID_CONTENT_LENGTH", "the request body's length does not match its Content-Length", [{ header: "content-length", message: "does not match the body's length" }]],
    [400, "FST_ERR_BAD_URL", "the URL's path is not valid percent-encoded UTF-8", undefined],
    [414, "FST_ERR_MAX_PARAM_LENGTH", "a segment of the URL's path is too long", undefined],
    [404, "FST_ERR_NOT_FOUND", "no route matches the method and path", undefined],
  ])("answers %i %s in the gateway's own words, word for word", (status, code, detail, errors) => {
    const problem = toProblem(fastifyError(status, code), request);
    expect(problem.status).toBe(status);
    expect(problem.detail).toBe(detail);
    expect(problem.errors).toEqual(errors);
  });

  it.each([500, 503, 302])("answers a fastify error of status %i, which is no client error, as the gateway's bare 500", (status) => {
    expect(toProblem(fastifyError(status, "FST_ERR_SOMETHING"), request)).toEqual(GATEWAY_500);
  });
});

describe("PROBLEM_CONTENT_TYPE", () => {
  it("is RFC 9457's media type of a problem", () => {
    expect(PROBLEM_CONTENT_TYPE).toBe("application/problem+json");
  });
});

describe("toProblem, for what fastify and the mirror throw", () => {
  it("answers a body the mirror refused as a 400 listing each place", () => {
    const error = new MirrorError([
      { pointer: "/jobId", message: "is required" },
      { pointer: "/tags/a", message: "must be a string, not the number 1" },
    ]);
    expect(toProblem(error, request)).toEqual({
      type: "about:blank",
      title: "Bad Request",
      status: 400,
      detail: "the request body is invalid",
      instance: "/v1/jobs/a?x=1",
      requestId: "req-1",
      code: "INVALID_ARGUMENT",
      errors: [
        { pointer: "/jobId", message: "is required" },
        { pointer: "/tags/a", message: "must be a string, not the number 1" },
      ],
    });
  });

  it.each([
    ["the query string is invalid", "querystring", { parameter: "limit", message: "must be integer" }],
    ["the path parameters are invalid", "params", { parameter: "limit", message: "must be integer" }],
    ["the request headers are invalid", "headers", { header: "limit", message: "must be integer" }],
    ["the request body is invalid", "body", { pointer: "/limit", message: "must be integer" }],
    ["the request body is invalid", undefined, { pointer: "/limit", message: "must be integer" }],
  ] as const)("says %j of fastify's validation error of the %s, and locates it", (detail, part, item) => {
    const validation = [{ keyword: "type", instancePath: "/limit", schemaPath: "#/properties/limit/type", params: { type: "integer" }, message: "must be integer" }];
    const error = Object.assign(new Error("querystring/limit must be integer"), { statusCode: 400, code: "FST_ERR_VALIDATION", validation, validationContext: part });
    expect(toProblem(error, request)).toMatchObject({ status: 400, code: "INVALID_ARGUMENT", detail, errors: [item] });
  });

  it.each([
    ["a non-Error with a statusCode", { statusCode: 404, message: "not found" }],
    ["an Error whose statusCode is not a number", Object.assign(new Error("odd"), { statusCode: "404" })],
    ["fastify's error with a 5xx status", Object.assign(new Error("db down at 10.0.0.7"), { statusCode: 503, code: "FST_ERR_X" })],
    ["fastify's error with a status that is no error", Object.assign(new Error("moved"), { statusCode: 302, code: "FST_ERR_X" })],
  ])("answers %s as the gateway's own 500", (_name, error) => {
    expect(toProblem(error, request)).toEqual(GATEWAY_500);
  });

  it("titles a status HTTP has no reason phrase for (499, the client went away) \"Error\"", () => {
    expect(toProblem(new GrpcError(Code.CANCELLED, "Cancelled on client"), request)).toMatchObject({ title: "Error", status: 499, code: "CANCELLED" });
  });
});

describe("notFoundAs", () => {
  it("turns the Manager's NOT_FOUND into a 404 saying the route's own words", () => {
    expect(() => notFoundAs('job "a" does not exist')(new GrpcError(Code.NOT_FOUND, "no row a"))).toThrow(
      expect.objectContaining({ name: "ProblemError", status: 404, code: "NOT_FOUND", detail: 'job "a" does not exist' }),
    );
  });

  it.each([new GrpcError(Code.UNAVAILABLE, "down"), new Error("other")])("lets any other failure through as it is: %s", (error) => {
    expect(() => notFoundAs("unused")(error)).toThrow(error);
  });
});

describe("the problem factories", () => {
  it.each([
    [invalidArgument, 400, "INVALID_ARGUMENT"],
    [notFound, 404, "NOT_FOUND"],
    [alreadyExists, 409, "ALREADY_EXISTS"],
    [aborted, 409, "ABORTED"],
    [preconditionFailed, 412, "ABORTED"],
    [resourceExhausted, 429, "RESOURCE_EXHAUSTED"],
    [unavailable, 503, "UNAVAILABLE"],
    [deadlineExceeded, 504, "DEADLINE_EXCEEDED"],
    [unsupportedMediaType, 415, undefined],
  ] as const)("%o answers with %i and code %s, from the table", (factory, status, code) => {
    const error = factory("what went wrong", { errors: [{ header: "x", message: "is wrong" }] });
    expect(error).toMatchObject({ status, code, detail: "what went wrong", errors: [{ header: "x", message: "is wrong" }] });
  });

  it("answers the gateway's overload as a 503 UNAVAILABLE that blames the gateway, not the Manager, and says nothing of why", () => {
    const answer = toProblem(problem("OVERLOADED", "event loop delay 1200 ms"), request);
    expect(answer).toMatchObject({ status: 503, title: "Service Unavailable", code: "UNAVAILABLE", detail: "the gateway is overloaded; try again after the Retry-After delay" });
    expect(toProblem(unavailable("down"), request).detail).toBe("the Manager is unavailable; try again later");
  });

  it.each([
    ["MISDIRECTED_REQUEST", 421],
    ["FORBIDDEN", 403],
    ["ROUTE_NOT_FOUND", 404],
  ] as const)("names HTTP's own reason %s (%i), which has no code", (failure, status) => {
    const answer = toProblem(problem(failure, "refused"), request);
    expect(answer.status).toBe(status);
    expect(answer).not.toHaveProperty("code");
  });

  it.each([
    preconditionFailed("stale", { errors: [{ header: "if-match", message: "is stale" }] }),
    invalidArgument("bad"),
    new GrpcError(Code.FAILED_PRECONDITION, "job is complete"),
    new GrpcError(Code.UNAVAILABLE, "down"),
    problem("OVERLOADED", "event loop delay 1200 ms"),
    new Error("secret"),
  ])("makes from a problem an error answered as that problem again: %s", (error) => {
    const first = toProblem(error, request);
    expect(toProblem(ProblemError.answering(first), request)).toEqual(first);
  });

  it("answers a problem again with its own 5xx detail, not the one its status and code usually say", () => {
    // The events route's shutdown problem: a 503 UNAVAILABLE that is neither the Manager's nor the overload's.
    const first = { ...toProblem(problem("UNAVAILABLE", ""), request), detail: "the gateway is shutting down; reconnect" };
    expect(toProblem(ProblemError.answering(first), request)).toEqual(first);
  });
});
