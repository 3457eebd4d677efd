// The Server-Sent Events parser reads what the HTML standard says a stream may hold, however
// the bytes are cut into chunks: LF, CRLF and lone CR line ends (a CRLF split across chunks
// included), multi-line data, comments, `id:` and `retry:` kept for a reconnection, a field
// without a colon, and a UTF-8 character split across chunks.
import { describe, expect, it } from "vitest";
import { serverSentEvents } from "../../src/core/sse.js";
import type { StreamState } from "../../src/core/sse.js";

function streamOf(chunks: readonly (string | Uint8Array)[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(typeof chunk === "string" ? encoder.encode(chunk) : chunk);
      controller.close();
    },
  });
}

async function parsed(chunks: readonly (string | Uint8Array)[]): Promise<{ events: unknown[]; state: StreamState }> {
  const state: StreamState = { lastEventId: undefined, retryMs: undefined };
  const events: unknown[] = [];
  for await (const event of serverSentEvents(streamOf(chunks), state)) events.push(event);
  return { events, state };
}

describe("serverSentEvents", () => {
  it("reads the gateway's stream: retry, ids, names, comments", async () => {
    const { events, state } = await parsed(["retry: 2000\n\nid: 1\nevent: initialDataComplete\ndata: {\"health\":[]}\n\n: heartbeat\n\n", "id: 2\nevent: jobDeleted\ndata: {\"jobId\":\"a\"}\n\n"]);
    expect(events).toEqual([
      { event: "initialDataComplete", data: '{"health":[]}', id: "1" },
      { event: "jobDeleted", data: '{"jobId":"a"}', id: "2" },
    ]);
    expect(state).toEqual({ lastEventId: "2", retryMs: 2000 });
  });

  it("joins data lines, reads CR and CRLF ends cut anywhere, and a field with no colon", async () => {
    const { events } = await parsed(["data: one\r", "\ndata: two\rdata\r\n", "\r\n", "event: x\ndata:no space\n\n"]);
    expect(events).toEqual([
      { event: "message", data: "one\ntwo\n", id: undefined },
      { event: "x", data: "no space", id: undefined },
    ]);
  });

  it("decodes a character cut between chunks, and ignores a retry that is not a number and an id with NUL", async () => {
    const bytes = new TextEncoder().encode("data: Jérôme\n\n");
    const { events, state } = await parsed([bytes.slice(0, 8), bytes.slice(8), "retry: soon\nid: a\0b\ndata: x\n\n"]);
    expect(events.map((event) => (event as { data: string }).data)).toEqual(["Jérôme", "x"]);
    expect(state).toEqual({ lastEventId: undefined, retryMs: undefined });
  });

  it("dispatches no event left unfinished at the end", async () => {
    expect((await parsed(["data: cut off"])).events).toEqual([]);
  });
});
