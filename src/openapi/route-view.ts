// What @fastify/swagger is shown of a route (its `transform` option): the route's schema with
// named schemas as references to components, and every response in the per-media-type form.
// A response given as a bare schema keeps its description that way: once the schema is a
// $ref, @fastify/swagger would otherwise fall back to "Default Response".
import { STATUS_CODES } from "node:http";
import type { FastifySchema } from "fastify";
import type { NamedSchemas } from "./components.js";
import { isJsonObject as isEntry } from "../json/errors.js";

export function documentView(schema: FastifySchema | undefined, named: NamedSchemas): FastifySchema {
  if (schema === undefined) return {};
  const view: FastifySchema = { ...schema };
  if (schema.body !== undefined) view.body = named.referenced(schema.body);
  // A query's and a path's parameters too: @fastify/swagger makes one of each property.
  if (schema.querystring !== undefined) view.querystring = parametersView(schema.querystring, named);
  if (schema.params !== undefined) view.params = parametersView(schema.params, named);
  if (isEntry(schema.response)) {
    const produces = schema.produces ?? ["application/json"];
    const responses: Record<string, unknown> = {};
    for (const [status, entry] of Object.entries(schema.response)) responses[status] = responseView(status, entry, produces, named);
    view.response = responses;
  }
  return view;
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
