// The one key of a shared call (docs/architecture.md, "Concurrent writes and reads"): two calls share only
// when their keys are equal, and their keys are equal only when they would ask the Manager the
// same thing: the same method, the same request, and the same metadata but for the entries that
// differ per request (the request id and the trace context).
import { create, toBinary } from "@bufbuild/protobuf";
import type { DescMethod, MessageInitShape } from "@bufbuild/protobuf";

/** Metadata that differs per request without changing what the Manager answers. */
const PER_REQUEST_METADATA = new Set(["x-request-id", "traceparent", "tracestate"]);

/** The part of a key that the call's metadata adds: everything but the per-request entries, in name order. */
export function metadataKey(metadata: Readonly<Record<string, string>> | undefined): string {
  if (metadata === undefined) return "";
  let key = "";
  for (const name of Object.keys(metadata).sort()) {
    if (!PER_REQUEST_METADATA.has(name)) key += `${name}\u0000${metadata[name] ?? ""}\u0000`;
  }
  return key;
}

/**
 * The key of a call of `method` with `request` and `metadata`: the method's full name, the
 * request in its binary encoding (protobuf-es writes equal messages as equal bytes), and
 * metadataKey(metadata), each ended by a NUL, which a method name cannot hold.
 */
export function sharedCallKey<M extends DescMethod>(
  method: M,
  request: MessageInitShape<M["input"]>,
  metadata: Readonly<Record<string, string>> | undefined,
): string {
  const bytes = toBinary(method.input, create(method.input, request));
  return `${method.parent.typeName}/${method.name}\u0000${Buffer.from(bytes).toString("latin1")}\u0000${metadataKey(metadata)}`;
}

/**
 * The key of a read that `name` identifies as fully as its request would (a job read by id: the
 * id), without encoding the request: sharedCallKey's form with `name`, prefixed by its length,
 * in place of the bytes, after a U+0001 where sharedCallKey has a NUL, so that the two forms
 * never meet. The length says where the name ends, as the encoding's own lengths do, so that
 * no name (which may hold NULs) can end like a metadata entry and make another read's key.
 */
export function namedCallKey(method: DescMethod, name: string, metadata: Readonly<Record<string, string>> | undefined): string {
  return `${method.parent.typeName}/${method.name}\u0001${name.length}:${name}\u0000${metadataKey(metadata)}`;
}
