// CORS: the pages of other origins that may call the API from a browser (fetch, EventSource),
// by @fastify/cors. Off unless origins are configured: then no Access-Control-* header is ever
// sent and a browser lets no other origin read an answer. The cross-site guard
// (src/server/cross-site.ts) runs first: it lets these origins change things and refuses a
// preflight from any other origin with a 403 naming it, so that what a browser would only call
// "a CORS error" is a problem a developer can read in the network panel or with curl.
import type { FastifyCorsOptions } from "@fastify/cors";
import { ANY_ORIGIN } from "./cross-site.js";
import { RATE_LIMIT_HEADERS } from "./rate-limit.js";

/** The settings --cors-origin and --cors-credentials (src/config.ts gives their defaults: none, false). */
export interface CorsOptions {
  /** Origins (scheme://host[:port]) whose pages may call the API; ANY_ORIGIN ("*") for every one; none: CORS off. */
  readonly origins: readonly string[];
  /** Whether those pages may send cookies and HTTP authentication (never with "*"). */
  readonly credentials: boolean;
}

/**
 * Headers a page's script may read besides the CORS-safelisted ones: what the API documents
 * (Link: a search's next page, a deprecation's page), a deprecated operation's
 * (src/http/deprecation.ts), and the rate limit's (sent only with --rate-limit).
 */
export const EXPOSED_HEADERS: readonly string[] = ["ETag", "Location", "X-Request-Id", "Retry-After", "Link", "Deprecation", "Sunset", ...RATE_LIMIT_HEADERS];

/** Every method a route takes; OPTIONS itself needs no permission. */
export const CORS_METHODS: readonly string[] = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"];

/**
 * How long a browser may reuse a preflight's answer, in seconds. Ten minutes: Chromium caps it
 * at two hours, and a changed --cors-origin reaches open pages within this.
 */
export const PREFLIGHT_MAX_AGE_S = 600;

/** True when CORS is on: some origin is configured. */
export function corsEnabled(options: CorsOptions): boolean {
  return options.origins.length > 0;
}

/**
 * @fastify/cors's options for `options`. Request headers a preflight asks for are allowed as
 * asked (the origin is what is checked); a preflight is answered 204 even without
 * Access-Control-Request-Method, since the plugin's strict answer is a text/plain 400.
 */
export function corsPluginOptions(options: CorsOptions): FastifyCorsOptions {
  const { origins } = options;
  return {
    origin: origins.includes(ANY_ORIGIN) ? ANY_ORIGIN : origins.map(serializedOrigin),
    methods: [...CORS_METHODS],
    exposedHeaders: [...EXPOSED_HEADERS],
    credentials: options.credentials,
    maxAge: PREFLIGHT_MAX_AGE_S,
    strictPreflight: false,
  };
}

/** An origin as a browser writes it in the Origin header: lower-case host, no default port. */
export function serializedOrigin(origin: string): string {
  return new URL(origin).origin;
}
