// Cross-site protection: no web page of another site can change anything through the gateway,
// even one on a user's own machine. A browser sends a cross-site POST without asking first (no
// CORS preflight) only with a "simple" Content-Type (text/plain, a form, multipart) or none, and
// always with an Origin header; PUT, PATCH and DELETE, or a JSON body, need a preflight, which
// fails unless CORS allows the page's origin (src/server/cors.ts), and is refused here (403)
// when it does not. So a request that changes something (any method but GET, HEAD and
// OPTIONS) is refused when
//   - its Origin is neither in an allow-list (--allowed-origin, --cors-origin) nor the
//     gateway's own origin (403), or
//   - it has a Content-Type that is not JSON (415): no route takes any other body.
// Requests without an Origin (curl, other servers) are as before.
//
// DNS rebinding (a page of evil.example whose name is then pointed at 127.0.0.1) reaches the
// gateway with its own name in the Host header; a Host that is not one of the gateway's names is
// refused (421), for every method. Names are matched without their port (a name alone allows any
// port; name:port only that one), so that a port mapping (docker -p, kubectl port-forward) works.
// Bound to loopback, the gateway's names are known (localhost, 127.0.0.1, [::1], the listen
// address); bound to any other address, they are not (DNS names, a load balancer's, a
// Kubernetes Service's), so any Host is accepted unless configured; its own origin then counts
// only for a Host that cannot be rebound: an IP address, or localhost. The scheme is not
// compared: behind a proxy that ends TLS, a page of https://name calls a plain-HTTP gateway.
//
// The Host check and the cross-site checks are two hooks, with authentication between them
// (src/app.ts): a request without valid credentials to a protected route is a 401 whatever its
// Origin and Content-Type, and one with valid credentials is refused naming its principal.
import { isIP } from "node:net";
import type { FastifyRequest, onRequestHookHandler } from "fastify";
import { JSON_PATCH_TYPE, JSON_TYPE, MERGE_PATCH_TYPE, mediaType } from "../http/media-type.js";
import { problem, unsupportedMediaType } from "../http/problem.js";
import type { ProblemError } from "../http/problem.js";
import { SAFE_METHODS } from "../http/safe-methods.js";

/** The guard's settings: those of the same names (src/config.ts), which give each its default. */
export interface CrossSiteOptions {
  /** The names requests may be addressed to (the Host header): `name` (any port) or `name:port`; `*` for any. */
  readonly allowedHosts: readonly string[];
  /** Origins (scheme://host[:port]) whose pages may send requests that change something. */
  readonly allowedOrigins: readonly string[];
  /**
   * Origins allowed by CORS (src/server/cors.ts), or ANY_ORIGIN: their pages may also change
   * things, and a preflight from any other origin is refused (403).
   */
  readonly corsOrigins: readonly string[];
}

export const ANY_HOST = "*";
export const ANY_ORIGIN = "*";

/** The names of this machine's loopback interface. */
export const LOOPBACK_HOSTS: readonly string[] = ["localhost", "127.0.0.1", "[::1]"];

/** A host name or IP literal (IPv6 in brackets), with an optional port. */
export const HOST_PATTERN = "^(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9.-]+)(:[0-9]{1,5})?$";
/** An origin as a browser sends it: scheme://host[:port], no path. */
export const ORIGIN_PATTERN = "^https?://(\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9.-]+)(:[0-9]{1,5})?$";

const HOST = new RegExp(HOST_PATTERN);

/** The hosts allowed by default for a gateway listening on `listenHost`. */
export function defaultAllowedHosts(listenHost: string): readonly string[] {
  if (!isLoopback(listenHost)) return [ANY_HOST];
  const own = isIP(listenHost) === 6 ? `[${listenHost}]` : listenHost.toLowerCase();
  return LOOPBACK_HOSTS.includes(own) ? LOOPBACK_HOSTS : [...LOOPBACK_HOSTS, own];
}

/** Whether `host` names this machine's loopback interface only. */
export function isLoopback(host: string): boolean {
  const name = host.toLowerCase();
  return name === "localhost" || name === "::1" || /^(::ffff:)?127\.\d+\.\d+\.\d+$/.test(name);
}

interface Authority {
  /** Lower case, without a trailing dot; an IPv6 address in brackets. */
  readonly name: string;
  /** "" when absent. */
  readonly port: string;
}

function parseAuthority(text: string): Authority | undefined {
  const match = HOST.exec(text);
  if (match === null) return undefined;
  return { name: (match[1] ?? "").toLowerCase().replace(/\.$/, ""), port: (match[2] ?? "").slice(1) };
}

const JSON_TYPES = new Set([JSON_TYPE, MERGE_PATCH_TYPE, JSON_PATCH_TYPE]);

/**
 * The guard's two hooks. The app runs `misdirected` before the credentials are checked and
 * `crossSite` after (docs/architecture.md, "Who is asking, then what is refused"); both are
 * synchronous, so a request that may go on costs no promise.
 */
export interface CrossSiteGuard {
  /** 421 for a request addressed to a host that is not the gateway's: the same answer whatever credentials the request carries. */
  readonly misdirected: onRequestHookHandler;
  /** 403 for a preflight or a change from a page of another origin, 415 for a change whose body is not JSON. */
  readonly crossSite: onRequestHookHandler;
}

/** The hooks enforcing `options` (see the top of this file). */
export function crossSiteGuard(options: CrossSiteOptions): CrossSiteGuard {
  const entries = options.allowedHosts;
  const anyHost = entries.includes(ANY_HOST);
  const listed = entries.filter((entry) => entry !== ANY_HOST).map(parseListedHost);
  const { corsOrigins } = options;
  const anyOrigin = corsOrigins.includes(ANY_ORIGIN);
  const cors = new Set(corsOrigins.filter((origin) => origin !== ANY_ORIGIN).map((origin) => new URL(origin).origin));
  const origins = new Set([...options.allowedOrigins.map((origin) => new URL(origin).origin), ...cors]);
  const corsAllowed = (origin: URL | undefined): boolean => anyOrigin || (origin !== undefined && cors.has(origin.origin));
  const hostAllowed = (host: Authority): boolean =>
    listed.some((entry) => entry.name === host.name && (entry.port === "" || entry.port === host.port));
  // A page of the gateway's own origin is one the gateway served, unless that name may have
  // been rebound: any name is accepted, so it need not be the gateway's.
  const ownOrigin = (origin: URL, host: Authority): boolean => (!anyHost || !rebindable(host)) && sameAuthority(origin, host);

  /** The 421 `request` gets, or undefined when its host is the gateway's. */
  const misdirection = (request: FastifyRequest): ProblemError | undefined => {
    if (anyHost) return undefined;
    const authority = authorityOf(request);
    // No Host at all is HTTP/1.0 (app.ts refuses it in 1.1): never a browser, so never rebinding.
    if (authority === undefined) return undefined;
    const host = parseAuthority(authority);
    return host === undefined || !hostAllowed(host) ? misdirected(authority) : undefined;
  };
  /** The cross-site 403 or the 415 `request` gets, or undefined when it may go on. */
  const crossSiteRefusal = (request: FastifyRequest): ProblemError | undefined => {
    const origin = request.headers.origin;
    if (isPreflight(request) && origin !== undefined && !corsAllowed(parseOrigin(origin))) return foreignOrigin(origin, "--cors-origin", "a page of another origin may not call this API");
    if (SAFE_METHODS.has(request.method)) return undefined;
    if (origin !== undefined && !anyOrigin) {
      const parsed = parseOrigin(origin);
      const host = parseAuthority(authorityOf(request) ?? "");
      if (parsed === undefined || (!origins.has(parsed.origin) && (host === undefined || !ownOrigin(parsed, host)))) {
        return foreignOrigin(origin, "--allowed-origin or --cors-origin", "a page of another origin may not change anything here");
      }
    }
    const type = mediaType(request.headers["content-type"]);
    return type !== "" && !JSON_TYPES.has(type) ? notJson() : undefined;
  };
  return {
    misdirected: (request, _reply, done) => {
      done(misdirection(request));
    },
    crossSite: (request, _reply, done) => {
      done(crossSiteRefusal(request));
    },
  };
}

/**
 * The authority the request is addressed to: that of an absolute-form request target
 * (`GET http://name/v1/jobs HTTP/1.1`), which RFC 9112 §3.2.2 puts before Host; else the Host
 * header, or in HTTP/2 the :authority pseudo-header that stands for it (RFC 9113 §8.3.1). From
 * a proxy of --trust-proxy, X-Forwarded-Host comes first: the Host it sent is its own upstream
 * name, the one the client used is the forwarded one (fastify's request.host reads it from
 * those peers only, and the Host header from any other).
 */
function authorityOf(request: FastifyRequest): string | undefined {
  const target = request.raw.url ?? "";
  if (!target.startsWith("/")) {
    const absolute = ABSOLUTE_FORM.exec(target);
    if (absolute !== null) return absolute[1] ?? "";
  }
  if (request.headers["x-forwarded-host"] !== undefined && request.host !== "") return request.host;
  const authority = request.headers.host ?? request.headers[":authority"];
  return typeof authority === "string" ? authority : undefined;
}

/** An absolute-form request target's authority: what lies between "scheme://" and the path. */
const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#]*)/;

function parseListedHost(entry: string): Authority {
  const host = parseAuthority(entry);
  if (host === undefined) throw new TypeError(`not a host name or name:port: ${JSON.stringify(entry)}`);
  return host;
}

/** A DNS name other than localhost: what a page's name may be pointed at by its owner. */
function rebindable(host: Authority): boolean {
  return host.name !== "localhost" && isIP(host.name.replace(/^\[|\]$/g, "")) === 0;
}

/** True when `origin` has the host and port the request was sent to. */
function sameAuthority(origin: URL, host: Authority): boolean {
  const port = host.port === defaultPort(origin.protocol) ? "" : host.port;
  return origin.hostname.replace(/\.$/, "") === host.name && origin.port === port;
}

function defaultPort(protocol: string): string {
  return protocol === "https:" ? "443" : "80";
}

function parseOrigin(origin: string): URL | undefined {
  try {
    const url = new URL(origin);
    return url.protocol === "http:" || url.protocol === "https:" ? url : undefined;
  } catch {
    return undefined; // "null" (a sandboxed page, a file), or not an origin at all
  }
}

function misdirected(host: string | undefined): ProblemError {
  const message = host === undefined ? "is missing" : `${JSON.stringify(host)} is not a name of this gateway (--allowed-host)`;
  return problem("MISDIRECTED_REQUEST", "the request is addressed to a host this gateway does not serve", { errors: [{ header: "host", message }] });
}

function foreignOrigin(origin: string, setting: string, detail: string): ProblemError {
  return problem("FORBIDDEN", detail, {
    errors: [{ header: "origin", message: `${JSON.stringify(origin)} is not an allowed origin (${setting})` }],
  });
}

/** A CORS preflight: OPTIONS asking whether a method may be used. */
function isPreflight(request: FastifyRequest): boolean {
  return request.method === "OPTIONS" && request.headers["access-control-request-method"] !== undefined;
}

// The type is not quoted back: it may be anything a page chose to send.
function notJson(): ProblemError {
  return unsupportedMediaType("a request that changes something takes a JSON body (application/json, application/merge-patch+json or application/json-patch+json), or none", {
    errors: [{ header: "content-type", message: "is not a JSON media type" }],
  });
}
