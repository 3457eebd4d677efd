// Per-client rate limits (--rate-limit), by @fastify/rate-limit: each client may make `max`
// requests in a window of `windowMs`, counted from its first request in the window (a fixed
// window per client, in this process's memory, or with `store` in the one every replica shares:
// src/server/rate-limit-store.ts); one more is a 429 problem with Retry-After
// and the RateLimit-Limit, -Remaining and -Reset headers of the IETF draft (also on the
// requests allowed). A client is its address (behind a proxy of --trust-proxy, the one that
// proxy forwarded: src/server/trust-proxy.ts), or, with `key: "authorization"`, its
// Authorization header (a client without one is its address), or, with `key: "principal"`, the
// principal its credentials proved (src/auth/access.ts runs first; without one, its address). The exempt paths (probes,
// metrics) are never counted nor refused.
import { createHash } from "node:crypto";
import rateLimit from "@fastify/rate-limit";
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from "@fastify/rate-limit";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { problem } from "../http/problem.js";
import type { Count, Counter } from "./rate-limit-store.js";

/** What identifies a client: its address, its Authorization header, or its authenticated principal. */
export type RateLimitKey = "address" | "authorization" | "principal";

const KEYS: Readonly<Record<RateLimitKey, (request: FastifyRequest) => string>> = { address: addressKey, authorization: authorizationKey, principal: principalKey };

export interface RateLimitOptions {
  /** Requests a client may make in a window. */
  readonly max: number;
  /** The window, in ms. */
  readonly windowMs: number;
  /** What identifies a client. Default: "address". */
  readonly key?: RateLimitKey;
  /** Told of each request refused. */
  readonly onLimited?: () => void;
  /**
   * Where the counts are kept (src/server/rate-limit-store.ts); a request it cannot count is
   * served. Default: this process's memory, for the CLIENTS most recent clients.
   */
  readonly store?: Counter | undefined;
}

/** `--rate-limit`'s form: requests, a slash, and a window: `100/s`, `6000/m`, `50/10s`, `1000/h`. */
export const RATE_PATTERN = "^([1-9][0-9]{0,8})/([1-9][0-9]{0,5})?(s|m|h)$";

const UNIT_MS: Readonly<Record<string, number>> = { s: 1_000, m: 60_000, h: 3_600_000 };

/** The limit a `--rate-limit` value (matching RATE_PATTERN) sets. */
export function parseRate(text: string): { readonly max: number; readonly windowMs: number } {
  const match = new RegExp(RATE_PATTERN).exec(text);
  if (match === null) throw new Error(`not a rate (requests/window, e.g. 100/s): ${JSON.stringify(text)}`);
  const [, requests = "", count = "1", unit = "s"] = match;
  return { max: Number(requests), windowMs: Number(count) * (UNIT_MS[unit] ?? 1_000) };
}

/** Headers the rate limit adds to answers (for CORS to expose to a page's script). */
export const RATE_LIMIT_HEADERS: readonly string[] = ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"];

/**
 * Clients counted at once; one more evicts the least recent (which then starts afresh). As many
 * as the default connection cap, so that evictions need that many clients in one window.
 */
export const CLIENTS = 10_000;

/**
 * Limits every route of `app` registered after this call, except those whose template is one
 * of `exempt`. Route hooks run after the app's own onRequest hooks, so a refusal is logged,
 * counted and carries the request id, and a request already shed or refused is not counted.
 */
export async function registerRateLimit(app: FastifyInstance, options: RateLimitOptions, exempt: ReadonlySet<string>): Promise<void> {
  const keyOf = KEYS[options.key ?? "address"];
  await app.register(rateLimit, {
    global: true,
    max: options.max,
    timeWindow: options.windowMs,
    cache: CLIENTS,
    ...(options.store === undefined ? {} : { store: pluginStore(options.store), skipOnError: true }),
    enableDraftSpec: true,
    keyGenerator: keyOf,
    allowList: (request) => exempt.has(request.routeOptions.url ?? ""),
    onExceeded: () => options.onLimited?.(),
    errorResponseBuilder: (_request, context) =>
      problem("TOO_MANY_REQUESTS", `more than ${String(context.max)} requests in ${describeWindow(options.windowMs)}; try again in ${String(Math.ceil(context.ttl / 1_000))} s`),
  });
}

/** Why a request was not counted: the plugin, told skipOnError, then serves it. */
const UNCOUNTED = new Error("the rate-limit store did not count the request");

/** `counter` as @fastify/rate-limit's store. */
function pluginStore(counter: Counter): FastifyRateLimitStoreCtor {
  return class implements FastifyRateLimitStore {
    incr(key: string, callback: (error: Error | null, result?: Count) => void, windowMs: number, max: number): void {
      void counter.count(key, windowMs, max).then((count) => {
        if (count === undefined) callback(UNCOUNTED);
        else callback(null, count);
      });
    }

    child(): FastifyRateLimitStore {
      return this;
    }
  };
}

/**
 * Counts in this process's memory, for the `clients` most recent clients: a Map in order of
 * each key's last count, whose first key is evicted for one more (and starts afresh).
 */
export function localCounter(clients: number = CLIENTS): Counter {
  const windows = new Map<string, { current: number; startMs: number }>();
  return {
    count: (key, windowMs) => {
      const now = Date.now();
      const found = windows.get(key);
      windows.delete(key);
      const window = found === undefined || found.startMs + windowMs <= now ? { current: 0, startMs: now } : found;
      window.current += 1;
      windows.set(key, window);
      if (windows.size > clients) windows.delete(windows.keys().next().value ?? key);
      return Promise.resolve({ current: window.current, ttl: window.startMs + windowMs - now });
    },
  };
}

function addressKey(request: FastifyRequest): string {
  return `address ${request.ip}`;
}

/**
 * The Authorization header, hashed (the limiter's table then holds no credential), or the
 * address for a request without one.
 */
function authorizationKey(request: FastifyRequest): string {
  const authorization = request.headers.authorization;
  if (authorization === undefined || authorization === "") return addressKey(request);
  return `authorization ${createHash("sha256").update(authorization).digest("base64url")}`;
}

/**
 * The principal the request authenticated as (its kind and id: a key and a token's subject of
 * the same name are two clients), or the address when there is none: an open route, no
 * authentication configured (every request is then the one anonymous principal).
 */
function principalKey(request: FastifyRequest): string {
  // An app built without the access hook has no principal at all.
  const { principal } = request as Partial<Pick<FastifyRequest, "principal">>;
  if (principal === undefined || principal === null || principal.kind === "anonymous") return addressKey(request);
  return `principal ${principal.kind} ${principal.id}`;
}

export function describeWindow(ms: number): string {
  if (ms % 3_600_000 === 0) return ms === 3_600_000 ? "an hour" : `${String(ms / 3_600_000)} hours`;
  if (ms % 60_000 === 0) return ms === 60_000 ? "a minute" : `${String(ms / 60_000)} minutes`;
  return ms === 1_000 ? "a second" : `${String(ms / 1_000)} seconds`;
}
