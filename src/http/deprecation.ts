// Deprecating an operation, declared once on its route: `config: { ...needs(scope),
// ...deprecated({ since, sunset, link }) }`. From that one declaration the document marks the
// operation `deprecated: true`, its description saying the dates (src/openapi/route-view.ts),
// and every answer of the operation, whatever made it (a success, a refusal before the
// handler, a problem), carries
// - `Deprecation: @<unix seconds>` (RFC 9745): since when it is deprecated;
// - `Sunset: <IMF-fixdate>` (RFC 8594): after when it may stop answering;
// - `Link: <url>; rel="deprecation"` (RFC 9745), when a page says what to use instead; added
//   to any Link the operation sends itself (a page's rel="next").
import type { FastifyReply, FastifyRequest, RouteOptions } from "fastify";

export interface Deprecation {
  /** When the operation was deprecated: Deprecation's date. */
  readonly since: Date;
  /** When it may stop answering: Sunset's date, not before `since` (RFC 9745 §3). */
  readonly sunset: Date;
  /** A page (absolute URL) saying what to use instead: Link's target. Default: no Link. */
  readonly link?: string;
}

/** A deprecated route's declaration: the dates and link, and the headers they make. */
export interface DeprecatedRoute extends Deprecation {
  /** Each header's value, by lower-case name, made once when the route is declared. */
  readonly headers: Readonly<Record<string, string>>;
}

declare module "fastify" {
  interface FastifyContextConfig {
    /** Set on a deprecated route only, by deprecated(). */
    readonly deprecated?: DeprecatedRoute;
  }
}

/** The rel of Link that RFC 9745 registers for a deprecation's page. */
const DEPRECATION_REL = "deprecation";

/**
 * The part of a route's `config` that deprecates it. Throws for an invalid date, a sunset
 * before the deprecation, or a link that is not an absolute http(s) URL: a route declared so
 * fails the app's start, not a client.
 */
export function deprecated(deprecation: Deprecation): { readonly deprecated: DeprecatedRoute } {
  const { since, sunset, link } = deprecation;
  if (Number.isNaN(since.getTime()) || Number.isNaN(sunset.getTime())) throw new Error("a deprecation's since and sunset must be valid dates");
  if (sunset.getTime() < since.getTime()) throw new Error("a deprecation's sunset must not be before its since");
  if (link !== undefined && !/^https?:$/.test(new URL(link).protocol)) throw new Error("a deprecation's link must be an http(s) URL");
  const headers: Record<string, string> = {
    // RFC 9745 §2.1: an RFC 9651 Date, whole seconds since the epoch.
    deprecation: `@${String(Math.floor(since.getTime() / 1000))}`,
    // RFC 8594 §3: an HTTP-date; toUTCString() writes IMF-fixdate.
    sunset: sunset.toUTCString(),
  };
  if (link !== undefined) headers.link = `<${link}>; rel="${DEPRECATION_REL}"`;
  return { deprecated: { since, sunset, ...(link === undefined ? {} : { link }), headers } };
}

/** An onSend hook giving every answer of a deprecated route its headers. */
export function deprecationHeaders(request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void): void {
  const route = request.routeOptions.config.deprecated;
  if (route !== undefined) {
    for (const [name, value] of Object.entries(route.headers)) {
      const present = name === "link" ? reply.getHeader("link") : undefined;
      void reply.header(name, present === undefined ? value : `${[present].flat().join(", ")}, ${value}`);
    }
  }
  done(null, payload);
}

/** An onRoute hook: a deprecated route gets deprecationHeaders as its last onSend hook; any other route is left as it is. */
export function withDeprecationHeaders(route: RouteOptions): void {
  if (route.config?.deprecated === undefined) return;
  const own = route.onSend === undefined ? [] : [route.onSend].flat();
  route.onSend = [...own, deprecationHeaders];
}
