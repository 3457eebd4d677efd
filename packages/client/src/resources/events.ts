// client.events() and client.status(): the Manager's streams as async iterables of typed
// events, a discriminated union by `event` generated from the document's line unions.
import type { components } from "../gen/openapi.js";
import { STREAM_EVENTS } from "../gen/operations.js";
import type { Backoff } from "../core/backoff.js";
import { followStream } from "../core/event-stream.js";
import type { EventMeta, StreamOptions } from "../core/event-stream.js";
import type { Transport } from "../core/transport.js";

type Lines = components["schemas"]["EventLine"];
type StreamOwn = { readonly event: "heartbeat" } | { readonly event: "error" };

/** An event of GET /v1/events: `switch (event.event)` narrows `data`. */
export type ManagerEvent = Exclude<Lines, StreamOwn> & EventMeta;
export type EventName = ManagerEvent["event"];

/** An event of GET /v1/status: hello, then logEvents. */
export type StatusEvent = Exclude<components["schemas"]["StatusLine"], StreamOwn> & EventMeta;

export interface EventsQuery<T extends EventName = EventName> {
  /** Only events about these jobs. @default every job */
  readonly jobId?: readonly string[];
  /** Only events whose job or node has each of these tags, "name:value"; events that carry no tags pass. @default no tag narrowing */
  readonly tag?: readonly string[];
  /** Only these events; initialDataComplete, which ends the picture, comes whatever they are. @default every event */
  readonly type?: readonly T[];
  /** The picture also lists, as jobPending, jobs due within this many seconds. @default 0 */
  readonly pendingWindowS?: number;
}

const EVENT_NAMES: ReadonlySet<string> = new Set(STREAM_EVENTS.eventStream);
const STATUS_NAMES: ReadonlySet<string> = new Set(STREAM_EVENTS.createStatusChannel);

export function events<T extends EventName>(
  transport: Transport,
  backoff: Backoff,
  query: EventsQuery<T>,
  options: StreamOptions,
): AsyncGenerator<Extract<ManagerEvent, { event: T | "initialDataComplete" }>, void, undefined> {
  const { type, ...rest } = query;
  const call = { operation: "eventStream", query: { ...rest, type: type === undefined ? undefined : type.join(",") } } as const;
  return followStream({ transport, backoff, call, names: EVENT_NAMES }, options);
}

export function status(transport: Transport, backoff: Backoff, options: StreamOptions): AsyncGenerator<StatusEvent, void, undefined> {
  return followStream({ transport, backoff, call: { operation: "createStatusChannel" }, names: STATUS_NAMES }, options);
}
