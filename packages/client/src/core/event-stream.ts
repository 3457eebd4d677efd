// A stream of typed events (Server-Sent Events) that survives a dropped connection: after a
// drop, or an `error` event whose failure may pass (src/core/retryable.ts), it connects again
// after the stream's own `retry:` delay, sending the last `id:` as Last-Event-ID, and goes on.
// The gateway cannot resume a stream (docs/guide/events.md, "Reconnecting"): each connection
// starts with a fresh picture, so every event says which connection it came on, and a caller
// that keeps state replaces it with each connection's picture. An `error` event that will not
// pass is thrown as its ProblemError; abort() ends the iteration without an error.
import { backoffDelay, retryAfterDelay, sleep } from "./backoff.js";
import type { Backoff } from "./backoff.js";
import type { RequestOptions } from "./options.js";
import { ConnectionError, ProblemError, problemError } from "./problem.js";
import type { Problem } from "./problem.js";
import { serverSentEvents } from "./sse.js";
import type { StreamState } from "./sse.js";
import type { Call, Opened, Transport } from "./transport.js";

/** What the client adds to each event. */
export interface EventMeta {
  /** The SSE id of the event (ids count from 1 on each connection). */
  readonly id: string | undefined;
  /** 1 on the first connection, 2 after the first reconnection, and so on: each starts with a fresh picture. */
  readonly connection: number;
}

export interface StreamOptions extends RequestOptions {
  /**
   * Connect again after the stream drops, or ends with a failure that may pass (the Manager or
   * the gateway going away, a client too slow); false: throw it.
   * @default true
   */
  readonly reconnect?: boolean;
}

/** The reconnection delay until the stream says its own (`retry:`), as the gateway's streams do. */
const DEFAULT_RETRY_MS = 2_000;

export interface StreamSource {
  readonly transport: Transport;
  readonly backoff: Backoff;
  readonly call: Call;
  /** The names of the events this stream may send; an event of another name (a newer gateway's) is skipped. */
  readonly names: ReadonlySet<string>;
}

export async function* followStream<E extends { readonly event: string }>(source: StreamSource, options: StreamOptions): AsyncGenerator<E & EventMeta, void, undefined> {
  const { reconnect = true, signal } = options;
  const state: StreamState = { lastEventId: undefined, retryMs: undefined };
  let connection = 0;
  let failures = 0;
  for (;;) {
    let wait: number;
    try {
      const opened = await connect(source, options, state);
      connection += 1;
      failures = 0;
      yield* eventsOf<E>(opened, source.names, state, connection);
      if (!reconnect) throw new ConnectionError("the event stream ended");
      wait = state.retryMs ?? DEFAULT_RETRY_MS;
    } catch (error) {
      if (signal?.aborted === true) return;
      if (!reconnect || !mayPass(error)) throw error;
      const retryAfter = error instanceof ProblemError ? retryAfterDelay(error.response?.headers.get("retry-after") ?? null, source.backoff) : undefined;
      wait = retryAfter ?? Math.max(state.retryMs ?? DEFAULT_RETRY_MS, backoffDelay(failures++, source.backoff));
    }
    try {
      await sleep(wait, signal);
    } catch {
      return;
    }
  }
}

function connect(source: StreamSource, options: StreamOptions, state: StreamState): Promise<Opened> {
  const headers = { ...source.call.headers, "last-event-id": state.lastEventId };
  // The stream's own loop reconnects; the transport's retries would only wait without it.
  return source.transport.open({ ...source.call, headers, accept: "text/event-stream" }, { ...options, maxRetries: 0 });
}

function mayPass(error: unknown): boolean {
  return error instanceof ConnectionError || (error instanceof ProblemError && error.retryable);
}

async function* eventsOf<E>(opened: Opened, names: ReadonlySet<string>, state: StreamState, connection: number): AsyncGenerator<E & EventMeta, void, undefined> {
  const { response, deadline } = opened;
  deadline.endTimeout();
  try {
    if (response.body === null) return;
    for await (const message of serverSentEvents(response.body, state)) {
      if (message.event === "error") throw problemError(JSON.parse(message.data) as Problem);
      if (!names.has(message.event)) continue;
      const event: unknown = { event: message.event, data: JSON.parse(message.data) as unknown, id: message.id, connection };
      yield event as E & EventMeta;
    }
  } catch (error) {
    if (error instanceof ProblemError || deadline.signal.aborted) throw error;
    // The body broke off (a reset, a gateway gone): the stream dropped.
    throw new ConnectionError("the event stream broke off", { cause: error });
  } finally {
    deadline.abort();
    deadline.release();
  }
}
