// Server-Sent Events as the HTML standard parses them: `event:`, `data:` (lines joined by
// LF), `id:` and `retry:` fields, comments ignored, an event dispatched at a blank line. The
// last event id and the reconnection time persist across events, as an EventSource keeps them.
import { linesOf } from "./lines.js";

export interface ServerSentEvent {
  /** The `event:` name; "message" when none was given. */
  readonly event: string;
  readonly data: string;
  /** The last event id as of this event (the stream's, not only this event's). */
  readonly id: string | undefined;
}

/** The state a stream's fields leave for a reconnection. */
export interface StreamState {
  /** The last `id:` seen. */
  lastEventId: string | undefined;
  /** The last `retry:` seen, in milliseconds. */
  retryMs: number | undefined;
}

/** The events of `body`, updating `state` as its fields say. */
export async function* serverSentEvents(body: ReadableStream<Uint8Array>, state: StreamState): AsyncGenerator<ServerSentEvent, void, undefined> {
  let event = "";
  let data: string[] = [];
  for await (const line of linesOf(body)) {
    if (line === "") {
      if (data.length > 0) yield { event: event === "" ? "message" : event, data: data.join("\n"), id: state.lastEventId };
      event = "";
      data = [];
      continue;
    }
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
    else if (field === "id" && !value.includes("\0")) state.lastEventId = value;
    else if (field === "retry" && /^[0-9]+$/.test(value)) state.retryMs = Number(value);
  }
}
