// Examples that work: every operation of the served document is sent as Swagger UI's "Try it
// out" would send it, unchanged (every parameter pre-filled with its example, the request
// body's example, the first media type), to the started command with its embedded Manager.
// Each answer is a 2xx, valid against the documented schema, and equal to the documented
// example where there is one. The order is the story of src/openapi/examples.ts; operations
// it does not know run after it, deletes last.
import type { ErrorObject } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STORY } from "../../src/openapi/examples.js";
import { operationsOf } from "../../src/openapi/document.js";
import type { Located, OpenApiDocument } from "../../src/openapi/document.js";
import { gatewayFormats } from "../../schemas/formats.js";
import { startCommand } from "../helpers/command.js";
import type { StartedCommand } from "../helpers/command.js";
import { committedDocument, exampleOf, parameterExample, parametersOf } from "./helpers.js";

const doc = committedDocument();

function storyOrder(operations: Located[]): Located[] {
  const rank = (located: Located): number => {
    const id = located.operation.operationId ?? "";
    if (id === "deleteJob") return 3;
    const at = (STORY as readonly string[]).indexOf(id);
    if (at >= 0) return at / STORY.length;
    return located.method === "delete" ? 2 : 1;
  };
  return operations.map((located, index) => ({ located, index })).sort((a, b) => rank(a.located) - rank(b.located) || a.index - b.index).map((e) => e.located);
}

const ORDERED = storyOrder(operationsOf(doc)).map((located) => [`${located.operation.operationId ?? ""} (${located.method.toUpperCase()} ${located.path})`, located] as const);

/** The request Swagger UI's Try it out sends for this operation, unchanged. */
function tryItOut(document: OpenApiDocument, { path, method, operation }: Located): { url: string; init: RequestInit } {
  let url = path;
  const query = new URLSearchParams();
  const headers: Record<string, string> = {};
  for (const parameter of parametersOf(document, operation)) {
    const example = parameterExample(parameter);
    if (example === undefined || parameter.name === undefined) continue;
    const values = (Array.isArray(example) ? example : [example]).map(String);
    if (parameter.in === "path") url = url.replace(`{${parameter.name}}`, encodeURIComponent(values[0] ?? ""));
    else if (parameter.in === "query") for (const value of values) query.append(parameter.name, value);
    else if (parameter.in === "header") headers[parameter.name] = values.join(",");
  }
  const success = Object.entries(operation.responses ?? {}).find(([status]) => status.startsWith("2"))?.[1];
  const accept = Object.keys(success?.content ?? {})[0];
  if (accept !== undefined) headers.Accept = accept;
  const [bodyType, bodyMedia] = Object.entries(operation.requestBody?.content ?? {})[0] ?? [];
  const init: RequestInit = { method: method.toUpperCase(), headers };
  if (bodyType !== undefined) {
    headers["Content-Type"] = bodyType;
    init.body = JSON.stringify(exampleOf(document, bodyMedia));
  }
  return { url: `${url}${query.size > 0 ? `?${query.toString()}` : ""}`, init };
}

const ajv = new Ajv2020({ strict: false, allErrors: true, formats: gatewayFormats });
ajv.addSchema({ $id: "openapi.json", components: doc.components });

/** The schema with its local references ("#/components/...") pointing into the document. */
function anchored(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(anchored);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, child]) => [key, key === "$ref" && typeof child === "string" && child.startsWith("#/") ? `openapi.json${child}` : anchored(child)]),
  );
}

function schemaErrors(schema: unknown, value: unknown): ErrorObject[] {
  const validate = ajv.compile(anchored(schema) as object);
  return validate(value) ? [] : (validate.errors ?? []);
}

let gateway: StartedCommand;

beforeAll(async () => {
  gateway = await startCommand();
});

afterAll(async () => {
  expect(await gateway.stop()).toBe(0);
});

describe("every example works against the started command", () => {
  it("serves the committed document", async () => {
    const served = await fetch(`${gateway.url}/openapi.json`);
    expect(await served.json()).toEqual(doc);
  });

  it.each(ORDERED)("%s", async (_, located) => {
    const { url, init } = tryItOut(doc, located);
    const abort = new AbortController();
    const res = await fetch(`${gateway.url}${url}`, { ...init, signal: abort.signal });
    const type = (res.headers.get("content-type") ?? "").split(";")[0] ?? "";
    if (type === "text/event-stream") {
      // A stream that never ends: its status and headers are the answer.
      abort.abort();
      expect(res.status, url).toBe(200);
      return;
    }
    const text = await res.text();
    expect(res.status, `${url}: ${text}`).toBeGreaterThanOrEqual(200);
    expect(res.status, `${url}: ${text}`).toBeLessThan(300);
    const media = located.operation.responses?.[String(res.status)]?.content?.[type];
    if (text === "") {
      expect(media, "an empty answer is documented without content").toBeUndefined();
      return;
    }
    expect(media, `${String(res.status)} ${type} is documented`).toBeDefined();
    const body: unknown = JSON.parse(text);
    expect(schemaErrors(media?.schema, body), "the answer fits the documented schema").toEqual([]);
    const example = exampleOf(doc, media);
    if (type === "application/json" && example !== undefined) expect(body, "the answer is the documented example").toEqual(example);
  });
});
