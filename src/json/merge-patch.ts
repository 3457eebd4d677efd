// JSON Merge Patch (RFC 7396): over plain JSON values, and over protobuf messages through the
// mirror, where what the patch does not name is kept exactly as it was.
import { create } from "@bufbuild/protobuf";
import type { DescField, DescMessage, MessageShape } from "@bufbuild/protobuf";
import { reflect } from "@bufbuild/protobuf/reflect";
import type { ReflectMessage } from "@bufbuild/protobuf/reflect";
import { isJsonObject } from "./errors.js";
import { messageFromJson, messageToJson } from "./mirror.js";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * Applies `patch` to `target` and returns the result; neither input is changed. Objects merge
 * key by key, `null` removes a key, anything else (arrays included) replaces. Result objects
 * have no prototype-sensitive keys: "__proto__" is set as an own property, like any other.
 */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isJsonObject(patch)) return patch;
  const result: Record<string, unknown> = {};
  const base = isJsonObject(target) ? target : {};
  for (const key of Object.keys(base)) {
    if (!Object.hasOwn(patch, key) || patch[key] !== null) define(result, key, base[key]);
  }
  for (const key of Object.keys(patch)) {
    const value = patch[key];
    if (value !== null) define(result, key, applyMergePatch(Object.hasOwn(base, key) ? base[key] : undefined, value));
  }
  return result;
}

function define(object: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * `message` after `patch`, as a new message; `message` is not changed. The patch is applied to
 * the message's JSON (docs/architecture.md, "JSON rules"), and each top-level field it names is
 * taken from the result (a oneof member stands for its whole oneof); every other field, and the
 * unknown fields (a newer peer's), are kept exactly as they were. Throws a MirrorError when
 * the patched JSON is not a valid message.
 *
 * One pass over what the patch names: only those fields (and the other members of their
 * oneofs, so that setting a second member still conflicts) go to JSON and back. The other
 * fields are not converted and not copied: the new message shares their values with
 * `message`, so neither may be changed in place afterwards (the PATCH route writes the new one
 * and drops the old). A PATCH therefore costs what the patch names, not what the job holds
 * (`npm run bench:steps` measures it).
 */
export function mergePatchMessage<Desc extends DescMessage>(schema: Desc, message: MessageShape<Desc>, patch: Readonly<Record<string, unknown>>): MessageShape<Desc> {
  const fields = fieldsByJsonName(schema);
  const named = new Set<DescField>();
  for (const key of Object.keys(patch)) {
    const field = fields.get(key);
    if (field !== undefined) for (const member of field.oneof?.fields ?? [field]) named.add(member);
  }
  const before = view(schema, create(schema));
  copyFields(view(schema, message), before, named);
  // The patch's keys that are no field are merged too, and the mirror refuses them.
  const json = messageToJson(schema, before.message as MessageShape<Desc>);
  // Only the named fields' JSON: the others' zero values need not be read back.
  const base: Record<string, unknown> = {};
  for (const field of named) if (Object.hasOwn(json, field.jsonName)) base[field.jsonName] = json[field.jsonName];
  const merged = view(schema, messageFromJson(schema, applyMergePatch(base, patch)));
  const next = shallowCopy(schema, message);
  const target = view(schema, next);
  for (const key of Object.keys(patch)) {
    const field = fields.get(key);
    if (field !== undefined) copyField(merged, target, field);
  }
  return next;
}

/**
 * A message seen through protobuf-es' reflection, without its checks of the values set: every
 * value set through these views is read from another message of the same type.
 */
function view<Desc extends DescMessage>(schema: Desc, message: MessageShape<Desc>): ReflectMessage {
  return reflect(schema, message, false);
}

/** Sets on `to` each of `fields` that is set on `from`, to the same value. */
function copyFields(from: ReflectMessage, to: ReflectMessage, fields: Iterable<DescField>): void {
  for (const field of fields) if (from.isSet(field)) to.set(field, from.get(field));
}

/** A new message with the same field values as `message` (shared, not copied), unknown fields included. */
function shallowCopy<Desc extends DescMessage>(schema: Desc, message: MessageShape<Desc>): MessageShape<Desc> {
  const from = view(schema, message);
  const copy = view(schema, create(schema));
  copyFields(from, copy, schema.fields);
  const unknown = from.getUnknown();
  if (unknown !== undefined) copy.setUnknown([...unknown]);
  return copy.message as MessageShape<Desc>;
}

/** Gives `to` the value of `field` in `from`: set to it, or cleared when it is unset there. */
function copyField(from: ReflectMessage, to: ReflectMessage, field: DescField): void {
  if (field.oneof === undefined) {
    if (from.isSet(field)) to.set(field, from.get(field));
    else to.clear(field);
    return;
  }
  const chosen = from.oneofCase(field.oneof);
  if (chosen !== undefined) to.set(chosen, from.get(chosen));
  else {
    const current = to.oneofCase(field.oneof);
    if (current !== undefined) to.clear(current);
  }
}

const jsonNames = new WeakMap<DescMessage, ReadonlyMap<string, DescField>>();

/** A message's fields by JSON name; built once per message type. */
function fieldsByJsonName(schema: DescMessage): ReadonlyMap<string, DescField> {
  let fields = jsonNames.get(schema);
  if (fields === undefined) {
    fields = new Map(schema.fields.map((field) => [field.jsonName, field]));
    jsonNames.set(schema, fields);
  }
  return fields;
}
