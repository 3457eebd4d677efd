// The counts of the rate limits kept in Redis (--rate-limit-store), so that every gateway process
// pointed at one store counts one allowance per client (docs/operations/limits.md, "Shared by
// replicas"). The counting is @fastify/rate-limit's own RedisStore (one Lua script: INCR, and
// PEXPIRE at a window's first request), on an ioredis connection.
//
// A limit is protection, not a gate: when the store cannot answer, the request is served
// uncounted. Each count waits at most COMMAND_TIMEOUT_MS (ioredis's commandTimeout; with the
// offline queue off, a count asked while the connection is down fails at once instead of
// waiting for it), and once the store is seen failing it is not asked again for SKIP_MS, but
// by one request at a time, so that a store that accepts and never answers costs each request
// nothing but that one's wait. The outage is logged once at warn when it starts and once when
// it ends, and shown by gateway_rate_limit_store_up.
import { createRequire } from "node:module";
import { Redis } from "ioredis";
import type { RedisOptions } from "ioredis";
import type { FastifyBaseLogger } from "fastify";

/** `--rate-limit-store`'s form: redis:// or rediss:// (TLS), an optional user and password, a host, a port, a database. */
export const STORE_URL_PATTERN = "^rediss?://([^\\s/?#@]*@)?(\\[[0-9a-fA-F:.]+\\]|[A-Za-z0-9.-]+)(:[0-9]{1,5})?(/[0-9]{1,2})?$";

/** A client's count in its window, as @fastify/rate-limit's stores tell it. */
export interface Count {
  readonly current: number;
  /** Time left of the window, in ms. */
  readonly ttl: number;
}

/** What counts requests in windows: this process's memory, or the shared store. */
export interface Counter {
  /** One more for `key` in a window of `windowMs`; undefined when it could not be counted (the request is then served). */
  count(key: string, windowMs: number, max: number): Promise<Count | undefined>;
}

/** The longest a request waits for its count before it is served uncounted. */
export const COMMAND_TIMEOUT_MS = 250;
/** How long a store seen failing is not asked (but by one request at a time, which tells when it is back). */
export const SKIP_MS = 2_000;
/** The longest a connection attempt to the store may take. */
const CONNECT_TIMEOUT_MS = 1_000;
/** The longest pause between attempts to reconnect. */
const MAX_RECONNECT_DELAY_MS = 2_000;
/** Every key the gateway writes starts with this, apart from other users of the store. */
export const KEY_PREFIX = "norsk-manager-gateway:rate-limit:";

export interface StoreOptions {
  /** The store's URL (STORE_URL_PATTERN). Required. */
  readonly url: string;
  /** The password, when it is not in the URL (--rate-limit-store-password-file). Default: the URL's, or none. */
  readonly password?: string | undefined;
  /** Where the outage's start and end are written. Required. */
  readonly log: FastifyBaseLogger;
  /** Told whether the store answers, at each change. */
  readonly onState?: (up: boolean) => void;
  /** Told of each request served uncounted. */
  readonly onUncounted?: () => void;
  /** ioredis's commandTimeout. Default: COMMAND_TIMEOUT_MS. */
  readonly commandTimeoutMs?: number;
  /** How long a failing store is skipped. Default: SKIP_MS. */
  readonly skipMs?: number;
}

/** @fastify/rate-limit's RedisStore, as this module calls it (the package declares no types for it). */
interface RedisCounter {
  incr(key: string, callback: (error: Error | null, result: Count | null) => void, windowMs: number, max: number): void;
}
type RedisCounterClass = new (continueExceeding: boolean, exponentialBackoff: boolean, redis: Redis, nameSpace: string) => RedisCounter;
const RedisStore = createRequire(import.meta.url)("@fastify/rate-limit/store/RedisStore.js") as RedisCounterClass;

/** The store's URL without its user and password: what logs, metrics and errors may show. */
export function redactedStoreUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname === "/" ? "" : parsed.pathname}`;
  } catch {
    return "(an unparsable store URL)";
  }
}

/** Whether the store's URL carries a password. */
export function urlHasPassword(url: string): boolean {
  try {
    return new URL(url).password !== "";
  } catch {
    return false;
  }
}

/** ioredis's options for the store at `url`: bounded waits, nothing queued while disconnected. */
export function connectionOptions(url: string, password: string | undefined, commandTimeoutMs: number): RedisOptions {
  const parsed = new URL(url);
  const host = parsed.hostname.replace(/^\[|\]$/g, "");
  const options: RedisOptions = {
    host,
    port: parsed.port === "" ? 6379 : Number(parsed.port),
    db: parsed.pathname.length > 1 ? Number(parsed.pathname.slice(1)) : 0,
    ...(parsed.username === "" ? {} : { username: decodeURIComponent(parsed.username) }),
    ...(password === undefined && parsed.password === "" ? {} : { password: password ?? decodeURIComponent(parsed.password) }),
    ...(parsed.protocol === "rediss:" ? { tls: { servername: host } } : {}),
    commandTimeout: commandTimeoutMs,
    connectTimeout: CONNECT_TIMEOUT_MS,
    // A count is asked now or not at all: nothing waits for a connection, nothing is retried.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    retryStrategy: (attempt: number) => Math.min(attempt * 100, MAX_RECONNECT_DELAY_MS),
  };
  return options;
}

/** The shared store: counts through Redis, or none when it cannot answer. */
export class RateLimitStore implements Counter {
  readonly #redis: Redis;
  readonly #counter: RedisCounter;
  readonly #options: StoreOptions;
  readonly #label: string;
  readonly #skipMs: number;
  #up: boolean | undefined;
  /** Until when a failing store is not asked, in ms since the epoch. */
  #skipUntil = 0;
  #probing = false;

  constructor(options: StoreOptions) {
    this.#options = options;
    this.#label = redactedStoreUrl(options.url);
    this.#skipMs = options.skipMs ?? SKIP_MS;
    this.#redis = new Redis(connectionOptions(options.url, options.password, options.commandTimeoutMs ?? COMMAND_TIMEOUT_MS));
    this.#counter = new RedisStore(false, false, this.#redis, KEY_PREFIX);
    // Without a listener ioredis writes each connection error to the console.
    this.#redis.on("error", (error: Error) => { this.#down(error.message); });
    this.#redis.on("ready", () => { this.#answered(); });
  }

  count(key: string, windowMs: number, max: number): Promise<Count | undefined> {
    if (this.#up === false && (this.#probing || Date.now() < this.#skipUntil)) {
      this.#uncounted();
      return Promise.resolve(undefined);
    }
    const probe = this.#up === false;
    if (probe) this.#probing = true;
    return new Promise((resolve) => {
      this.#counter.incr(key, (error, result) => {
        if (probe) this.#probing = false;
        if (error !== null || result === null) {
          this.#down(error?.message ?? "no count");
          this.#uncounted();
          resolve(undefined);
          return;
        }
        this.#answered();
        resolve(result);
      }, windowMs, max);
    });
  }

  /**
   * Resolves once the first connection is ready, has failed, or has taken CONNECT_TIMEOUT_MS,
   * whichever is first: the gateway then serves, counted or not, and never waits longer for its store.
   */
  connected(): Promise<void> {
    if (this.#up !== undefined) return Promise.resolve();
    return new Promise((resolve) => {
      const settle = (): void => {
        clearTimeout(timer);
        this.#redis.off("ready", settle);
        this.#redis.off("error", settle);
        resolve();
      };
      const timer = setTimeout(settle, CONNECT_TIMEOUT_MS);
      this.#redis.once("ready", settle);
      this.#redis.once("error", settle);
    });
  }

  /** Closes the connection at once: nothing waits for a store that may not answer. */
  close(): void {
    this.#redis.disconnect();
  }

  #uncounted(): void {
    this.#options.onUncounted?.();
  }

  #answered(): void {
    if (this.#up === true) return;
    const after = this.#up;
    this.#up = true;
    this.#options.onState?.(true);
    if (after === undefined) this.#options.log.info({ store: this.#label }, "the rate-limit store answers");
    else this.#options.log.warn({ store: this.#label }, "the rate-limit store answers again; requests are counted");
  }

  #down(reason: string): void {
    this.#skipUntil = Date.now() + this.#skipMs;
    if (this.#up === false) return;
    this.#up = false;
    this.#options.onState?.(false);
    this.#options.log.warn({ store: this.#label, reason }, "the rate-limit store cannot be reached; requests are served without the limit until it answers");
  }
}
