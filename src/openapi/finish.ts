// The last pass over the generated document (@fastify/swagger's transformObject): what holds for
// every operation is added here once, so routes added later get it without asking.
// - X-Request-Id on every request and every response; Grpc-Timeout on every /v1 operation
//   (each one calls the Manager with a deadline the header may shorten);
// - header parameter names in their usual spelling (route schemas spell them in lower case,
//   as fastify matches them);
// - the meaning of each error status a route leaves to the document, and the examples of
//   examples.ts and a problem example for every error response (errors.ts);
// - `required: false` left out of parameters (OpenAPI's default); tags that no operation uses
//   are dropped. A request body is described by its schema's component, not again beside it.
import { STATUS_CODES } from "node:http";
import { isDeepStrictEqual } from "node:util";
import { EXAMPLES } from "./examples.js";
import type { OperationExamples } from "./examples.js";
import { SCHEMA_REF_PREFIX, restoreAnnotatedRefs } from "./components.js";
import { OTHER_FAILURE_SAMPLE, describedResponse, problemSample, statusDescription } from "./errors.js";
import { STATUS_MEANING } from "../http/responses.js";
import type { ProblemSample } from "./errors.js";
import { operationsOf } from "./document.js";
import type { Media, OpenApiDocument, Operation, Response } from "./document.js";
import { shareAlike } from "./shared.js";

export const PROBLEM_MEDIA = "application/problem+json";
const JSON_MEDIA = "application/json";
const REQUEST_ID_EXAMPLE = "3f2b8c1e-5d4a-4f7b-9a0e-1c2d3e4f5a6b";

export function finishDocument(generated: OpenApiDocument): OpenApiDocument {
  // A copy, and a tree: the components given to @fastify/swagger are shared by every app built,
  // and an object reached twice would become a YAML anchor and alias.
  const doc = JSON.parse(JSON.stringify(generated)) as OpenApiDocument;
  restoreAnnotatedRefs(doc);
  for (const { path, operation } of operationsOf(doc)) {
    spellHeaderNames(operation);
    const shared = [{ $ref: "#/components/parameters/XRequestId" }];
    if (path.startsWith("/v1/")) shared.push({ $ref: "#/components/parameters/GrpcTimeout" });
    operation.parameters = [...(operation.parameters ?? []), ...shared];
    addHttpSemantics(operation);
    for (const [status, response] of Object.entries(operation.responses ?? {})) {
      if (response.description !== undefined) response.description = describedResponse(Number(status), response.description);
      response.headers = { ...response.headers, "X-Request-Id": { $ref: "#/components/headers/XRequestId" } };
    }
    addExamples(doc, path, operation, EXAMPLES[operation.operationId ?? ""] ?? {});
  }
  const used = new Set(operationsOf(doc).flatMap(({ operation }) => operation.tags ?? []));
  if (doc.tags !== undefined) doc.tags = doc.tags.filter((tag) => used.has(tag.name));
  shareAlike(doc, PROBLEM_MEDIA);
  describeMethodNotAllowed(doc);
  dropUnusedSchemas(doc);
  dropConstantExamples(doc.components?.schemas);
  return doc;
}

/**
 * What every operation may answer whatever its route declares (src/http/negotiation.ts,
 * src/http/retry-after.ts): a 406 where a success response has content, which Accept must
 * admit; Retry-After on a 503. (A 405 is no operation's answer: the document's
 * description says it, describeMethodNotAllowed.)
 */
function addHttpSemantics(operation: Operation): void {
  const responses = operation.responses ?? {};
  const hasContent = Object.entries(responses).some(([status, response]) => status.startsWith("2") && Object.keys(response.content ?? {}).length > 0);
  if (hasContent && responses[NOT_ACCEPTABLE] === undefined) responses[NOT_ACCEPTABLE] = problemResponseOf(NOT_ACCEPTABLE);
  const unavailable = responses[UNAVAILABLE];
  if (unavailable !== undefined) unavailable.headers = { ...unavailable.headers, "Retry-After": RETRY_AFTER_HEADER };
  operation.responses = responses;
}

const NOT_ACCEPTABLE = "406";
const UNAVAILABLE = "503";
const METHOD_NOT_ALLOWED = "405";

const RETRY_AFTER_HEADER = {
  description: "Seconds to wait before trying again (--shed-retry-after): on every 503, whatever made it.",
  schema: { type: "integer", minimum: 1 },
};

/** A problem response of `status`, described as the catalogue words the status (errors.ts). */
function problemResponseOf(status: string): Response {
  return {
    description: describedResponse(Number(status), `${STATUS_CODES[Number(status)] ?? "Error"}: ${STATUS_MEANING}.`),
    content: { [PROBLEM_MEDIA]: { schema: { $ref: `${SCHEMA_REF_PREFIX}Problem` } } },
  };
}

/**
 * The 405, in the document's description: it is no operation's answer (OpenAPI lists the
 * methods a path has, not the others), so it is said once for all, as the catalogue words it.
 */
function describeMethodNotAllowed(doc: OpenApiDocument): void {
  const info = (doc as { info?: { description?: string } }).info;
  if (info === undefined) return;
  const sentence = `A path asked with a method its operations do not list is a ${METHOD_NOT_ALLOWED} ${STATUS_CODES[Number(METHOD_NOT_ALLOWED)] ?? ""} problem: ${statusDescription(Number(METHOD_NOT_ALLOWED)) ?? ""} (HEAD wherever GET is).`;
  info.description = info.description === undefined ? sentence : `${info.description}\n\n${sentence}`;
}

/** Removes component schemas that nothing refers to, directly or through other components. */
function dropUnusedSchemas(doc: OpenApiDocument): void {
  const schemas = doc.components?.schemas;
  if (schemas === undefined) return;
  const reached = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
    } else if (typeof value === "object" && value !== null) {
      for (const [key, child] of Object.entries(value)) {
        if (key === "$ref" && typeof child === "string" && child.startsWith(SCHEMA_REF_PREFIX)) {
          const name = child.slice(SCHEMA_REF_PREFIX.length);
          if (!reached.has(name)) {
            reached.add(name);
            visit(schemas[name]);
          }
        } else {
          visit(child);
        }
      }
    }
  };
  visit(doc.paths);
  for (const name of Object.keys(schemas)) if (!reached.has(name)) Reflect.deleteProperty(schemas, name);
}

/** Removes `examples: [c]` beside `const: c` (an event line's name): the only example such a schema can have. */
function dropConstantExamples(value: unknown): void {
  if (Array.isArray(value)) {
    for (const item of value) dropConstantExamples(item);
  } else if (typeof value === "object" && value !== null) {
    const schema = value as { const?: unknown; examples?: unknown };
    if (schema.const !== undefined && isDeepStrictEqual(schema.examples, [schema.const])) Reflect.deleteProperty(schema, "examples");
    for (const child of Object.values(value)) dropConstantExamples(child);
  }
}

/**
 * "if-match" → "If-Match": header names are case-insensitive; this is how people write them.
 * And no `required: false`, which every parameter but a path's is unless it says otherwise.
 */
function spellHeaderNames(operation: Operation): void {
  for (const parameter of operation.parameters ?? []) {
    if (parameter.required === false) Reflect.deleteProperty(parameter, "required");
    if (parameter.in === "header" && parameter.name !== undefined) {
      parameter.name = parameter.name.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase());
    }
  }
}

/**
 * Puts an example on every request and response body: the one examples.ts gives, a problem for
 * an error, or else the first of the schema's own examples (schemas/ gives one to each).
 */
function addExamples(doc: OpenApiDocument, path: string, operation: Operation, examples: OperationExamples): void {
  for (const [mediaType, media] of Object.entries(operation.requestBody?.content ?? {})) {
    const example = examples.requestByMediaType?.[mediaType] ?? examples.request ?? schemaExample(doc, media);
    if (example !== undefined) media.example = example;
  }
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    for (const [mediaType, media] of Object.entries(response.content ?? {})) {
      const given =
        mediaType === PROBLEM_MEDIA
          ? problemExample(status, path, operation, examples.problemDetails?.[Number(status)])
          : mediaType === JSON_MEDIA
            ? examples.responses?.[Number(status)]
            : examples.byMediaType?.[mediaType]?.[Number(status)];
      const example = given ?? schemaExample(doc, media);
      if (example !== undefined) media.example = example;
    }
  }
}

function schemaExample(doc: OpenApiDocument, media: Media): unknown {
  const ref = media.schema?.$ref;
  const schema: { examples?: unknown } | undefined =
    ref?.startsWith(SCHEMA_REF_PREFIX) === true ? doc.components?.schemas?.[ref.slice(SCHEMA_REF_PREFIX.length)] : media.schema;
  return Array.isArray(schema?.examples) ? (schema.examples as unknown[])[0] : undefined;
}

/** The example problem of an error response: the document's sample of its status (errors.ts). */
function problemExample(status: string, path: string, operation: Operation, detail?: string): Record<string, unknown> {
  const sample: ProblemSample =
    (status === "default" ? OTHER_FAILURE_SAMPLE : problemSample(Number(status))) ??
    { status: Number(status), detail: STATUS_CODES[Number(status)] ?? "error" };
  const example: Record<string, unknown> = {
    type: "about:blank",
    title: STATUS_CODES[sample.status] ?? "Error",
    status: sample.status,
    detail: detail ?? sample.detail,
    instance: exampleUrl(path, operation),
  };
  if (sample.code !== undefined) example.code = sample.code;
  example.requestId = REQUEST_ID_EXAMPLE;
  if (sample.errors !== undefined) example.errors = sample.errors;
  return example;
}

/** The path with each {parameter} replaced by its example. */
function exampleUrl(path: string, operation: Operation): string {
  return path.replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const parameter = operation.parameters?.find((p) => p.in === "path" && p.name === name);
    const example = parameter?.example ?? (parameter?.schema?.examples as unknown[] | undefined)?.[0];
    return typeof example === "string" ? encodeURIComponent(example) : whole;
  });
}
