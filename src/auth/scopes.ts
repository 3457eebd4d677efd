// Who may do what (docs/operations/authentication.md): the scopes a credential may carry, each
// with the words the OpenAPI document, the README and docs/operations/authentication.md give it
// (src/openapi/scopes-table.ts writes both tables). Each route declares, beside its
// schema, the one scope it needs or that it is open to anyone: `config: { access: "jobs:read" }`
// or `config: { access: OPEN }`. src/auth/access.ts enforces the declaration before any Manager
// call, and src/openapi/route-view.ts writes the same declaration into the document.

/** The scopes, each with what it allows. */
export const SCOPES = {
  "jobs:read": "read jobs, search them and list their instances",
  "jobs:write": "create, replace, patch, delete and complete jobs; start and stop their instances",
  "nodes:read": "read nodes and the Manager's health",
  "nodes:write": "create AWS and OCI nodes, terminate nodes, register or update physical nodes",
  "events:read": "watch the Manager's events (/v1/events, /v1/status)",
  "metrics:read": "scrape /metrics on the API's port (a --metrics-port listener is open)",
} as const;

export type Scope = keyof typeof SCOPES;

/** A route anyone may call, credentials or not: the probes, the document and its browser. */
export const OPEN = "open";

/** What a route declares: the scope it needs, or OPEN. */
export type Access = Scope | typeof OPEN;

export function isScope(value: string): value is Scope {
  return Object.hasOwn(SCOPES, value);
}

declare module "fastify" {
  interface FastifyContextConfig {
    /** The scope the route needs, or OPEN; a route without one fails the app's start (src/auth/access.ts). */
    readonly access?: Access;
  }
}

/** A route's `config` when it needs `scope`: `config: needs("jobs:read")`. */
export function needs(scope: Scope): { readonly access: Scope } {
  return { access: scope };
}

/** A route's `config` when it is open to anyone. */
export const OPEN_ACCESS: { readonly access: typeof OPEN } = { access: OPEN };
