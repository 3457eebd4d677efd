// What createClient takes, each default said once, on its field, and kept in DEFAULTS (a test
// holds the two together).

/** How the client authenticates: one of an API key, a bearer token, or a source of tokens; or none. */
export type Credentials =
  | { readonly apiKey: string; readonly token?: undefined; readonly getToken?: undefined }
  | { readonly token: string; readonly apiKey?: undefined; readonly getToken?: undefined }
  | { readonly getToken: () => string | Promise<string>; readonly apiKey?: undefined; readonly token?: undefined }
  | { readonly apiKey?: undefined; readonly token?: undefined; readonly getToken?: undefined };

interface CommonOptions {
  /**
   * The gateway's URL: its origin and any path prefix it is served under
   * ("https://gateway.example/norsk"). Credentials never go in it (an API key or token in a
   * URL ends up in logs); they go in headers.
   */
  readonly baseUrl: string;
  /**
   * The fetch to call: the platform's, or one of the caller's (a proxy agent, a test's).
   * @default globalThis.fetch
   */
  readonly fetch?: typeof fetch;
  /**
   * How long a call may take, in milliseconds, its retries and their waits included; a stream's
   * timeout ends when its answer starts. 0 for none.
   * @default 30000
   */
  readonly timeoutMs?: number;
  /**
   * How many times a request that cannot make a second change (a read, a write with If-Match,
   * a create the gateway takes as a safe retry) is sent again after a 503, a 429 or a failed
   * connection. Any other request is never sent again, whatever this says.
   * @default 2
   */
  readonly maxRetries?: number;
  /**
   * The first wait before a retry, in milliseconds, when the answer has no Retry-After; each
   * next wait doubles it, jittered.
   * @default 500
   */
  readonly retryDelayMs?: number;
  /**
   * The longest wait between two attempts, in milliseconds: a Retry-After asking for more is
   * waited this long.
   * @default 60000
   */
  readonly maxRetryDelayMs?: number;
  /**
   * Headers sent with every request (a User-Agent, a tracing header).
   * @default {}
   */
  readonly headers?: Readonly<Record<string, string>>;
}

export type ClientOptions = CommonOptions & Credentials;

/** The defaults of the options above. */
export const DEFAULTS = {
  timeoutMs: 30_000,
  maxRetries: 2,
  retryDelayMs: 500,
  maxRetryDelayMs: 60_000,
} as const;

/** What a call may set for itself, over the client's options. */
export interface RequestOptions {
  /** Aborts the call: its request, a wait before a retry, a stream being read. */
  readonly signal?: AbortSignal;
  /** As the client's timeoutMs, for this call. */
  readonly timeoutMs?: number;
  /** As the client's maxRetries, for this call. */
  readonly maxRetries?: number;
  /** Headers of this call, over the client's (X-Request-Id, Grpc-Timeout). */
  readonly headers?: Readonly<Record<string, string>>;
}
