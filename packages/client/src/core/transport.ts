// Sends one operation of the catalogue (src/gen/operations.ts) and returns its answer once it
// is a success, or throws the error of the last attempt. The one place that builds a URL,
// puts credentials in headers, bounds a call in time, links the caller's AbortSignal, and
// decides whether a request may be sent again: only when the catalogue says a second one
// cannot make a second change, and only for a failure that may pass (src/core/retryable.ts).
import { OPERATIONS } from "../gen/operations.js";
import type { OperationId } from "../gen/operations.js";
import type { Authenticator } from "./auth.js";
import { backoffDelay, retryAfterDelay, sleep } from "./backoff.js";
import type { Backoff } from "./backoff.js";
import { Deadline } from "./deadline.js";
import type { RequestOptions } from "./options.js";
import { ConnectionError } from "./problem.js";
import { problemErrorOf } from "./problem-answer.js";

/** One request: an operation and what fills its path, query, headers and body. */
export interface Call {
  readonly operation: OperationId;
  readonly path?: Readonly<Record<string, string>>;
  /** Each value a string, number or boolean, or an array of them (the parameter repeated); undefined ones left out. */
  readonly query?: object | undefined;
  readonly headers?: Readonly<Record<string, string | undefined>>;
  /** Sent as JSON. */
  readonly body?: unknown;
  /** The body's media type. Default: application/json. */
  readonly mediaType?: string;
  /** Default: application/json. */
  readonly accept?: string;
}

export interface TransportSettings {
  readonly baseUrl: string;
  readonly fetch: typeof fetch;
  readonly timeoutMs: number;
  readonly maxRetries: number;
  readonly backoff: Backoff;
  readonly headers: Readonly<Record<string, string>>;
  readonly auth: Authenticator;
}

/** A success answer, and the deadline that still bounds reading its body. */
export interface Opened {
  readonly response: Response;
  readonly deadline: Deadline;
}

export class Transport {
  readonly #settings: TransportSettings;

  constructor(settings: TransportSettings) {
    this.#settings = settings;
  }

  /**
   * The answer's JSON (undefined for a body-less answer: a 204, a 304), read within the call's
   * deadline, and the answer. The value is what the operation's answer says it is: the
   * resource types it (src/resources).
   */
  async json(call: Call, options: RequestOptions = {}): Promise<{ readonly value: unknown; readonly response: Response }> {
    const { response, deadline } = await this.open(call, options);
    try {
      const text = await deadline.bound(response.text());
      return { value: text === "" ? undefined : (JSON.parse(text) as unknown), response };
    } finally {
      deadline.release();
    }
  }

  /**
   * Sends `call`, retrying as the catalogue allows, until a success answer (a 2xx or 304). The
   * caller reads its body and then releases the deadline; a stream calls
   * deadline.endTimeout() first, as a stream's timeout ends when it starts.
   */
  async open(call: Call, options: RequestOptions = {}): Promise<Opened> {
    const deadline = new Deadline(options.timeoutMs ?? this.#settings.timeoutMs, options.signal);
    try {
      return { response: await this.#send(call, options, deadline), deadline };
    } catch (error) {
      deadline.release();
      throw error;
    }
  }

  async #send(call: Call, options: RequestOptions, deadline: Deadline): Promise<Response> {
    const settings = this.#settings;
    const entry = OPERATIONS[call.operation];
    const url = urlOf(settings.baseUrl, entry.path, call);
    const headers = lowerCased({ ...settings.headers, ...options.headers, ...call.headers });
    const mayRetry = entry.retry === "always" || (entry.retry === "ifMatch" && headers["if-match"] !== undefined);
    const maxRetries = mayRetry ? (options.maxRetries ?? settings.maxRetries) : 0;
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    if (body !== undefined) headers["content-type"] = call.mediaType ?? "application/json";
    headers.accept = call.accept ?? "application/json";
    let refreshed = false;
    for (let retry = 0; ; ) {
      const credentials = await deadline.bound(settings.auth.headers());
      let response: Response;
      try {
        response = await settings.fetch(url, { method: entry.method, headers: { ...headers, ...credentials }, body, signal: deadline.signal });
      } catch (error) {
        deadline.throwIfEnded();
        const failure = new ConnectionError(`${entry.method} ${entry.path}: no answer (${error instanceof Error ? error.message : String(error)})`, { cause: error });
        if (retry >= maxRetries) throw failure;
        await this.#wait(backoffDelay(retry++, settings.backoff), deadline, failure);
        continue;
      }
      if (response.status === 401 && !refreshed && (await settings.auth.refresh(credentials))) {
        // The gateway refused before doing anything: any request may be sent again, once.
        refreshed = true;
        await response.body?.cancel();
        continue;
      }
      if (response.ok || response.status === 304) return response;
      const failure = await deadline.bound(problemErrorOf(response));
      if (!failure.retryable || retry >= maxRetries) throw failure;
      const wait = retryAfterDelay(response.headers.get("retry-after"), settings.backoff) ?? backoffDelay(retry, settings.backoff);
      retry += 1;
      await this.#wait(wait, deadline, failure);
    }
  }

  /** Waits `ms` before a retry; throws `failure` at once when the deadline would pass first. */
  async #wait(ms: number, deadline: Deadline, failure: Error): Promise<void> {
    if (ms > deadline.remainingMs()) throw failure;
    await sleep(ms, deadline.signal);
  }
}

/** The operation's URL: the base, the path with its parameters encoded, and the query. */
export function urlOf(baseUrl: string, template: string, call: Pick<Call, "path" | "query">): string {
  const path = template.replace(/\{([^}]+)\}/g, (_whole, name: string) => {
    const value = call.path?.[name];
    if (value === undefined) throw new TypeError(`the path parameter ${name} is missing`);
    return encodeURIComponent(value);
  });
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries((call.query ?? {}) as Record<string, unknown>)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? (value as unknown[]) : [value]) query.append(name, String(one));
  }
  const search = query.toString();
  return `${baseUrl.replace(/\/+$/, "")}${path}${search === "" ? "" : `?${search}`}`;
}

function lowerCased(headers: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name.toLowerCase()] = value;
  return out;
}
