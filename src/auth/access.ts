// Enforcement of each route's declared access (src/auth/scopes.ts), before anything else of the
// route runs: its body is not read, no Manager is called. The credentials (docs/operations/
// authentication.md): a bearer JWT access token (src/auth/jwt.ts), an API key in X-API-Key
// (src/auth/api-keys.ts), or the client certificate the HTTPS listener required. A request
// without valid credentials is a 401 that says nothing of why (the reason is logged at debug):
// not whether a key name exists, nor which check a token failed. Valid credentials without
// the route's scope are a 403 naming the scope. Keys of the issuer that cannot be fetched are
// a 503, never the client's 401. Without any authentication configured every request is the
// anonymous principal, with every scope.
import type { TLSSocket } from "node:tls";
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from "fastify";
import { QUERY_TOKEN, invalidArgument, problem } from "../http/problem.js";
import type { ApiKeys } from "./api-keys.js";
import { KeysUnavailable, TokenRefused } from "./jwt.js";
import type { JwtVerifier } from "./jwt.js";
import type { Principal } from "./principal.js";
import { OPEN, SCOPES, isScope } from "./scopes.js";
import type { Scope } from "./scopes.js";

/** The realm of every challenge (RFC 6750, "The WWW-Authenticate Response Header Field"). */
export const REALM = "norsk-manager-gateway";

/** The header an API key is sent in. */
export const API_KEY_HEADER = "x-api-key";

/** The Retry-After of a 503 for the issuer's keys, in seconds: about the keys' fetch timeout. */
export const KEYS_RETRY_AFTER_S = 5;

export interface AccessOptions {
  /** Bearer JWT access tokens in Authorization. Default: none (Authorization is then only forwarded). */
  readonly jwt?: JwtVerifier | undefined;
  /** API keys in X-API-Key, and the scopes of client certificates. Default: none. */
  readonly apiKeys?: ApiKeys | undefined;
  /** The listener requires a client certificate it has verified (--tls-client-ca). Default: false. */
  readonly clientCertificates?: boolean | undefined;
  /** Told of each request answered 503 because the issuer's keys could not be fetched. */
  readonly onKeysUnavailable?: (() => void) | undefined;
}

const ANONYMOUS: Principal = { id: "anonymous", kind: "anonymous", scopes: new Set(Object.keys(SCOPES)) };

/** Whether any authentication is configured. */
export function authenticates(options: AccessOptions): boolean {
  return options.jwt !== undefined || options.apiKeys !== undefined || options.clientCertificates === true;
}

/**
 * Checks the access of every route of `app` added after this call: each must declare it (the
 * app fails to start otherwise, naming the route), and each request is held to it.
 */
export function registerAccess(app: FastifyInstance, options: AccessOptions): void {
  app.decorateRequest("principal", null);
  const routes: RouteOptions[] = [];
  // Checked once all are added: a plugin (Swagger UI's) declares its routes open by a hook of
  // its own, which runs after this one.
  app.addHook("onRoute", (route) => {
    // A CORS preflight (OPTIONS) never carries credentials (Fetch, "CORS-preflight request"); the request it precedes is checked.
    if (route.method === "OPTIONS" && route.config?.access === undefined) route.config = { ...route.config, access: OPEN };
    routes.push(route);
  });
  app.addHook("onReady", (done) => {
    const undeclared = routes.find((route) => !declared(route.config?.access));
    done(undeclared === undefined ? undefined : new Error(
      `${route(undeclared)} declares no access: give its options config: { access: <a scope of src/auth/scopes.ts> } or { access: OPEN }`,
    ));
  });
  if (!authenticates(options)) {
    // Without authentication every request is anonymous, and the hook stays synchronous: no
    // promise for a request that awaits nothing.
    app.addHook("onRequest", (request, reply, done) => {
      if (requiredScope(request) === undefined) {
        done();
        return;
      }
      try {
        refuseQueryToken(request, reply);
      } catch (error) {
        done(error as Error);
        return;
      }
      request.principal = ANONYMOUS;
      done();
    });
    return;
  }
  const keysLog = new KeysLog(app, options.onKeysUnavailable);
  app.addHook("onRequest", async (request, reply) => {
    const access = requiredScope(request);
    if (access === undefined) return;
    refuseQueryToken(request, reply);
    const principal = await authenticate(request, options, keysLog).catch((error: unknown) => {
      if (error instanceof TokenRefused) {
        request.log.debug({ reason: error.message }, "credentials refused");
        void reply.header("www-authenticate", `Bearer realm="${REALM}", error="invalid_token"`);
        throw problem("UNAUTHENTICATED", "the request has no valid credentials");
      }
      if (error instanceof KeysUnavailable) {
        keysLog.down(error.message);
        void reply.header("retry-after", String(KEYS_RETRY_AFTER_S));
        throw problem("AUTH_KEYS_UNAVAILABLE", error.message);
      }
      throw error;
    });
    request.principal = principal;
    if (!principal.scopes.has(access)) {
      void reply.header("www-authenticate", `Bearer realm="${REALM}", error="insufficient_scope", scope="${access}"`);
      throw problem("PERMISSION_DENIED", `the credentials do not carry the scope ${access}`);
    }
  });
}

/** The scope the request's route requires; undefined for an open route, and for no route (a 404: nothing to protect). */
function requiredScope(request: FastifyRequest): Scope | undefined {
  const access = request.routeOptions.config.access;
  return access === undefined || access === OPEN ? undefined : access;
}

function declared(access: unknown): boolean {
  return access === OPEN || (typeof access === "string" && isScope(access));
}

function route(options: RouteOptions): string {
  const methods = Array.isArray(options.method) ? options.method.join(",") : options.method;
  return `${methods} ${options.url}`;
}

/** RFC 6750 §2.3's form: a token in the URL ends up in logs and histories; refused, never read. */
function refuseQueryToken(request: FastifyRequest, reply: FastifyReply): void {
  const query = request.url.indexOf("?");
  if (query === -1 || !new URLSearchParams(request.url.slice(query + 1)).has(QUERY_TOKEN)) return;
  void reply.header("www-authenticate", `Bearer realm="${REALM}", error="invalid_request"`);
  throw invalidArgument(`a token is not taken from the query string; send it in the Authorization header`, {
    errors: [{ parameter: QUERY_TOKEN, message: "is not accepted" }],
  });
}

/** The principal of the request's one credential; throws TokenRefused (any reason for a 401) or KeysUnavailable. */
async function authenticate(request: FastifyRequest, options: AccessOptions, keysLog: KeysLog): Promise<Principal> {
  const authorization = request.headers.authorization;
  const bearer = options.jwt !== undefined && authorization !== undefined && /^bearer /i.test(authorization) ? authorization.slice(7).trim() : undefined;
  const key = options.apiKeys === undefined ? undefined : request.headers[API_KEY_HEADER];
  if (bearer !== undefined && key !== undefined) throw new TokenRefused("both a bearer token and an API key were sent");
  if (bearer !== undefined && options.jwt !== undefined) {
    const token = await options.jwt.verify(bearer);
    keysLog.up();
    return { id: token.subject, kind: "jwt", scopes: token.scopes, expiresAtMs: token.expiresAtMs };
  }
  if (key !== undefined && options.apiKeys !== undefined) {
    if (typeof key !== "string") throw new TokenRefused("more than one X-API-Key header");
    const found = options.apiKeys.find(key);
    if (found === undefined) throw new TokenRefused("no API key matches");
    return { id: found.name, kind: "api-key", scopes: found.scopes };
  }
  if (options.clientCertificates === true) {
    const subject = certificateSubject(request);
    if (subject === undefined) throw new TokenRefused("no verified client certificate");
    const entry = subject.commonName === undefined ? undefined : options.apiKeys?.certificate(subject.commonName);
    return { id: subject.text, kind: "certificate", scopes: entry?.scopes ?? new Set() };
  }
  throw new TokenRefused("no credentials");
}

interface Subject {
  /** The subject as OpenSSL prints it one-line: "CN=ci,O=Example". */
  readonly text: string;
  readonly commonName: string | undefined;
}

/** The subject of the client certificate the TLS handshake verified, if any. */
function certificateSubject(request: FastifyRequest): Subject | undefined {
  const socket = request.raw.socket as Partial<TLSSocket> | null;
  if (socket?.authorized !== true || typeof socket.getPeerCertificate !== "function") return undefined;
  const subject = socket.getPeerCertificate().subject as Record<string, string | string[] | undefined> | undefined;
  if (subject === undefined) return undefined;
  const text = Object.entries(subject).map(([name, value]) => `${name}=${Array.isArray(value) ? value.join("+") : String(value)}`).join(",");
  const cn = subject.CN;
  return { text, commonName: typeof cn === "string" ? cn : undefined };
}

/** The issuer's keys' outage, logged when it starts and when it ends, not once per request. */
class KeysLog {
  private isDown = false;

  constructor(
    private readonly app: FastifyInstance,
    private readonly onUnavailable: (() => void) | undefined,
  ) {}

  down(reason: string): void {
    this.onUnavailable?.();
    if (this.isDown) return;
    this.isDown = true;
    this.app.log.warn({ reason }, "the issuer's signing keys cannot be fetched; bearer tokens are answered 503");
  }

  up(): void {
    if (!this.isDown) return;
    this.isDown = false;
    this.app.log.info("the issuer's signing keys can be fetched again");
  }
}
