// Stream messages (EventStreamEvent, NorskStatusEvent: each a oneof of messages) as events: the
// set member's JSON name and that member mirrored (docs/architecture.md, "JSON rules") as JSON
// text. The names and shapes are those of the rest of the API, derived from the descriptors.
//
// Every client of a stream receives the same messages on its own gRPC call, byte for byte, so
// the result is kept for recent messages, keyed by their bytes: a change seen by a thousand
// clients is decoded and written as JSON once, not a thousand times. Equal bytes always give
// equal JSON, so this changes nothing but the cost; the cache is bounded in entries and bytes.
import { fromBinary } from "@bufbuild/protobuf";
import type { DescMessage, MessageShape } from "@bufbuild/protobuf";
import { messageToJson } from "../json/index.js";
import { UnusableAnswerError } from "norsk-manager-contract/grpc/errors.js";

/**
 * JSON at least this long is kept as one Buffer that every client's frame refers to (a socket
 * write takes it without a copy); shorter JSON is text copied into each client's next write,
 * which costs less than a write of its own. Either way it is encoded once per message.
 */
export const SHARED_DATA_MIN_BYTES = 16 * 1024;

/**
 * One event: its name (jobUpdated, hello, ...) and its data as JSON on one line: text, or UTF-8
 * shared by every client when it is at least SHARED_DATA_MIN_BYTES long.
 */
export interface EncodedEvent {
  readonly event: string;
  readonly data: string | Buffer;
  /** What the event is about, when the decoder was given a subjectOf: for narrowing a stream per client. */
  readonly subject?: EventSubject | undefined;
}

/**
 * What an event is about, as far as a client may narrow a stream by it: the job it concerns,
 * and the tags of the job or node it carries (undefined: it carries none, as an event naming
 * only an id does).
 */
export interface EventSubject {
  readonly jobId?: string | undefined;
  readonly tags?: Readonly<Record<string, string>> | undefined;
  /** The tags of the job before the updates the event tells, where it names the jobs they replaced. */
  readonly formerTags?: readonly Readonly<Record<string, string>>[] | undefined;
}

/** The subject of a stream message's member `event` (its JSON name) whose value is `value`. */
export type SubjectOf = (event: string, value: unknown) => EventSubject | undefined;

/** The length of an event's data in bytes (as text, its UTF-8 length). */
export function dataBytes(event: EncodedEvent): number {
  return typeof event.data === "string" ? Buffer.byteLength(event.data) : event.data.length;
}

export interface DecoderLimits {
  /** Messages remembered. Default: 1024. */
  readonly entries?: number;
  /** Bytes remembered, counting each message twice (its bytes and its JSON). Default: 16 MiB. */
  readonly bytes?: number;
}

/** Kept for unknown members too, so that those are not decoded again either. */
const UNKNOWN: EncodedEvent = { event: "", data: "" };

export class EventDecoder<Desc extends DescMessage> {
  readonly #schema: Desc;
  readonly #oneof: string;
  readonly #members = new Map<string, { name: string; type: DescMessage }>();
  readonly #cache = new Map<string, EncodedEvent>(); // insertion order is recency order
  readonly #maxEntries: number;
  readonly #maxBytes: number;
  #bytes = 0;

  readonly #subjectOf: SubjectOf | undefined;

  /** `subjectOf`, when given, gives each event its subject, found once per message as its JSON is. */
  constructor(schema: Desc, limits: DecoderLimits = {}, subjectOf?: SubjectOf) {
    this.#subjectOf = subjectOf;
    const [oneof, ...others] = schema.oneofs;
    if (oneof === undefined || others.length > 0 || schema.fields.length !== oneof.fields.length) {
      throw new Error(`${schema.typeName} is not a single oneof`);
    }
    for (const field of oneof.fields) {
      if (field.message === undefined) throw new Error(`${schema.typeName}.${field.name} is not a message`);
      this.#members.set(field.localName, { name: field.jsonName, type: field.message });
    }
    this.#schema = schema;
    this.#oneof = oneof.localName;
    this.#maxEntries = limits.entries ?? 1024;
    this.#maxBytes = limits.bytes ?? 16 * 1024 * 1024;
  }

  /**
   * The event of an encoded message, or undefined when its member is one this gateway does not
   * know (a newer Manager's): there is no name or shape to give it.
   */
  decode(bytes: Buffer): EncodedEvent | undefined {
    // The clients of a shared stream (src/operations/shared-calls/streams.ts) get the very same bytes.
    const same = this.#lastBytes === bytes ? this.#lastEvent : undefined;
    if (same !== undefined) return same === UNKNOWN ? undefined : same;
    const event = this.#decodeBytes(bytes);
    this.#lastBytes = bytes;
    this.#lastEvent = event ?? UNKNOWN;
    return event;
  }

  #lastBytes: Buffer | undefined;
  #lastEvent: EncodedEvent | undefined;

  #decodeBytes(bytes: Buffer): EncodedEvent | undefined {
    const key = bytes.toString("latin1");
    let event = this.#cache.get(key);
    if (event !== undefined) {
      this.#cache.delete(key); // refresh its place
      this.#cache.set(key, event);
    } else {
      event = this.#convert(this.#parse(bytes)) ?? UNKNOWN;
      this.#remember(key, event);
    }
    return event === UNKNOWN ? undefined : event;
  }

  /** The message, or an UnusableAnswerError (a 502) for bytes that are not one. */
  #parse(bytes: Buffer): MessageShape<Desc> {
    try {
      return fromBinary(this.#schema, bytes);
    } catch (error) {
      throw new UnusableAnswerError(`a ${this.#schema.typeName} from the Manager does not parse`, { cause: error });
    }
  }

  #convert(message: MessageShape<Desc>): EncodedEvent | undefined {
    const { case: set, value } = (message as unknown as Record<string, { case: string | undefined; value?: unknown }>)[this.#oneof] ?? {
      case: undefined,
    };
    const member = set === undefined ? undefined : this.#members.get(set);
    if (member === undefined) return undefined;
    // JSON.stringify escapes CR and LF: the data is one line, as an SSE data field must be.
    const json = JSON.stringify(messageToJson(member.type, value as MessageShape<DescMessage>));
    // A string's length is at most its UTF-8 length: a shorter one may still be long in bytes,
    // which only costs a copy per client.
    const data = json.length < SHARED_DATA_MIN_BYTES ? json : Buffer.from(json);
    const subject = this.#subjectOf?.(member.name, value);
    return subject === undefined ? { event: member.name, data } : { event: member.name, data, subject };
  }

  #remember(key: string, event: EncodedEvent): void {
    const size = key.length + dataBytes(event);
    if (size > this.#maxBytes / 4) return; // a giant message would push out everything else
    this.#cache.set(key, event);
    this.#bytes += size;
    for (const [oldest, old] of this.#cache) {
      if (this.#cache.size <= this.#maxEntries && this.#bytes <= this.#maxBytes) break;
      this.#cache.delete(oldest);
      this.#bytes -= oldest.length + dataBytes(old);
    }
  }
}
