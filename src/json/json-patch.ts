// JSON Patch (RFC 6902) over plain JSON values, with JSON Pointers (RFC 6901). The document is
// never changed: operations apply to a copy, all or nothing. Errors locate the operation as a
// JSON Pointer into the patch (`/2/path`), the client's own words.
//
// Bounds: a patch holds at most MAX_PATCH_OPERATIONS operations, and `copy` and `add` may not
// grow the document past MAX_PATCHED_VALUES values or MAX_PATCHED_DEPTH levels, so that a small
// patch cannot build a huge document by copying the root into itself again and again.
import { isJsonObject } from "./errors.js";

export { MAX_JSON_PATCH_OPERATIONS as MAX_PATCH_OPERATIONS } from "../../schemas/job.js";
import { MAX_JSON_PATCH_OPERATIONS as MAX_PATCH_OPERATIONS } from "../../schemas/job.js";
export const MAX_PATCHED_VALUES = 100_000;
export const MAX_PATCHED_DEPTH = 64;

export type JsonPatchOperation =
  | { readonly op: "add" | "replace" | "test"; readonly path: string; readonly value: unknown }
  | { readonly op: "remove"; readonly path: string }
  | { readonly op: "move" | "copy"; readonly path: string; readonly from: string };

/**
 * What is wrong with a patch: "malformed" (the patch itself: a 400), "conflict" (it does not
 * apply to this document: a path that is not there, a failed test) or "too large".
 */
export class JsonPatchError extends Error {
  override readonly name = "JsonPatchError";
  constructor(
    readonly kind: "malformed" | "conflict" | "too large",
    /** Where in the patch: /index/member. */
    readonly pointer: string,
    message: string,
  ) {
    super(message);
  }
}

const OPS = new Set(["add", "remove", "replace", "move", "copy", "test"]);

/** The operations of a patch body, checked (RFC 6902 §4): members other than these are ignored. */
export function parseJsonPatch(body: unknown): JsonPatchOperation[] {
  if (!Array.isArray(body)) throw new JsonPatchError("malformed", "", "must be an array of operations");
  if (body.length > MAX_PATCH_OPERATIONS) throw new JsonPatchError("malformed", "", `must hold at most ${MAX_PATCH_OPERATIONS} operations`);
  return body.map((entry: unknown, index) => {
    const at = `/${index}`;
    if (!isJsonObject(entry)) throw new JsonPatchError("malformed", at, "must be an operation object");
    const { op, path } = entry;
    if (typeof op !== "string" || !OPS.has(op)) throw new JsonPatchError("malformed", `${at}/op`, "must be add, remove, replace, move, copy or test");
    if (typeof path !== "string" || parsePointer(path) === undefined) throw new JsonPatchError("malformed", `${at}/path`, "must be a JSON Pointer");
    switch (op) {
      case "remove":
        return { op, path };
      case "move":
      case "copy": {
        const { from } = entry;
        if (typeof from !== "string" || parsePointer(from) === undefined) throw new JsonPatchError("malformed", `${at}/from`, "must be a JSON Pointer");
        if (op === "move" && isProperPrefix(parsePointer(from) ?? [], parsePointer(path) ?? [])) {
          throw new JsonPatchError("malformed", `${at}/from`, "cannot be moved into one of its own children");
        }
        return { op, path, from };
      }
      default: {
        if (!Object.hasOwn(entry, "value")) throw new JsonPatchError("malformed", `${at}/value`, "is required");
        return { op: op as "add" | "replace" | "test", path, value: entry.value };
      }
    }
  });
}

/**
 * The reference tokens of a JSON Pointer ("" is the whole document), unescaped (~1 is "/", ~0 is
 * "~"); undefined when it is not one (no leading "/", or a "~" not followed by 0 or 1).
 */
export function parsePointer(pointer: string): string[] | undefined {
  if (pointer === "") return [];
  if (!pointer.startsWith("/") || /~(?![01])/.test(pointer)) return undefined;
  return pointer
    .slice(1)
    .split("/")
    .map((token) => token.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/**
 * The tokens of an operation's pointer; a malformed patch at `where` when it is none. Operations
 * from parseJsonPatch always have them, but applyJsonPatch takes any operations, and a pointer it
 * could not read must never stand for the whole document.
 */
function tokensAt(pointer: string, where: string): string[] {
  const tokens = parsePointer(pointer);
  if (tokens === undefined) throw new JsonPatchError("malformed", where, "must be a JSON Pointer");
  return tokens;
}

function isProperPrefix(prefix: readonly string[], of: readonly string[]): boolean {
  return prefix.length < of.length && prefix.every((token, i) => token === of[i]);
}

type Container = Record<string, unknown> | unknown[];

/** `document` after `operations`, as a new value; `document` is not changed. */
export function applyJsonPatch(document: unknown, operations: readonly JsonPatchOperation[]): unknown {
  const root = { value: copy(document) };
  let values = measure(document).values;
  operations.forEach((operation, index) => {
    const at = `/${index}`;
    const path = tokensAt(operation.path, `${at}/path`);
    const grow = (value: unknown): unknown => {
      const size = measure(value);
      values += size.values;
      if (values > MAX_PATCHED_VALUES || path.length + size.depth > MAX_PATCHED_DEPTH) {
        throw new JsonPatchError("too large", at, `would make the document larger than ${MAX_PATCHED_VALUES} values or deeper than ${MAX_PATCHED_DEPTH} levels`);
      }
      return value;
    };
    switch (operation.op) {
      case "add":
        add(root, path, grow(copy(operation.value)), at);
        return;
      case "remove":
        remove(root, path, at);
        return;
      case "replace":
        get(root, path, `${at}/path`);
        remove(root, path, at);
        add(root, path, grow(copy(operation.value)), at);
        return;
      case "move": {
        const from = tokensAt(operation.from, `${at}/from`);
        const value = get(root, from, `${at}/from`);
        remove(root, from, at, "from");
        add(root, path, value, at);
        return;
      }
      case "copy":
        add(root, path, grow(copy(get(root, tokensAt(operation.from, `${at}/from`), `${at}/from`))), at);
        return;
      case "test":
        if (!jsonEqual(get(root, path, `${at}/path`), operation.value)) {
          throw new JsonPatchError("conflict", `${at}/value`, `differs from the value at ${JSON.stringify(operation.path)}`);
        }
        return;
    }
  });
  return root.value;
}

/** The parent of the location `path` names, and the last token; the root's parent is the holder. */
function parentOf(root: { value: unknown }, path: readonly string[], where: string): { parent: Container; token: string } {
  if (path.length === 0) return { parent: root, token: "value" };
  const parent = get(root, path.slice(0, -1), where);
  if (typeof parent !== "object" || parent === null) throw new JsonPatchError("conflict", where, "names a member of a value that is neither an object nor an array");
  return { parent: parent as Container, token: path[path.length - 1] ?? "" };
}

/** The value at `path`; a conflict at `where` when there is none. */
function get(root: { value: unknown }, path: readonly string[], where: string): unknown {
  let value = root.value;
  for (const token of path) {
    if (Array.isArray(value)) {
      const index = arrayIndex(token);
      if (index === undefined || index >= value.length) throw new JsonPatchError("conflict", where, `names no element: ${JSON.stringify(token)}`);
      value = value[index];
    } else if (isJsonObject(value) && Object.hasOwn(value, token)) {
      value = value[token];
    } else {
      throw new JsonPatchError("conflict", where, `names nothing in the document: no ${JSON.stringify(token)}`);
    }
  }
  return value;
}

function add(root: { value: unknown }, path: readonly string[], value: unknown, at: string): void {
  const { parent, token } = parentOf(root, path, `${at}/path`);
  if (Array.isArray(parent)) {
    const index = token === "-" ? parent.length : arrayIndex(token);
    if (index === undefined || index > parent.length) throw new JsonPatchError("conflict", `${at}/path`, `names no place in the array: ${JSON.stringify(token)}`);
    parent.splice(index, 0, value);
    return;
  }
  Object.defineProperty(parent, token, { value, enumerable: true, writable: true, configurable: true });
}

function remove(root: { value: unknown }, path: readonly string[], at: string, member: "path" | "from" = "path"): void {
  const where = `${at}/${member}`;
  get(root, path, where);
  const { parent, token } = parentOf(root, path, where);
  if (Array.isArray(parent)) parent.splice(arrayIndex(token) ?? 0, 1);
  else if (parent === root) root.value = undefined;
  else Reflect.deleteProperty(parent, token);
}

/** An array index token: "0" or digits without a leading zero. */
function arrayIndex(token: string): number | undefined {
  return /^(0|[1-9][0-9]{0,8})$/.test(token) ? Number(token) : undefined;
}

/** A deep copy of a JSON value; own properties only, "__proto__" kept as a plain key. */
function copy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copy);
  if (!isJsonObject(value)) return value;
  const result: Record<string, unknown> = {};
  for (const key of Object.keys(value)) Object.defineProperty(result, key, { value: copy(value[key]), enumerable: true, writable: true, configurable: true });
  return result;
}

/**
 * How many values a JSON value holds (itself included), and how deep it is. It stops once past
 * the values bound, which bounds its work; it does not stop at the depth bound, so that a
 * document deeper than that is still counted whole.
 */
function measure(value: unknown): { values: number; depth: number } {
  let values = 0;
  let depth = 0;
  const pending: [unknown, number][] = [[value, 1]];
  for (let next = pending.pop(); next !== undefined && values <= MAX_PATCHED_VALUES; next = pending.pop()) {
    const [item, level] = next;
    values++;
    depth = Math.max(depth, level);
    if (Array.isArray(item)) for (const element of item) pending.push([element, level + 1]);
    else if (isJsonObject(item)) for (const key of Object.keys(item)) pending.push([item[key], level + 1]);
  }
  return { values, depth };
}

/** JSON equality (RFC 6902 §4.6): members in any order, numbers by value. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => jsonEqual(item, b[i]));
  if (isJsonObject(a)) {
    if (!isJsonObject(b) || Array.isArray(b)) return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && jsonEqual(a[key], b[key]));
  }
  return a === b;
}

/**
 * The merge patch (RFC 7396) that turns `before` into `after`, both objects: removed members are
 * null, changed objects are diffed member by member, anything else changed is given whole.
 */
export function mergePatchBetween(before: Readonly<Record<string, unknown>>, after: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  const set = (key: string, value: unknown) => Object.defineProperty(patch, key, { value, enumerable: true, writable: true, configurable: true });
  for (const key of Object.keys(before)) if (!Object.hasOwn(after, key)) set(key, null);
  for (const key of Object.keys(after)) {
    const was = before[key];
    const now = after[key];
    if (!Object.hasOwn(before, key)) set(key, now);
    else if (jsonEqual(was, now)) continue;
    else if (isJsonObject(was) && isJsonObject(now)) set(key, mergePatchBetween(was, now));
    else set(key, now);
  }
  return patch;
}
