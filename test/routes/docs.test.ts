// The document as it is served: compressed with brotli or gzip as the client asks (and the same
// document once decompressed), with a weak ETag shared by every coding, Cache-Control: no-cache
// and Vary: Accept-Encoding, and a 304 without a body for a matching If-None-Match; at
// /openapi.json and /openapi.yaml, and its view for Swagger UI (src/openapi/ui-view.ts) at
// Swagger UI's own /docs/json and /docs/yaml. Swagger UI's page is the gateway's: its title
// made from the document's, its logo, no top bar.
import { readFileSync } from "node:fs";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gatewayTo } from "../helpers/gateway.js";
import type { GatewayUnderTest } from "../helpers/gateway.js";
import { uiView } from "../../src/openapi/ui-view.js";
import { documentYaml } from "../../src/openapi/yaml.js";
import type { OpenApiDocument } from "../../src/openapi/document.js";
import { LOGO_SVG } from "../../src/routes/docs-theme.js";

const YAML_TEXT = readFileSync("openapi.yaml", "utf8");

let gateway: GatewayUnderTest;
let app: FastifyInstance;

beforeAll(async () => {
  // A Manager that is never called: the docs are the gateway's own.
  gateway = await gatewayTo("127.0.0.1:1");
  ({ app } = gateway);
});

afterAll(async () => {
  await gateway.close();
});

function decoded(body: Buffer, coding: string | undefined): string {
  if (coding === "br") return brotliDecompressSync(body).toString("utf8");
  if (coding === "gzip") return gunzipSync(body).toString("utf8");
  return body.toString("utf8");
}

const view = (): OpenApiDocument => uiView(app.swagger());

describe.each([
  ["/openapi.json", "application/json", (): string => JSON.stringify(app.swagger())],
  ["/docs/json", "application/json", (): string => JSON.stringify(view())],
  ["/openapi.yaml", "application/yaml", (): string => YAML_TEXT],
  ["/docs/yaml", "application/yaml", (): string => documentYaml(view())],
])("%s", (url, type, expected) => {
  it.each([
    ["gzip, deflate, br", "br"],
    ["gzip", "gzip"],
    [undefined, undefined],
  ])("Accept-Encoding %j: sent as %s, the same document once decoded", async (acceptEncoding, coding) => {
    const res = await app.inject({ url, headers: acceptEncoding === undefined ? {} : { "accept-encoding": acceptEncoding } });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toMatch(new RegExp(`^${type}; charset=utf-8`));
    expect(res.headers["content-encoding"]).toBe(coding);
    expect(res.headers.vary).toBe("accept-encoding");
    expect(res.headers["cache-control"]).toBe("no-cache");
    expect(Number(res.headers["content-length"])).toBe(res.rawPayload.length);
    expect(decoded(res.rawPayload, coding)).toBe(expected());
    if (coding !== undefined) expect(res.rawPayload.length).toBeLessThan(Buffer.byteLength(expected()) / 5);
  });

  it("has one weak ETag for every coding; If-None-Match with it (or *) is a 304 without a body", async () => {
    const br = await app.inject({ url, headers: { "accept-encoding": "br" } });
    const plain = await app.inject({ url });
    const etag = String(br.headers.etag);
    expect(etag).toMatch(/^W\/"[A-Za-z0-9_-]{27}"$/);
    expect(plain.headers.etag).toBe(etag);
    for (const ifNoneMatch of [etag, etag.slice(2), `"other", ${etag}`, "*"]) {
      const res = await app.inject({ url, headers: { "if-none-match": ifNoneMatch, "accept-encoding": "gzip" } });
      expect(res.statusCode, ifNoneMatch).toBe(304);
      expect(res.body).toBe("");
      expect(res.headers.etag).toBe(etag);
      expect(res.headers["content-encoding"]).toBeUndefined();
    }
    expect((await app.inject({ url, headers: { "if-none-match": '"other"' } })).statusCode).toBe(200);
  });

  it("answers HEAD with the headers of GET and no body", async () => {
    const res = await app.inject({ method: "HEAD", url, headers: { "accept-encoding": "gzip" } });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-encoding"]).toBe("gzip");
    expect(res.body).toBe("");
  });
});

describe("Swagger UI's page", () => {
  it("is titled after the document, and pre-fills no request id", async () => {
    const page = await app.inject("/docs");
    expect(page.body).toContain("<title>Norsk Manager Gateway — API</title>");
    const document = app.swagger() as unknown as { info: { title: string }; components: { parameters: { XRequestId: Record<string, unknown> } } };
    expect(document.info.title).toBe("Norsk Manager Gateway");
    expect(document.components.parameters.XRequestId).not.toHaveProperty("example");
    expect(document.components.parameters.XRequestId).not.toHaveProperty("examples");
  });
});

describe("Swagger UI's page as the gateway's own", () => {
  it("has no top bar, and sends the gateway's logo (as its icon and beside the title), no other", async () => {
    const page = (await app.inject("/docs")).body;
    const initializer = (await app.inject("/docs/static/swagger-initializer.js")).body;
    expect(initializer).toMatch(/"layout":\s*"BaseLayout"/);
    // The initializer carries a logo only for a top bar; the one it carries is the gateway's.
    const fastifyLogo = readFileSync("node_modules/@fastify/swagger-ui/static/logo.svg").toString("base64");
    expect(initializer).not.toContain(fastifyLogo);
    expect(page).not.toContain("favicon-32x32.png");
    expect(page).toMatch(/<link rel="icon" type="image\/svg\+xml" href="[^"]*\/theme\/logo\.svg"/);
    const logo = await app.inject("/docs/static/theme/logo.svg");
    expect(logo.statusCode).toBe(200);
    expect(logo.headers["content-type"]).toBe("image/svg+xml");
    expect(logo.body).toBe(LOGO_SVG);
    const stylesheet = page.match(/href="([^"]*\/theme\/[^"]+\.css)"/)?.[1] ?? "";
    const css = await app.inject(stylesheet.startsWith("/") ? stylesheet : `/docs/${stylesheet}`);
    expect(css.statusCode).toBe(200);
    expect(css.body).toMatch(/\.info \.title::before \{[^}]*url\("logo\.svg"\)/);
  });
});
