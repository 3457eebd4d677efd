// What @fastify/swagger is shown of a route (its `transform` option): the route's schema with
// named schemas as references to components, and every response in the per-media-type form.
// A response given as a bare schema keeps its description that way: once the schema is a
// $ref, @fastify/swagger would otherwise fall back to "Default Response".
import { STATUS_CODES } from "node:http";
import type { FastifySchema } from "fastify";
import type { NamedSchemas } from "./components.js";
import { isJsonObject as isEntry } from "../json/errors.js";
import { declaredProblems } from "../http/responses.js";
import { OPEN } from "../auth/scopes.js";
import type { Access } from "../auth/scopes.js";
import type { DeprecatedRoute } from "../http/deprecation.js";

/** The document's security schemes (register.ts), each of which may carry a scope. */
export const SECURITY_SCHEME_NAMES = ["bearerToken", "apiKey", "clientCertificate"] as const;

/** An operation's `security`: any one of the schemes with the route's scope; nothing for an open route. */
function securityOf(access: Access): Record<string, string[]>[] {
  if (access === OPEN) return [];
  return SECURITY_SCHEME_NAMES.map((scheme) => ({ [scheme]: [access] }));
}

export function documentView(schema: FastifySchema | undefined, named: NamedSchemas, access?: Access, deprecation?: DeprecatedRoute): FastifySchema {
  if (schema === undefined) return {};
  const view: FastifySchema = { ...schema };
  if (access !== undefined) view.security = securityOf(access);
  // The route's deprecation (src/http/deprecation.ts): marked, and its dates said, in the document.
  if (deprecation !== undefined) {
    view.deprecated = true;
    view.description = [schema.description, deprecationSentence(deprecation)].filter((part) => part !== undefined).join(" ");
  }
  if (schema.body !== undefined) view.body = named.referenced(schema.body);
  // A query's and a path's parameters too: @fastify/swagger makes one of each property.
  if (schema.querystring !== undefined) view.querystring = parametersView(schema.querystring, named);
  if (schema.params !== undefined) view.params = parametersView(schema.params, named);
  if (isEntry(schema.response)) {
    const produces = schema.produces ?? ["application/json"];
    const responses: Record<string, unknown> = {};
    for (const [status, entry] of Object.entries(schema.response)) responses[status] = responseView(status, entry, produces, named);
    // The refusals of the route's declared access: worded by the document (src/openapi/errors.ts).
    if (access !== undefined && access !== OPEN) {
      for (const [status, response] of Object.entries(declaredProblems("UNAUTHENTICATED", "PERMISSION_DENIED"))) {
        responses[status] ??= responseView(status, response, produces, named);
      }
    }
    view.response = responses;
  }
  return view;
}

/** When the operation was deprecated and may stop answering, and where to read what replaces it. */
function deprecationSentence({ since, sunset, link }: DeprecatedRoute): string {
  const day = (date: Date): string => date.toISOString().slice(0, 10);
  const see = link === undefined ? "" : ` See ${link}.`;
  return `Deprecated since ${day(since)} (the Deprecation header); it may stop answering after ${day(sunset)} (Sunset).${see}`;
}

/** An object schema of parameters, each property's own description and examples kept for the parameter it becomes. */
function parametersView(schema: unknown, named: NamedSchemas): unknown {
  if (!isEntry(schema) || !isEntry(schema.properties)) return named.referenced(schema);
  const view = named.referenced({ ...schema, properties: {} }) as Record<string, unknown>;
  view.properties = Object.fromEntries(Object.entries(schema.properties).map(([name, property]) => [name, named.referenced(property, true)]));
  return view;
}

function responseView(status: string, entry: unknown, produces: readonly string[], named: NamedSchemas): unknown {
  // Already per media type, or no body at all (a null schema): only the names change.
  if (!isEntry(entry) || isEntry(entry.content) || entry.type === "null") return named.referenced(entry);
  const description = typeof entry.description === "string" ? entry.description : (STATUS_CODES[Number(status)] ?? "Response");
  const schema = named.referenced(entry);
  return { description, content: Object.fromEntries(produces.map((type) => [type, { schema }])) };
}
