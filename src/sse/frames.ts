// What an event stream sends, as text: Server-Sent Events (text/event-stream) or NDJSON, and
// which of the two a client asked for.
import type { EncodedEvent } from "./decoder.js";
import { NDJSON, SSE, preference } from "../http/media-type.js";
import { SSE_RETRY_MS } from "../../schemas/events.js";

export { NDJSON, SSE };

export type StreamFormat = "sse" | "ndjson";


/**
 * What one client is sent for an event: text, or for an event whose data is shared (a Buffer,
 * src/sse/decoder.ts) the client's own text around those very bytes, never a copy of them.
 */
export type Frame = string | { readonly head: string; readonly data: Buffer; readonly tail: string };

/** The event's frame: an SSE message with an id, or one NDJSON line. Data is JSON on one line. */
export function formatEvent(format: StreamFormat, event: EncodedEvent, id: number): Frame {
  const head = format === "ndjson" ? `{"event":"${event.event}","data":` : `id: ${id}\nevent: ${event.event}\ndata: `;
  const tail = format === "ndjson" ? "}\n" : "\n\n";
  return typeof event.data === "string" ? head + event.data + tail : { head, data: event.data, tail };
}

/** A frame's length in bytes. */
export function frameBytes(frame: Frame): number {
  return typeof frame === "string" ? Buffer.byteLength(frame) : Buffer.byteLength(frame.head) + frame.data.length + Buffer.byteLength(frame.tail);
}

/** The final `error` event: a Problem as data; no id, as it is not one of the Manager's events. */
export function formatError(format: StreamFormat, problem: object): string {
  const data = JSON.stringify(problem);
  return format === "ndjson" ? `{"event":"error","data":${data}}\n` : `event: error\ndata: ${data}\n\n`;
}

/**
 * What a stream starts with, before any event: for SSE the reconnection delay (SSE_RETRY_MS);
 * NDJSON has no such field, so nothing.
 */
export function streamPreamble(format: StreamFormat): string {
  return format === "sse" ? `retry: ${String(SSE_RETRY_MS)}\n\n` : "";
}

/**
 * Keeps idle connections open through proxies and finds clients that have gone. SSE has
 * comments for this; NDJSON has none, so there it is a line that says what it is.
 */
export function heartbeat(format: StreamFormat): string {
  return format === "ndjson" ? '{"event":"heartbeat"}\n' : ": heartbeat\n\n";
}

/**
 * The format a client asked for: NDJSON when Accept ranks application/x-ndjson above
 * text/event-stream (or lists it first at the same rank); SSE otherwise, also without Accept.
 */
export function negotiateFormat(accept: string | undefined): StreamFormat {
  if (accept === undefined) return "sse";
  const ndjson = preference(accept, (range) => range === NDJSON);
  const sse = preference(accept, (range) => range === SSE || range === "text/*" || range === "*/*");
  if (ndjson.q <= 0) return "sse";
  return ndjson.q > sse.q || (ndjson.q === sse.q && ndjson.at < sse.at) ? "ndjson" : "sse";
}

/** A frame as the client reads it. */
export function frameText(frame: Frame): string {
  return typeof frame === "string" ? frame : frame.head + frame.data.toString() + frame.tail;
}
