// Serialisation of one method's messages, shared by client and server. Built once per method
// when a client or service definition is made, never per call.
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import type { DescMessage, DescMethod, Message } from "@bufbuild/protobuf";

export interface MethodCodec {
  readonly path: string;
  readonly serializeRequest: (message: Message) => Buffer;
  readonly deserializeRequest: (bytes: Buffer) => Message;
  readonly serializeResponse: (message: Message) => Buffer;
  readonly deserializeResponse: (bytes: Buffer) => Message;
  /** Accepts a message or an init object; protobuf-es needs real messages to serialise. */
  readonly createRequest: (init: unknown) => Message;
  readonly createResponse: (init: unknown) => Message;
}

/** The HTTP/2 path of a method: `/package.Service/Method`. */
export function methodPath(method: DescMethod): string {
  return `/${method.parent.typeName}/${method.name}`;
}

export function methodCodec(method: DescMethod): MethodCodec {
  return {
    path: methodPath(method),
    serializeRequest: serializer(method.input),
    deserializeRequest: deserializer(method.input),
    serializeResponse:
      method.methodKind === "server_streaming" ? (message) => encodeStreamMessage(method.output, message) : serializer(method.output),
    deserializeResponse: deserializer(method.output),
    createRequest: creator(method.input),
    createResponse: creator(method.output),
  };
}

function serializer(schema: DescMessage): (message: Message) => Buffer {
  return (message) => {
    const bytes = toBinary(schema, message);
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  };
}

/** Encodings of server-stream messages, by message object (a message has one schema). */
const streamEncodings = new WeakMap<Message, Buffer>();

/**
 * A server stream's message (of `schema`) encoded once however many calls send it and
 * whoever asks first: a change the reference Manager publishes reaches every EventStream
 * subscriber as the same message object, and encoding it once per subscriber made a thousand
 * subscribers cost a thousand encodings; its event bus measures queues with the same bytes.
 * The contract: a message a server stream has yielded does not change afterwards.
 */
export function encodeStreamMessage(schema: DescMessage, message: Message): Buffer {
  let bytes = streamEncodings.get(message);
  if (bytes === undefined) {
    bytes = serializer(schema)(message);
    streamEncodings.set(message, bytes);
  }
  return bytes;
}

function deserializer(schema: DescMessage): (bytes: Buffer) => Message {
  return (bytes) => fromBinary(schema, bytes);
}

function creator(schema: DescMessage): (init: unknown) => Message {
  // create() returns a message of the same type unchanged, and copies an init object.
  return (init) => create(schema, init as Parameters<typeof create>[1]);
}
