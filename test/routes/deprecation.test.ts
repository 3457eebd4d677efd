// Deprecating an operation in one place (src/http/deprecation.ts): a route declared with
// `deprecated({ since, sunset, link })` in its config is `deprecated: true` in the document,
// and every answer of it (a success, its own Link kept, a refusal before the handler, a
// problem) carries Deprecation (RFC 9745), Sunset (RFC 8594) and Link rel="deprecation",
// exposed to pages of a CORS origin. No route is deprecated today, so the test adds one, declared
// as a real route is; then it walks every operation of the document: deprecated there exactly
// when its answers carry the headers.
import { Readable } from "node:stream";
import { Type } from "@sinclair/typebox";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeys } from "../../src/auth/api-keys.js";
import { needs } from "../../src/auth/scopes.js";
import { deprecated } from "../../src/http/deprecation.js";
import { problem } from "../../src/http/problem.js";
import { errorResponses, jsonResponse } from "../../src/http/responses.js";
import { operationsOf } from "../../src/openapi/document.js";
import type { OpenApiDocument } from "../../src/openapi/document.js";
import { gatewayTo } from "../helpers/gateway.js";
import type { GatewayUnderTest } from "../helpers/gateway.js";
import { apiKeysFile } from "../helpers/api-keys-file.js";
import type { ApiKeysFile } from "../helpers/api-keys-file.js";

const SINCE = new Date("2027-01-01T00:00:00Z");
const SUNSET = new Date("2027-07-01T00:00:00Z");
const LINK = "https://docs.example/norsk-manager-gateway/deprecations#old-thing";
const KEY = "k-deprecation-reader-5e1f0a9c3b7d";
const ORIGIN = "https://app.example";
const PATH = "/v1/old-things";

/** The headers every answer of the deprecated route carries. */
const EXPECTED = {
  deprecation: `@${String(SINCE.getTime() / 1000)}`,
  sunset: "Thu, 01 Jul 2027 00:00:00 GMT",
  link: `<${LINK}>; rel="deprecation"`,
};

/** A deprecated route, declared as the real routes are (src/routes). */
function addDeprecatedRoute(app: FastifyInstance): void {
  const OLD_THING = {
    config: { ...needs("jobs:read"), ...deprecated({ since: SINCE, sunset: SUNSET, link: LINK }) },
    schema: {
      operationId: "oldThing",
      tags: ["jobs"],
      summary: "Read an old thing",
      description: "An operation kept for old clients.",
      params: Type.Object({ thingId: Type.String({ maxLength: 8 }) }),
      response: { 200: jsonResponse(Type.Object({ thingId: Type.String() }), "OK: the thing."), ...errorResponses("INVALID_ARGUMENT", "NOT_FOUND") },
    },
  };
  app.get<{ Params: { thingId: string } }>(`${PATH}/:thingId`, OLD_THING, async function oldThing(request, reply) {
    const { thingId } = request.params;
    if (thingId === "gone") throw problem("NOT_FOUND", `thing ${JSON.stringify(thingId)} does not exist`);
    // An answer with a Link of its own, as a search's page has.
    if (thingId === "paged") void reply.header("link", `<${PATH}/next>; rel="next"`);
    // A streamed answer, as an event stream's is.
    if (thingId === "stream") return reply.type("application/x-ndjson").send(Readable.from([`${JSON.stringify({ thingId })}\n`]));
    return reply.send({ thingId });
  });
}

describe("deprecated()", () => {
  it("makes RFC 9745's Deprecation, RFC 8594's Sunset (IMF-fixdate) and Link rel=deprecation", () => {
    const { headers } = deprecated({ since: new Date("2026-12-06T21:30:15.900Z"), sunset: new Date("2027-03-09T08:07:06Z"), link: LINK }).deprecated;
    expect(headers).toEqual({ deprecation: "@1796592615", sunset: "Tue, 09 Mar 2027 08:07:06 GMT", link: `<${LINK}>; rel="deprecation"` });
    expect(deprecated({ since: SINCE, sunset: SUNSET }).deprecated.headers).not.toHaveProperty("link");
  });

  it.each([
    ["a sunset before the deprecation", { since: SUNSET, sunset: SINCE }],
    ["an invalid date", { since: new Date("not a date"), sunset: SUNSET }],
    ["a link that is not an absolute URL", { since: SINCE, sunset: SUNSET, link: "/docs/old" }],
    ["a link that is not http(s)", { since: SINCE, sunset: SUNSET, link: "mailto:api@example.com" }],
  ])("refuses %s", (_name, deprecation) => {
    expect(() => deprecated(deprecation)).toThrow();
  });
});

describe("a deprecated route", () => {
  let keys: ApiKeysFile;
  let gateway: GatewayUnderTest;
  let app: FastifyInstance;
  let document: OpenApiDocument;

  beforeAll(async () => {
    keys = await apiKeysFile([{ name: "reader", key: KEY, scopes: ["jobs:read", "nodes:read", "events:read"] }]);
    // A Manager that is never reached: each real operation still answers (a 503 from it, or a refusal).
    gateway = await gatewayTo("127.0.0.1:1", { access: { apiKeys: new ApiKeys(keys.file) }, corsOrigins: [ORIGIN], beforeListen: addDeprecatedRoute });
    ({ app } = gateway);
    await app.ready();
    document = app.swagger() as unknown as OpenApiDocument;
  });

  afterAll(async () => {
    await gateway.close();
    await keys.remove();
  });

  const withKey = { "x-api-key": KEY };

  it("is deprecated: true in the document, its description saying since when, until when, and where to read", () => {
    const operation = document.paths?.[`${PATH}/{thingId}`]?.get;
    expect(operation?.deprecated).toBe(true);
    expect(operation?.description).toBe(`An operation kept for old clients. Deprecated since 2027-01-01 (the Deprecation header); it may stop answering after 2027-07-01 (Sunset). See ${LINK}.`);
  });

  it.each([
    ["a success", { url: `${PATH}/a`, headers: withKey }, 200],
    ["a HEAD", { method: "HEAD" as const, url: `${PATH}/a`, headers: withKey }, 200],
    ["a streamed answer", { url: `${PATH}/stream`, headers: withKey }, 200],
    ["the handler's problem", { url: `${PATH}/gone`, headers: withKey }, 404],
    ["a refused parameter", { url: `${PATH}/much-too-long`, headers: withKey }, 400],
    ["a refusal of credentials", { url: `${PATH}/a` }, 401],
    ["a refused Accept", { url: `${PATH}/a`, headers: { ...withKey, accept: "text/csv" } }, 406],
  ])("carries Deprecation, Sunset and Link on %s", async (_name, request, status) => {
    const res = await app.inject(request);
    expect(res.statusCode).toBe(status);
    expect(res.headers).toMatchObject(EXPECTED);
  });

  it("adds its Link to the one the operation sends", async () => {
    const res = await app.inject({ url: `${PATH}/paged`, headers: withKey });
    expect(res.statusCode).toBe(200);
    expect(res.headers.link).toBe(`<${PATH}/next>; rel="next", ${EXPECTED.link}`);
  });

  it("exposes the headers to a page of a CORS origin", async () => {
    const res = await app.inject({ url: `${PATH}/a`, headers: { ...withKey, origin: ORIGIN } });
    expect(res.headers).toMatchObject(EXPECTED);
    const exposed = String(res.headers["access-control-expose-headers"]).split(", ");
    expect(exposed).toEqual(expect.arrayContaining(["Deprecation", "Sunset", "Link"]));
  });

  it("every operation: deprecated in the document exactly when its answers carry Deprecation and Sunset", async () => {
    const operations = operationsOf(document);
    expect(operations.some(({ operation }) => operation.deprecated === true)).toBe(true);
    for (const { path, method, operation } of operations) {
      const url = path.replaceAll(/\{[^}]+\}/g, "x");
      const res = await app.inject({ method: method.toUpperCase() as "GET", url, headers: withKey });
      const name = `${method.toUpperCase()} ${path} (answered ${String(res.statusCode)})`;
      const isDeprecated = operation.deprecated === true;
      expect(res.headers.deprecation !== undefined, name).toBe(isDeprecated);
      expect(res.headers.sunset !== undefined, name).toBe(isDeprecated);
      expect(String(res.headers.link ?? "").includes('rel="deprecation"'), name).toBe(isDeprecated);
    }
  }, 60_000);
});
