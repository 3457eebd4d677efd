// What a route serves, read from the routes themselves as they are added (their methods and
// their response schemas), so that no second list can drift from them (docs/reference/http-api.md,
// "Methods and media types"):
// - 405 with Allow: a request whose path a route serves with other methods only. fastify has no
//   405 of its own (it answers 404); the not-found handler asks `allowedMethods`.
// - 406: a request whose Accept admits none of the media types the route's success responses
//   are documented with. A problem is answered as application/problem+json all the same
//   (RFC 9110 §15.5.7 lets a server send what it has).
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from "fastify";
import { admitsAny, mediaType } from "./media-type.js";
import { problem } from "./problem.js";

/** The methods of the routes added to an app, for its 405s. */
export interface RouteMethods {
  /**
   * The methods a route serves `url` (a request target, its query ignored) with, in a fixed
   * order; empty when no route but a catch-all ("*", CORS's preflight) serves the path.
   */
  allowedAt(url: string): string[];
}

/** The order methods are listed in an Allow header. */
const METHOD_ORDER = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/** Watches the routes added to `app` from now on (call before any is added). */
export function routeMethods(app: FastifyInstance): RouteMethods {
  const methods = new Set<string>(["HEAD"]);
  app.addHook("onRoute", (route) => {
    for (const method of [route.method].flat()) methods.add(method.toUpperCase());
  });
  return {
    allowedAt(url) {
      const path = url.split("?", 1)[0] ?? "";
      const served: { method: string; params: Record<string, string | undefined> }[] = [];
      for (const method of methods) {
        // null at run time when nothing matches, whatever fastify's types say.
        const route = app.findRoute({ method, url: path }) as { params: Record<string, string | undefined> } | null;
        if (route !== null) served.push({ method, params: route.params });
      }
      if (served.every((entry) => isCatchAll(entry.params, path))) return [];
      return served.map((entry) => entry.method).sort(byMethodOrder);
    },
  };
}

/** True when a route matched `path` as a whole through its wildcard ("*", "/*"): CORS's preflight route. */
function isCatchAll(params: Record<string, string | undefined>, path: string): boolean {
  const rest = params["*"];
  return rest !== undefined && (rest === path || `/${rest}` === path);
}

function byMethodOrder(a: string, b: string): number {
  const rank = (method: string) => (METHOD_ORDER.includes(method) ? METHOD_ORDER.indexOf(method) : METHOD_ORDER.length);
  return rank(a) - rank(b) || a.localeCompare(b);
}

/** The 405 for a request whose path is served with `allowed` only; sets Allow on `reply`. */
export function methodNotAllowed(request: FastifyRequest, reply: FastifyReply, allowed: readonly string[]): Error {
  void reply.header("allow", allowed.join(", "));
  return problem("METHOD_NOT_ALLOWED", `${request.method} is not served at this path; Allow lists the methods that are`);
}

/** The media types of a route's success (2xx) responses: their `content` keys, or `produces` for a bare schema. */
export function producedTypes(route: Pick<RouteOptions, "schema">): string[] {
  const schema = route.schema;
  if (schema?.response === undefined || typeof schema.response !== "object" || schema.response === null) return [];
  const types = new Set<string>();
  for (const [status, entry] of Object.entries(schema.response as Record<string, unknown>)) {
    if (!/^2(?:\d\d|XX)$/.test(status) || typeof entry !== "object" || entry === null) continue;
    const response = entry as { content?: Record<string, unknown>; type?: unknown };
    if (response.content !== undefined) for (const type of Object.keys(response.content)) types.add(mediaType(type));
    else if (response.type !== "null") for (const type of schema.produces ?? ["application/json"]) types.add(mediaType(type));
  }
  return [...types];
}

/**
 * Adds, to each route added to `app` from now on whose success responses have a body, the check
 * that Accept admits one of their media types: a 406 problem before anything is read or asked.
 */
export function refuseUnacceptable(app: FastifyInstance): void {
  app.addHook("onRoute", (route) => {
    const produced = producedTypes(route);
    if (produced.length === 0) return;
    const check = (request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void): void => {
      if (admitsAny(request.headers.accept, produced)) done();
      else {
        done(
          problem("NOT_ACCEPTABLE", `Accept admits none of the media types this operation answers with: ${produced.join(", ")}`, {
            errors: [{ header: "accept", message: `admits none of ${produced.join(", ")}` }],
          }),
        );
      }
    };
    route.onRequest = [...[route.onRequest ?? []].flat(), check];
  });
}
