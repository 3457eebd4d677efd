// Reading the committed openapi.yaml, and the small lookups the OpenAPI tests share.
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import type { Media, OpenApiDocument, Operation, Parameter, Response } from "../../src/openapi/document.js";

export const DOCUMENT_PATH = "openapi.yaml";

export function committedDocument(): OpenApiDocument {
  return parse(readFileSync(DOCUMENT_PATH, "utf8")) as OpenApiDocument;
}

/** The object a local reference ("#/components/...") points to. */
export function resolveRef(doc: OpenApiDocument, ref: string): unknown {
  if (!ref.startsWith("#/")) throw new Error(`not a local reference: ${ref}`);
  let at: unknown = doc;
  for (const token of ref.slice(2).split("/")) {
    const key = token.replaceAll("~1", "/").replaceAll("~0", "~");
    at = typeof at === "object" && at !== null ? (at as Record<string, unknown>)[key] : undefined;
  }
  return at;
}

/** The operation's parameters, references resolved. */
export function parametersOf(doc: OpenApiDocument, operation: Operation): Parameter[] {
  return (operation.parameters ?? []).map((p) => (p.$ref === undefined ? p : (resolveRef(doc, p.$ref) as Parameter)));
}

/** The operation's responses by status, references (shared responses and headers) resolved. */
export function responsesOf(doc: OpenApiDocument, operation: Operation): Record<string, Response> {
  const resolved: Record<string, Response> = {};
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    const own = response.$ref === undefined ? response : (resolveRef(doc, response.$ref) as Response);
    const headers = Object.fromEntries(
      Object.entries(own.headers ?? {}).map(([name, header]) => {
        const ref = (header as { $ref?: unknown }).$ref;
        return [name, typeof ref === "string" ? resolveRef(doc, ref) : header];
      }),
    );
    resolved[status] = { ...own, ...(own.headers === undefined ? {} : { headers }) };
  }
  return resolved;
}

/** The value Swagger UI pre-fills a parameter with: its example, else its schema's example or default. */
export function parameterExample(parameter: Parameter): unknown {
  return parameter.example ?? parameter.schema?.example ?? parameter.schema?.default;
}

/** A body's example: its own `example`, or the value of the first of its `examples` (a $ref to components/examples resolved). */
export function exampleOf(doc: OpenApiDocument, media: Media | undefined): unknown {
  if (media?.example !== undefined) return media.example;
  const [first] = Object.values(media?.examples ?? {});
  const example = typeof first?.$ref === "string" ? (resolveRef(doc, first.$ref) as { value?: unknown } | undefined) : first;
  return example?.value;
}
