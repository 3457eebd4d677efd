// JSON Merge Patch (RFC 7396) over plain JSON values.
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isObject(value: unknown): value is Record<string, Json> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Applies `patch` to `target` and returns the result; neither input is changed. Objects merge
 * key by key, `null` removes a key, anything else (arrays included) replaces. Result objects
 * have no prototype-sensitive keys: "__proto__" is set as an own property, like any other.
 */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const result: Record<string, unknown> = {};
  const base = isObject(target) ? target : {};
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
