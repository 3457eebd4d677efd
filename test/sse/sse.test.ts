// The pieces of src/sse/ on their own: format negotiation, framing, and the shared decoder
// (the same JSON as the mirror gives, once per distinct message, within its bounds).
import { create, toBinary } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { EventStreamEventSchema, NodeStopping_Reason, NorskStatusEventSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { Code, UnusableAnswerError } from "norsk-manager-contract/grpc/errors.js";
import { messageToJson } from "../../src/json/index.js";
import { toProblem } from "../../src/http/problem.js";
import { EventDecoder, SHARED_DATA_MIN_BYTES, dataBytes } from "../../src/sse/decoder.js";
import { formatError, formatEvent, frameText, heartbeat, negotiateFormat } from "../../src/sse/frames.js";

const bytesOf = (init: Parameters<typeof create<typeof EventStreamEventSchema>>[1]) =>
  Buffer.from(toBinary(EventStreamEventSchema, create(EventStreamEventSchema, init)));

describe("negotiateFormat", () => {
  it.each([
    [undefined, "sse"],
    ["*/*", "sse"],
    ["text/event-stream", "sse"],
    ["application/json", "sse"],
    ["application/x-ndjson", "ndjson"],
    ["application/x-ndjson, text/event-stream", "ndjson"],
    ["text/event-stream, application/x-ndjson", "sse"],
    ["text/event-stream;q=0.5, application/x-ndjson", "ndjson"],
    ["application/x-ndjson;q=0.5, */*", "sse"],
    ["application/x-ndjson;q=0", "sse"],
  ] as const)("Accept %s → %s", (accept, format) => {
    expect(negotiateFormat(accept)).toBe(format);
  });
});

describe("frames", () => {
  const event = { event: "jobDeleted", data: '{"jobId":"a\\nb"}' };
  it("writes an SSE event with id, name and one line of data", () => {
    expect(formatEvent("sse", event, 7)).toBe('id: 7\nevent: jobDeleted\ndata: {"jobId":"a\\nb"}\n\n');
  });
  it("writes an NDJSON line", () => {
    expect(JSON.parse(frameText(formatEvent("ndjson", event, 7)))).toEqual({ event: "jobDeleted", data: { jobId: "a\nb" } });
  });
  it("writes the error event and the heartbeat in each format", () => {
    expect(formatError("sse", { status: 503 })).toBe('event: error\ndata: {"status":503}\n\n');
    expect(JSON.parse(formatError("ndjson", { status: 503 }))).toEqual({ event: "error", data: { status: 503 } });
    expect(heartbeat("sse")).toBe(": heartbeat\n\n");
    expect(JSON.parse(heartbeat("ndjson"))).toEqual({ event: "heartbeat" });
  });
});

describe("EventDecoder", () => {
  it("takes bytes that are not a message for an unusable answer, with the parser's error as its cause", () => {
    const decoder = new EventDecoder(EventStreamEventSchema);
    let thrown: unknown;
    try {
      decoder.decode(Buffer.from([0x0a, 0xff])); // field 1, length-delimited, a length past the end
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UnusableAnswerError);
    const error = thrown as UnusableAnswerError;
    expect(error.code).toBe(Code.INTERNAL);
    expect(error.cause).toBeInstanceOf(Error);
    // Its own words, not an imitation of grpc-js's report of an answer it could not parse.
    expect(error.details).not.toMatch(/Response message parsing error/);
    expect(toProblem(error, { id: "r", url: "/v1/events" })).toMatchObject({ status: 502, code: "INTERNAL" });
  });

  it("gives the member's JSON name and its mirrored JSON", () => {
    const decoder = new EventDecoder(EventStreamEventSchema);
    const message = create(EventStreamEventSchema, { event: { case: "nodeStopping", value: { nodeId: { nodeId: "n" }, reason: NodeStopping_Reason.USER_REQUESTED } } });
    const event = decoder.decode(Buffer.from(toBinary(EventStreamEventSchema, message)));
    expect(event).toEqual({ event: "nodeStopping", data: JSON.stringify(messageToJson(EventStreamEventSchema, message).nodeStopping) });
    expect(event?.data).toBe('{"nodeId":"n","reason":"user_requested"}');
  });

  it("answers the same for the same bytes, from its cache, and apart for different ones", () => {
    const decoder = new EventDecoder(EventStreamEventSchema, { entries: 2 });
    const a = bytesOf({ event: { case: "jobDeleted", value: { jobId: { jobId: "a" } } } });
    const b = bytesOf({ event: { case: "jobDeleted", value: { jobId: { jobId: "b" } } } });
    const c = bytesOf({ event: { case: "jobDeleted", value: { jobId: { jobId: "c" } } } });
    const first = decoder.decode(a);
    expect(decoder.decode(Buffer.from(a))).toBe(first); // the cached object itself
    expect(decoder.decode(b)?.data).toBe('{"jobId":"b"}');
    expect(decoder.decode(c)?.data).toBe('{"jobId":"c"}'); // evicts a, the least recent
    expect(decoder.decode(a)).not.toBe(first);
    expect(decoder.decode(a)).toEqual(first);
  });

  it("keeps data of SHARED_DATA_MIN_BYTES or more as one Buffer, the same object for every client of the same bytes", () => {
    const decoder = new EventDecoder(EventStreamEventSchema);
    const small = decoder.decode(bytesOf({ event: { case: "jobDeleted", value: { jobId: { jobId: "a" } } } }));
    expect(typeof small?.data).toBe("string");
    const jobId = "é".repeat(SHARED_DATA_MIN_BYTES);
    const bytes = bytesOf({ event: { case: "jobDeleted", value: { jobId: { jobId } } } });
    const large = decoder.decode(bytes);
    expect(Buffer.isBuffer(large?.data)).toBe(true);
    expect(String(large?.data)).toBe(JSON.stringify({ jobId }));
    expect(decoder.decode(bytes)?.data).toBe(large?.data); // shared, not copied
    expect(dataBytes(large ?? { event: "", data: "" })).toBe(Buffer.byteLength(JSON.stringify({ jobId })));
  });

  it("skips a member it does not know, and a message with none set", () => {
    const decoder = new EventDecoder(EventStreamEventSchema);
    expect(decoder.decode(Buffer.from([0x9a, 0x06, 0x01, 0x41]))).toBeUndefined(); // field 99, bytes "A"
    expect(decoder.decode(Buffer.alloc(0))).toBeUndefined();
  });

  it("decodes status events too", () => {
    const decoder = new EventDecoder(NorskStatusEventSchema);
    const bytes = toBinary(NorskStatusEventSchema, create(NorskStatusEventSchema, { message: { case: "logEvent", value: { msg: "hi", timestamp: 5n } } }));
    expect(decoder.decode(Buffer.from(bytes))).toEqual({ event: "logEvent", data: '{"level":"emergency","timestamp":"5","msg":"hi","metadata":""}' });
  });
});
