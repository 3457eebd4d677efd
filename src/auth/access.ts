// Enforcement of each route's declared access (src/auth/scopes.ts), before anything else of the
// route runs: its body is not read, no Manager is called. The credentials (docs/operations/
// authentication.md): a bearer JWT access token (src/auth/jwt.ts), an API key in X-API-Key
// (src/auth/api-keys.ts), or the client certificate the HTTPS listener required. A request
// without valid credentials is a 401 that names the credentials accepted and says nothing of
// why the request's were not (the reason is logged at debug): not whether a key name exists,
// nor which check a token failed. Valid credentials without the route's scope are a 403 naming
// the scope. Keys of the issuer that cannot be fetched are a 503, never the client's 401.
// Without any authentication configured every request is the anonymous principal, with every
// scope.
//
// Two hooks, which the app runs with the Host check between them (docs/architecture.md, "Who
// is asking, then what is refused"): identify finds who the caller is and refuses nothing;
// enforce refuses. So every later refusal (a 415, a cross-site 403) names its principal, and
// the Host's 421 is the same whatever the credentials.
import type { TLSSocket } from "node:tls";
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions, onRequestHookHandler } from "fastify";
import { QUERY_TOKEN } from "../http/credential-query.js";
import { PROBLEM_CONTENT_TYPE, invalidArgument, problem, toProblem } from "../http/problem.js";
import type { ProblemError } from "../http/problem.js";
import type { ApiKeys } from "./api-keys.js";
import { subjectOf } from "./distinguished-name.js";
import { KeysUnavailable, TokenRefused } from "./jwt.js";
import type { JwtVerifier } from "./jwt.js";
import type { Principal } from "./principal.js";
import { OPEN, SCOPES, isScope } from "./scopes.js";
import type { Scope } from "./scopes.js";

/** The realm of every challenge (RFC 6750, "The WWW-Authenticate Response Header Field"). */
export const REALM = "norsk-manager-gateway";

/** The header an API key is sent in. */
export const API_KEY_HEADER = "x-api-key";

export interface AccessOptions {
  /** Bearer JWT access tokens in Authorization. Default: none (Authorization is then only forwarded). */
  readonly jwt?: JwtVerifier | undefined;
  /** API keys in X-API-Key, and the scopes of client certificates. Default: none. */
  readonly apiKeys?: ApiKeys | undefined;
  /** The listener requires a client certificate it has verified (--tls-client-ca). Default: false. */
  readonly clientCertificates?: boolean | undefined;
  /** Told of each request answered 503 because the issuer's keys could not be fetched. */
  readonly onKeysUnavailable?: (() => void) | undefined;
  /**
   * Told of each request refused 401, which is answered once this settles: with the error it
   * resolves with instead, if any (src/server/refusal-limit.ts: a 429 past the allowance). Default: none.
   */
  readonly onRefused?: ((request: FastifyRequest, reply: FastifyReply) => Promise<Error | undefined>) | undefined;
}

/** The two hooks of registerAccess, for the app to run in this order with its Host check between them. */
export interface AccessHooks {
  /** Who the caller of a protected route is (request.principal); refuses nothing. */
  readonly identify: onRequestHookHandler;
  /**
   * Refuses a protected route's request that carries a token in its query (400), has no valid
   * credentials (401, or 503 when the issuer's keys cannot be fetched), or lacks the route's
   * scope (403).
   */
  readonly enforce: onRequestHookHandler;
}

const ANONYMOUS: Principal = { id: "anonymous", kind: "anonymous", scopes: new Set(Object.keys(SCOPES)) };

/** Whether any authentication is configured. */
export function authenticates(options: AccessOptions): boolean {
  return options.jwt !== undefined || options.apiKeys !== undefined || options.clientCertificates === true;
}

/** Which ways to authenticate are configured, as the 401's detail names them. */
export interface AcceptedCredentials {
  readonly bearer: boolean;
  readonly apiKey: boolean;
  readonly certificate: boolean;
}

/**
 * What a 401 says: the credentials accepted, by the header of each configured way, and nothing
 * of why the request's were not.
 */
export function unauthenticatedDetail(accepted: AcceptedCredentials): string {
  const ways: string[] = [];
  if (accepted.bearer) ways.push("a bearer token in the Authorization header");
  if (accepted.apiKey) ways.push("an API key in the X-API-Key header");
  if (accepted.certificate) ways.push(ways.length === 0 ? "a client certificate" : "the client certificate alone");
  const last = ways.pop() ?? "credentials";
  return `the request has no valid credentials; send ${ways.length === 0 ? last : `${ways.join(", ")} or ${last}`}`;
}

/**
 * Checks the access of every route of `app` added after this call: each must declare it (the
 * app fails to start otherwise, naming the route), and each request is held to it by the hooks
 * returned, which the caller adds.
 */
export function registerAccess(app: FastifyInstance, options: AccessOptions): AccessHooks {
  app.decorateRequest("principal", null);
  checkDeclarations(app);
  if (!authenticates(options)) {
    // Without authentication every request is anonymous, and both hooks stay synchronous: no
    // promise for a request that awaits nothing.
    return {
      identify: (request, _reply, done) => {
        if (requiredScope(request) !== undefined) request.principal = ANONYMOUS;
        done();
      },
      enforce: (request, reply, done) => {
        done(requiredScope(request) === undefined ? undefined : queryTokenRefusal(request, reply));
      },
    };
  }
  const keysLog = new KeysLog(app, options.onKeysUnavailable);
  /** Why identify found no principal, for enforce to answer. */
  const failures = new WeakMap<FastifyRequest, unknown>();
  return { identify: identifyHook(options, keysLog, failures), enforce: enforceHook(options, keysLog, failures) };
}

/** The identify hook: the principal of a protected route's request, or why there is none in `failures`. */
function identifyHook(options: AccessOptions, keysLog: KeysLog, failures: WeakMap<FastifyRequest, unknown>): onRequestHookHandler {
  return (request, _reply, done) => {
    if (requiredScope(request) === undefined) {
      done();
      return;
    }
    let found: Principal | Promise<Principal>;
    try {
      found = authenticate(request, options, keysLog);
    } catch (error) {
      failures.set(request, error);
      done();
      return;
    }
    // Only a bearer token is verified asynchronously: a key, a certificate or none costs no promise.
    if (!(found instanceof Promise)) {
      request.principal = found;
      done();
      return;
    }
    found.then(
      (principal) => {
        request.principal = principal;
        done();
      },
      (error: unknown) => {
        failures.set(request, error);
        done();
      },
    );
  };
}

/** The enforce hook: refuses what identify found, in the order AccessHooks says. */
function enforceHook(options: AccessOptions, keysLog: KeysLog, failures: WeakMap<FastifyRequest, unknown>): onRequestHookHandler {
  const detail = unauthenticatedDetail({ bearer: options.jwt !== undefined, apiKey: options.apiKeys !== undefined, certificate: options.clientCertificates === true });
  return (request, reply, done) => {
    const access = requiredScope(request);
    if (access === undefined) {
      done();
      return;
    }
    const failure = failures.get(request);
    const queryToken = queryTokenRefusal(request, reply);
    if (queryToken === undefined && failure instanceof KeysUnavailable) {
      answerKeysUnavailable(request, reply, failure, keysLog);
      return;
    }
    const refusal = queryToken ?? credentialsRefusal(request, reply, failure, detail);
    const { onRefused } = options;
    if (queryToken === undefined && refusal !== undefined && onRefused !== undefined) {
      onRefused(request, reply).then((instead) => { done(instead ?? refusal); }, () => { done(refusal); });
      return;
    }
    done(refusal ?? scopeRefusal(request, reply, access));
  };
}

/** Fails the app's start when a route declares no access (checked once all are added). */
function checkDeclarations(app: FastifyInstance): void {
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
      `${routeName(undeclared)} declares no access: give its options config: { access: <a scope of src/auth/scopes.ts> } or { access: OPEN }`,
    ));
  });
}

/** The 401 of a request whose credentials identify found invalid or absent; undefined when it found a principal. */
function credentialsRefusal(request: FastifyRequest, reply: FastifyReply, failure: unknown, detail: string): ProblemError | undefined {
  if (failure === undefined) return undefined;
  if (!(failure instanceof TokenRefused)) throw failure instanceof Error ? failure : new Error("authentication failed with a value that is not an Error");
  request.log.debug({ reason: failure.message }, "credentials refused");
  void reply.header("www-authenticate", `Bearer realm="${REALM}", error="invalid_token"`);
  return problem("UNAUTHENTICATED", detail);
}

function scopeRefusal(request: FastifyRequest, reply: FastifyReply, access: Scope): ProblemError | undefined {
  if (request.principal?.scopes.has(access) === true) return undefined;
  void reply.header("www-authenticate", `Bearer realm="${REALM}", error="insufficient_scope", scope="${access}"`);
  return problem("PERMISSION_DENIED", `the credentials do not carry the scope ${access}`);
}

/**
 * The 503 of a bearer token whose issuer's keys cannot be fetched, answered here rather than by
 * the app's error handler, which logs each 5xx at error with its stack: the outage is logged
 * once (KeysLog), each request at debug.
 */
function answerKeysUnavailable(request: FastifyRequest, reply: FastifyReply, failure: KeysUnavailable, keysLog: KeysLog): void {
  keysLog.down(failure.message);
  request.log.debug({ reason: failure.message }, "bearer token not verified: the issuer's keys cannot be fetched");
  void reply.code(503).type(PROBLEM_CONTENT_TYPE).send(toProblem(problem("AUTH_KEYS_UNAVAILABLE", failure.message), request));
}

/** Whether the request's route is protected: its credentials are checked. */
export function isProtected(request: FastifyRequest): boolean {
  return requiredScope(request) !== undefined;
}

/** The scope the request's route requires; undefined for an open route, and for no route (a 404: nothing to protect). */
function requiredScope(request: FastifyRequest): Scope | undefined {
  const access = request.routeOptions.config.access;
  return access === undefined || access === OPEN ? undefined : access;
}

function declared(access: unknown): boolean {
  return access === OPEN || (typeof access === "string" && isScope(access));
}

function routeName(options: RouteOptions): string {
  const methods = Array.isArray(options.method) ? options.method.join(",") : options.method;
  return `${methods} ${options.url}`;
}

/** RFC 6750 §2.3's form: a token in the URL ends up in logs and histories; refused, never read. */
function queryTokenRefusal(request: FastifyRequest, reply: FastifyReply): ProblemError | undefined {
  const query = request.url.indexOf("?");
  if (query === -1 || !new URLSearchParams(request.url.slice(query + 1)).has(QUERY_TOKEN)) return undefined;
  void reply.header("www-authenticate", `Bearer realm="${REALM}", error="invalid_request"`);
  return invalidArgument(`a token is not taken from the query string; send it in the Authorization header`, {
    errors: [{ parameter: QUERY_TOKEN, message: "is not accepted" }],
  });
}

/**
 * The principal of the request's one credential; throws TokenRefused (any reason for a 401), or
 * rejects with it or KeysUnavailable. Synchronous but for a bearer token.
 */
function authenticate(request: FastifyRequest, options: AccessOptions, keysLog: KeysLog): Principal | Promise<Principal> {
  const authorization = request.headers.authorization;
  const bearer = options.jwt !== undefined && authorization !== undefined && /^bearer /i.test(authorization) ? authorization.slice(7).trim() : undefined;
  const key = options.apiKeys === undefined ? undefined : request.headers[API_KEY_HEADER];
  if (bearer !== undefined && key !== undefined) throw new TokenRefused("both a bearer token and an API key were sent");
  if (bearer !== undefined && options.jwt !== undefined) {
    return options.jwt.verify(bearer).then((token) => {
      keysLog.up();
      return { id: token.subject, kind: "jwt", scopes: token.scopes, expiresAtMs: token.expiresAtMs };
    });
  }
  if (key !== undefined && options.apiKeys !== undefined) {
    if (typeof key !== "string") throw new TokenRefused("more than one X-API-Key header");
    const found = options.apiKeys.find(key);
    if (found === undefined) throw new TokenRefused("no API key matches");
    return { id: found.name, kind: "api-key", scopes: found.scopes, revoked: found.revoked };
  }
  if (options.clientCertificates === true) {
    const subject = certificateSubject(request);
    if (subject === undefined) throw new TokenRefused("no verified client certificate");
    const entry = subject.commonName === undefined ? undefined : options.apiKeys?.certificate(subject.commonName);
    return { id: subject.name, kind: "certificate", scopes: entry?.scopes ?? new Set(), ...(entry === undefined ? {} : { revoked: entry.revoked }) };
  }
  throw new TokenRefused("no credentials");
}

/** The subject of the client certificate the TLS handshake verified, if any (src/auth/distinguished-name.ts). */
function certificateSubject(request: FastifyRequest): ReturnType<typeof subjectOf> | undefined {
  const socket = request.raw.socket as Partial<TLSSocket> | null;
  if (socket?.authorized !== true || typeof socket.getPeerX509Certificate !== "function") return undefined;
  const certificate = socket.getPeerX509Certificate();
  return certificate === undefined ? undefined : subjectOf(certificate);
}

/** The issuer's keys' outage, logged at warn when it starts and when it ends, not once per request. */
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
    this.app.log.warn("the issuer's signing keys can be fetched again");
  }
}
