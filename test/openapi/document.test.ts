// openapi.yaml: current (what the app generates), served, valid, lint-clean, and faithful to
// what the gateway does. The per-operation checks iterate over the document, so routes added
// later are held to the same rules without touching this file.
import { readFileSync } from "node:fs";
import SwaggerParser from "@apidevtools/swagger-parser";
import { lint, loadConfig } from "@redocly/openapi-core";
import type { FastifyInstance } from "fastify";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gatewayTo } from "../helpers/gateway.js";
import type { GatewayUnderTest } from "../helpers/gateway.js";
import { generateOpenApiYaml } from "../../src/openapi-yaml.js";
import { operationsOf } from "../../src/openapi/document.js";
import { uiView } from "../../src/openapi/ui-view.js";
import type { Media, Operation } from "../../src/openapi/document.js";
import { DOCUMENT_PATH, committedDocument, exampleOf, parametersOf, resolveRef, responsesOf } from "./helpers.js";

const doc = committedDocument();
const OPERATIONS = operationsOf(doc).map((located) => [`${located.method.toUpperCase()} ${located.path}`, located] as const);
const TAGS = ["jobs", "nodes", "events", "operations"];
const schemas = doc.components?.schemas ?? {};

describe("openapi.yaml is current", () => {
  it("equals what the app generates (run `npm run openapi` and commit the result)", async () => {
    expect(readFileSync(DOCUMENT_PATH, "utf8")).toBe(await generateOpenApiYaml());
  });
});

describe("the app serves the document", () => {
  let gateway: GatewayUnderTest;
  let app: FastifyInstance;
  beforeAll(async () => {
    // No Manager: serving the document asks none.
    gateway = await gatewayTo("127.0.0.1:1");
    ({ app } = gateway);
  });
  afterAll(async () => {
    await gateway.close();
  });

  it("at /openapi.json and /openapi.yaml, the same as openapi.yaml", async () => {
    const json = await app.inject("/openapi.json");
    expect(json.statusCode).toBe(200);
    expect(json.headers["content-type"]).toMatch(/^application\/json/);
    expect(json.json()).toEqual(doc);
    const yaml = await app.inject("/openapi.yaml");
    expect(yaml.statusCode).toBe(200);
    expect(yaml.headers["content-type"]).toMatch(/^application\/yaml/);
    expect(yaml.body).toBe(readFileSync(DOCUMENT_PATH, "utf8"));
  });

  it("Swagger UI at /docs, from the package's own files, with deep linking and Try it out enabled, reading its view of the document", async () => {
    const page = await app.inject("/docs");
    expect(page.statusCode).toBe(200);
    expect(page.headers["content-type"]).toMatch(/^text\/html/);
    const sources = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] ?? "");
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) {
      expect(source, "no CDN: every asset is served by the gateway").not.toMatch(/^(https?:)?\/\//);
      const asset = await app.inject(source.startsWith("/") ? source : `/docs/${source}`);
      expect(asset.statusCode, source).toBe(200);
    }
    const initializer = (await app.inject("/docs/static/swagger-initializer.js")).body;
    expect(initializer).toMatch(/"deepLinking":\s*true/);
    expect(initializer).toMatch(/"tryItOutEnabled":\s*true/);
    expect((await app.inject("/docs/json")).json()).toEqual(uiView(doc));
  });

  it("/ redirects to /docs", async () => {
    const res = await app.inject("/");
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe("/docs");
  });
});

describe("openapi.yaml is valid and lint-clean", () => {
  it("is OpenAPI 3.1 and validates with swagger-parser", async () => {
    expect(doc.openapi).toBe("3.1.0");
    await expect(SwaggerParser.validate(DOCUMENT_PATH)).resolves.toBeDefined();
  });

  it("passes Redocly's recommended rules with no errors and no warnings", async () => {
    const config = await loadConfig({ configPath: "redocly.yaml" });
    const problems = await lint({ ref: DOCUMENT_PATH, config });
    const listed = problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? "?"}`);
    expect(listed).toEqual([]);
  });

  it("redocly.yaml says why for every rule it switches off", () => {
    const lines = readFileSync("redocly.yaml", "utf8").split("\n");
    const off = lines.flatMap((line, index) => (/^\s+[\w-]+:\s*off\s*$/.test(line) ? [index] : []));
    for (const index of off) expect(lines[index - 1], lines[index]).toMatch(/^\s+#/);
  });
});

describe("every operation is documented", () => {
  it("has unique operationIds", () => {
    const ids = OPERATIONS.map(([, { operation }]) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("uses the SDK's method names for the jobs API", () => {
    const ids = OPERATIONS.map(([, { operation }]) => operation.operationId);
    const sdk = ["createJob", "jobById", "updateJob", "deleteJob", "completeJob", "jobSearch", "patchJob", "startJob", "stopJob", "listJobInstances"];
    expect(ids).toEqual(expect.arrayContaining(sdk));
  });

  it.each(OPERATIONS)("%s: operationId, summary, description and one known tag", (_, { operation }) => {
    expect(operation.operationId).toMatch(/^[a-z][A-Za-z0-9]*$/);
    expect(operation.summary?.length).toBeGreaterThan(0);
    expect(operation.description?.length).toBeGreaterThan(0);
    expect(operation.tags).toHaveLength(1);
    expect(TAGS).toContain(operation.tags?.[0]);
  });

  it.each(OPERATIONS)("%s: every response described; errors are problems; no content for 204 and 304", (_, { path, operation }) => {
    const responses = Object.entries(responsesOf(doc, operation));
    expect(responses.some(([status]) => status.startsWith("2"))).toBe(true);
    if (path.startsWith("/v1/")) {
      expect(responses.some(([status]) => status.startsWith("4"))).toBe(true);
      for (const status of ["500", "503", "504", "default"]) expect(operation.responses).toHaveProperty(status);
    }
    for (const [status, response] of responses) {
      expect(response.description?.length, status).toBeGreaterThan(0);
      expect(response.description, status).not.toBe("Default Response");
      if (status === "204" || status === "304") expect(response.content, status).toBeUndefined();
      if (/^[45]|default/.test(status)) {
        expect(Object.keys(response.content ?? {}), status).toEqual(["application/problem+json"]);
        expect(response.content?.["application/problem+json"]?.schema, status).toEqual({ $ref: "#/components/schemas/Problem" });
      }
    }
  });

  it.each(OPERATIONS)("%s: X-Request-Id on the request and every response; Grpc-Timeout where the Manager is called", (_, { path, operation }) => {
    const names = parametersOf(doc, operation).map((p) => `${p.in ?? ""} ${p.name ?? ""}`);
    expect(names).toContain("header X-Request-Id");
    if (path.startsWith("/v1/")) expect(names).toContain("header Grpc-Timeout");
    for (const [status, response] of Object.entries(responsesOf(doc, operation))) expect(response.headers, status).toHaveProperty("X-Request-Id");
  });

  it.each(OPERATIONS)("%s: every request body and response body has an example", (_, { operation }) => {
    const bodies: [string, Media][] = [
      ...Object.entries(operation.requestBody?.content ?? {}).map(([type, media]) => [`request ${type}`, media] as [string, Media]),
      ...Object.entries(responsesOf(doc, operation)).flatMap(([status, response]) =>
        Object.entries(response.content ?? {}).map(([type, media]) => [`${status} ${type}`, media] as [string, Media]),
      ),
    ];
    for (const [where, media] of bodies) expect(exampleOf(doc, media), `${where}: add it to src/openapi/examples.ts`).toBeDefined();
  });
});

describe("the jobs API is described as the gateway behaves", () => {
  const byId = new Map(OPERATIONS.map(([, { operation }]) => [operation.operationId ?? "", operation]));
  const op = (id: string): Operation => byId.get(id) ?? expect.fail(`no operation ${id}`);
  const headerParams = (id: string) => parametersOf(doc, op(id)).filter((p) => p.in === "header").map((p) => p.name);
  const responseHeaders = (id: string, status: string) => Object.keys(op(id).responses?.[status]?.headers ?? {});

  it("has named component schemas, never def-N, and every reference resolves", () => {
    for (const name of ["Job", "JobInput", "JobPatch", "Problem", "JobList", "Instances", "RunningJob", "StartInstance", "Service"]) {
      expect(schemas, name).toHaveProperty(name);
    }
    for (const name of Object.keys(schemas)) expect(name).toMatch(/^[A-Z][A-Za-z0-9]*$/);
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"([^"]+)"/g)].map((m) => m[1] ?? "");
    for (const ref of new Set(refs)) expect(resolveRef(doc, ref), ref).toBeDefined();
  });

  it("documents ETag, Location, If-Match, If-None-Match", () => {
    expect(responseHeaders("createJob", "201")).toEqual(expect.arrayContaining(["ETag", "Location"]));
    expect(responseHeaders("createJob", "200")).toEqual(expect.arrayContaining(["ETag", "Location"]));
    expect(responseHeaders("jobById", "200")).toContain("ETag");
    expect(responseHeaders("jobById", "304")).toContain("ETag");
    for (const id of ["updateJob", "patchJob"]) expect(responseHeaders(id, "200")).toContain("ETag");
    for (const id of ["updateJob", "patchJob", "deleteJob"]) expect(headerParams(id)).toContain("If-Match");
    expect(headerParams("jobById")).toContain("If-None-Match");
  });

  it("gives GET /v1/jobs as JSON and as NDJSON", () => {
    expect(Object.keys(op("jobSearch").responses?.["200"]?.content ?? {})).toEqual(["application/json", "application/x-ndjson"]);
  });

  it("takes a merge patch (and plain JSON), and a JSON Patch, on PATCH", () => {
    expect(Object.keys(op("patchJob").requestBody?.content ?? {})).toEqual(["application/merge-patch+json", "application/json", "application/json-patch+json"]);
  });

  it("marks as required exactly what the gateway always sends, and requires jobId and startDateTime on input", () => {
    const required = (name: string) => [...((schemas[name] as { required?: string[] } | undefined)?.required ?? [])].sort();
    // docs/architecture.md, "The job, as the SDK sees it": the fields of the SDK's Job interface
    // that are not optional.
    expect(required("Job")).toEqual(
      ["architecture", "availabilityDomain", "cloud", "currentHash", "description", "jobId", "norskMediaVersion", "services", "shape", "startDateTime", "state", "subnet", "tags"].sort(),
    );
    expect(required("JobInput")).toEqual(["jobId", "startDateTime"]);
    expect(required("JobPatch")).toEqual([]);
    expect(required("Problem")).toEqual(["detail", "instance", "requestId", "status", "title", "type"]);
  });

  it("writes every int64 as a string with format int64 and a pattern, and timestamps as date-time", () => {
    const found: Record<string, unknown>[] = [];
    const visit = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(visit);
      else if (typeof value === "object" && value !== null) {
        const schema = value as Record<string, unknown>;
        if (schema.format === "int64" || schema.format === "uint64" || schema.format === "date-time") found.push(schema);
        Object.values(schema).forEach(visit);
      }
    };
    visit(doc);
    expect(found.length).toBeGreaterThan(0);
    for (const schema of found) {
      // A string; or, in a request body where null means absent, a string or null.
      expect([schema.type].flat().filter((type) => type !== "null")).toEqual(["string"]);
      expect(typeof schema.pattern).toBe("string");
    }
    const job = schemas.Job as { properties: Record<string, { format?: string; type?: string; $ref?: string }> };
    expect(job.properties.currentHash).toMatchObject({ type: "string", format: "int64" });
    // Every time refers to the one component Timestamp, which says it.
    expect(job.properties.startDateTime?.$ref).toBe("#/components/schemas/Timestamp");
    expect(resolveRef(doc, job.properties.startDateTime?.$ref ?? "")).toMatchObject({ type: "string", format: "date-time" });
  });
});

describe("the YAML is plain", () => {
  it("has no anchors or aliases", () => {
    const text = readFileSync(DOCUMENT_PATH, "utf8");
    expect(parse(text, { maxAliasCount: 0 })).toBeDefined();
  });
});
