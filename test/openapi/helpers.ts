// Reading the committed openapi.yaml, and the small lookups the OpenAPI tests share.
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import type { OpenApiDocument, Operation, Parameter } from "../../src/openapi/finish.js";

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

/** The value Swagger UI pre-fills a parameter with: its example, else its schema's example or default. */
export function parameterExample(parameter: Parameter): unknown {
  return parameter.example ?? parameter.schema?.example ?? parameter.schema?.default;
}
