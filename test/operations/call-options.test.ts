// The options of a request's gRPC calls: the unary and the stream form, each from the request's
// checked headers and the route's deadlines (src/operations/call-options.ts).
import Fastify from "fastify";
import type { FastifyReply, FastifyRequest } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deadlinesOf, streamCallOptions, unaryCallOptions } from "../../src/operations/call-options.js";
import { ProblemError } from "../../src/http/problem.js";

const TIMEOUT_MESSAGE = "must be 1 to 8 digits and a unit (H, M, S, m, u, n), e.g. 500m";

describe("unaryCallOptions", () => {
  const app = Fastify();
  // What a route's calls get, or the problem the request is refused with.
  app.get("/", (request, reply) => {
    try {
      const { timeoutMs, metadata } = unaryCallOptions(request, reply, 1_000);
      return { timeoutMs, metadata, requestId: request.id };
    } catch (error) {
      if (!(error instanceof ProblemError)) throw error;
      return { status: error.status, detail: error.detail, errors: error.errors };
    }
  });
  beforeAll(async () => {
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
  });

  const call = async (headers: Record<string, string>) => (await app.inject({ method: "GET", url: "/", headers })).json<Record<string, unknown>>();

  it("gives every call the route's deadline when there is no Grpc-Timeout, and the request's id", async () => {
    const options = await call({});
    expect(options).toMatchObject({ timeoutMs: 1_000 });
    expect(options.metadata).toEqual({ "x-request-id": options.requestId });
  });

  it.each([
    ["500m", 500],
    ["5S", 1_000],
    ["1000m", 1_000],
  ])("lets a Grpc-Timeout of %s shorten the deadline, never lengthen it: %i ms", async (value, ms) => {
    expect(await call({ "grpc-timeout": value })).toMatchObject({ timeoutMs: ms });
  });

  it("refuses a malformed Grpc-Timeout with a 400 naming it and the form it must have", async () => {
    expect(await call({ "grpc-timeout": "5" })).toEqual({
      status: 400,
      detail: "the request headers are invalid",
      errors: [{ header: "grpc-timeout", message: TIMEOUT_MESSAGE }],
    });
  });

  it("lists a malformed Grpc-Timeout and unusable metadata in one 400", async () => {
    expect(await call({ "grpc-timeout": "soon", "grpc-metadata-a!b": "x" })).toEqual({
      status: 400,
      detail: "the request headers are invalid",
      errors: [
        { header: "grpc-timeout", message: TIMEOUT_MESSAGE },
        { header: "grpc-metadata-a!b", message: "is not a valid gRPC metadata key (letters, digits, '-', '_' and '.' only)" },
      ],
    });
  });
});

/** An app answering with the options `make` gives its request, or the problem it is refused with. */
function optionsApp(make: (request: FastifyRequest, reply: FastifyReply) => object) {
  const app = Fastify();
  app.get("/", (request, reply) => {
    try {
      return make(request, reply);
    } catch (error) {
      if (!(error instanceof ProblemError)) throw error;
      return { status: error.status, detail: error.detail, errors: error.errors };
    }
  });
  return app;
}

describe("deadlines", () => {
  const unary = optionsApp((request, reply) => {
    const { timeoutMs, metadata, idleTimeoutMs } = unaryCallOptions(request, reply, 10_000);
    return { timeoutMs, metadata, idle: idleTimeoutMs ?? "none" };
  });
  const stream = optionsApp((request, reply) => {
    const { timeoutMs, idleTimeoutMs } = streamCallOptions(request, reply, { requestTimeoutMs: 10_000, maxRequestTimeoutMs: 300_000 });
    // JSON has no Infinity: a total deadline of none is answered as null.
    return { timeoutMs: Number.isFinite(timeoutMs) ? timeoutMs : null, idleTimeoutMs };
  });
  beforeAll(async () => {
    await Promise.all([unary.ready(), stream.ready()]);
  });
  afterAll(async () => {
    await Promise.all([unary.close(), stream.close()]);
  });
  const answer = async (app: ReturnType<typeof optionsApp>, headers: Record<string, string>) =>
    (await app.inject({ method: "GET", url: "/", headers })).json<Record<string, unknown>>();

  it.each([
    [undefined, 10_000],
    ["500m", 500],
    ["60S", 10_000],
  ])("a call answered in one piece, with Grpc-Timeout %j: deadline %i ms, no idle bound", async (header, timeoutMs) => {
    expect(await answer(unary, header === undefined ? {} : { "grpc-timeout": header })).toMatchObject({ timeoutMs, idle: "none" });
  });

  it("forwards the allow-listed headers and the request id as a call's metadata", async () => {
    const { metadata } = await answer(unary, { authorization: "Bearer t", cookie: "c=1", "x-request-id": "r-1" });
    expect(metadata).toEqual({ authorization: "Bearer t", "x-request-id": expect.any(String) as unknown });
  });

  it.each([
    [undefined, null],
    ["500m", 500],
    ["60S", 60_000],
    ["300S", 300_000],
    ["1H", 300_000],
  ])("a list or stream, with Grpc-Timeout %j: total deadline %j ms, each wait the request timeout", async (header, timeoutMs) => {
    expect(await answer(stream, header === undefined ? {} : { "grpc-timeout": header })).toEqual({ timeoutMs, idleTimeoutMs: 10_000 });
  });

  it("refuses a list's malformed Grpc-Timeout with the same 400 as a call's", async () => {
    expect(await answer(stream, { "grpc-timeout": "5" })).toEqual({
      status: 400,
      detail: "the request headers are invalid",
      errors: [{ header: "grpc-timeout", message: TIMEOUT_MESSAGE }],
    });
  });

  it("lets no Grpc-Timeout lengthen anything when a plugin is given no maximum", () => {
    expect(deadlinesOf({ requestTimeoutMs: 2_000 })).toEqual({ requestTimeoutMs: 2_000, maxRequestTimeoutMs: 2_000 });
    expect(deadlinesOf({ requestTimeoutMs: 2_000, maxRequestTimeoutMs: 9_000 })).toEqual({ requestTimeoutMs: 2_000, maxRequestTimeoutMs: 9_000 });
  });
});
