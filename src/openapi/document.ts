// The parts of an OpenAPI 3.1 document that the finishing passes (finish.ts, shared.ts) and
// the document's tests read and write, and a walk over its operations.
export interface Media {
  /** anyOf: a whole or a partial form (jobById, jobSearch), the whole one first. */
  schema?: { $ref?: string; anyOf?: readonly { $ref?: string }[]; examples?: unknown };
  example?: unknown;
  /** Named examples; here one, a $ref to components/examples, for an example given in several places. */
  examples?: Record<string, { $ref?: string; value?: unknown }>;
}
export interface Parameter {
  name?: string;
  in?: string;
  required?: boolean;
  $ref?: string;
  schema?: Record<string, unknown>;
  example?: unknown;
}
export interface Response {
  /** A shared response (components/responses) in place of its own fields. */
  $ref?: string;
  description?: string;
  headers?: Record<string, unknown>;
  content?: Record<string, Media>;
}
export interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  /** Set on a deprecated operation only (src/http/deprecation.ts). */
  deprecated?: boolean;
  parameters?: Parameter[];
  requestBody?: { description?: string; required?: boolean; content?: Record<string, Media> };
  responses?: Record<string, Response>;
}
export interface OpenApiDocument {
  openapi?: string;
  tags?: { name: string; description?: string }[];
  paths?: Record<string, Record<string, Operation | undefined> | undefined>;
  components?: { schemas?: Record<string, { description?: string; examples?: unknown }> };
}

export const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

export interface Located {
  readonly path: string;
  readonly method: (typeof HTTP_METHODS)[number];
  readonly operation: Operation;
}

/** Every operation of the document, in document order. */
export function operationsOf(doc: OpenApiDocument): Located[] {
  const found: Located[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      const operation = item?.[method];
      if (operation !== undefined) found.push({ path, method, operation });
    }
  }
  return found;
}

